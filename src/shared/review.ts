/**
 * The admin API's answers (routes/admin.ts), read by the review page (src/client/admin) and the
 * admin command (src/cli/admin.ts), a step's stored answers the driver's form is prefilled with,
 * and where a driver stands (the status the resume table reads): stated once, in the contracts of
 * src/shared/contracts/ (one file by audience), whose generated types these are.
 */
import type { StaffRole } from './generated/staff.js';

export { REVIEW_STATUSES } from './generated/driver.js';
// The staff's roles and audit actions are imported from src/shared/generated/staff.ts itself: re-exported
// here, they would ride in the scripts of a driver's first visit, which hold this module.

export type {
  DriverStatus,
  FileAheadAnswer,
  LaunchOpenBody,
  LaunchOpened,
  LaunchResult,
  LaunchReturn,
  ReviewStatus,
  StatusAnswer,
  StepAnswersAnswer,
} from './generated/driver.js';
export type {
  ApproveBody,
  BulkAnswer,
  BulkBody,
  Claim,
  EraseBody,
  ExpiringDocument,
  ExpiringList,
  ExpiringQuery,
  FixRequest,
  PastDecision,
  QueueDriver,
  QueuePage,
  QueueQuery,
  RejectBody,
  RemindersBody,
  ResumeLinkBody,
  ReviewDriver,
  ReviewedField,
  ReviewedStep,
  NoteBody,
  PeopleAction,
  PeopleDownloadQuery,
  PeopleDriver,
  PeoplePage,
  PeopleQuery,
  PeopleStatus,
  PrivacyLookup,
  PrivacyLookupQuery,
  TimelineEvent,
  TimelinePage,
} from './generated/review.js';
export type {
  AcceptInvitationBody,
  AuditAction,
  AuditDownloadQuery,
  AuditEvent,
  AuditPage,
  AuditQuery,
  Integration,
  IntegrationBody,
  IntegrationCreated,
  IntegrationDriver,
  IntegrationDriverQuery,
  IntegrationKeyCreated,
  IntegrationList,
  IntegrationRole,
  Invitation,
  InvitationAccepted,
  InvitationBody,
  KeyBody,
  LaunchLink,
  LaunchLinkBody,
  ReturnUrlsBody,
  SignInFailedBody,
  StaffBody,
  StaffList,
  StaffMember,
  StaffRole,
  StaffRolesBody,
  StaffSession,
  StaffSignInBody,
} from './generated/staff.js';
export type {
  Insights,
  InsightsQueryString,
  InsightsStep,
} from './generated/insights.js';

export const MAX_REASON_LENGTH = 500;

/** A staff role in words: the admin page's and the staff's emails. */
export const ROLE_LABELS: Record<StaffRole, string> = {
  reviewer: 'Reviewer',
  'privacy-officer': 'Privacy officer',
  owner: 'Owner',
};

/** The admin page's fragment an invitation link carries its token in (`#invitation=<token>`): a fragment never reaches a server or its log. */
export const INVITATION_FRAGMENT = 'invitation';

/** The page a launch link opens (routes/integrations.ts): its token follows in the fragment. */
export const LAUNCH_PAGE_PATH = '/launch';
/**
 * The app's pages beside the flow's steps: the review page, the form studio and the frame its
 * preview is drawn in, and the launch page. No step's route is one of them, nor below one (the lint).
 */
export const PAGE_ROUTES = { admin: '/admin', studio: '/studio', studioFrame: '/studio/frame', launch: LAUNCH_PAGE_PATH } as const;
/** The integrations' API (routes/integrations.ts), and the two routes of it a driver's browser calls. */
export const INTEGRATION_PREFIX = '/integration';
export const INTEGRATION_ROUTES = { launch: '/launch', return: '/return' } as const;

/** Where a driver's photos and documents are: GET `<path>/<upload id>`; POST `<path>/<step>/<field>` sends one ahead of its step. */
export const UPLOADS_PATH = '/driver/uploads';

/** How a form sends a file it keeps from before, in the file's field: `kept:<upload id>`. */
export const KEPT_FILE_PREFIX = 'kept:';
