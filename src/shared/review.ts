/**
 * The admin API's answers (routes/admin.ts), read by the review page (src/client/admin) and the
 * admin command (src/cli/admin.ts), a step's stored answers the driver's form is prefilled with,
 * and where a driver stands (the status the resume table reads): stated once, in
 * src/shared/review.schema.json, whose generated types these are.
 */
export { AUDIT_ACTIONS, REVIEW_STATUSES, STAFF_ROLES } from './generated/review.js';

export type {
  ApproveBody,
  AuditAction,
  AuditDownloadQuery,
  AuditEvent,
  AuditPage,
  AuditQuery,
  ExpiringDocument,
  ExpiringList,
  ExpiringQuery,
  Claim,
  DriverStatus,
  EraseBody,
  FileAheadAnswer,
  FixRequest,
  Insights,
  InsightsQueryString,
  InsightsStep,
  Integration,
  IntegrationBody,
  IntegrationCreated,
  IntegrationDriver,
  IntegrationDriverQuery,
  IntegrationKeyCreated,
  IntegrationList,
  IntegrationRole,
  KeyBody,
  LaunchLink,
  LaunchLinkBody,
  LaunchOpenBody,
  LaunchOpened,
  LaunchResult,
  LaunchReturn,
  PastDecision,
  PeopleDriver,
  PeoplePage,
  PeopleQuery,
  PeopleStatus,
  PrivacyLookup,
  PrivacyLookupQuery,
  QueueDriver,
  QueuePage,
  QueueQuery,
  RejectBody,
  ReviewDriver,
  ReviewedField,
  ReviewedStep,
  ReturnUrlsBody,
  ReviewStatus,
  StaffBody,
  StaffList,
  StaffMember,
  StaffRole,
  StaffRolesBody,
  StaffSession,
  StaffSignInBody,
  StatusAnswer,
  StepAnswersAnswer,
  TimelineEvent,
  TimelinePage,
} from './generated/review.js';

export const MAX_REASON_LENGTH = 500;

/** The page a launch link opens (routes/integrations.ts): its token follows in the fragment. */
export const LAUNCH_PAGE_PATH = '/launch';
/** The integrations' API (routes/integrations.ts), and the two routes of it a driver's browser calls. */
export const INTEGRATION_PREFIX = '/integration';
export const INTEGRATION_ROUTES = { launch: '/launch', return: '/return' } as const;

/** Where a driver's photos and documents are: GET `<path>/<upload id>`; POST `<path>/<step>/<field>` sends one ahead of its step. */
export const UPLOADS_PATH = '/driver/uploads';

/** How a form sends a file it keeps from before, in the file's field: `kept:<upload id>`. */
export const KEPT_FILE_PREFIX = 'kept:';
