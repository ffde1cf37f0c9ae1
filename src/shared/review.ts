/**
 * The admin API's answers (routes/admin.ts), read by the review page (src/client/admin) and the
 * admin command (src/cli/admin.ts): stated once, here. A driver's answers come as the steps'
 * schemas describe them, so a field ops staff add reaches reviewers with no change here.
 */

export const REVIEW_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** One driver in the review queue: what a row shows. Documents are loaded with the driver. */
export interface QueueDriver {
  id: string;
  email: string;
  phone: string | null;
  /** The flow's review name fields joined ("Ada Lovelace"); null before the profile. */
  name: string | null;
  /** The identity provider's sign-in method: "password", "google.com", "apple.com", "facebook.com". */
  provider: string;
  status: ReviewStatus;
  rejectionReason: string | null;
  /** What a decision must name: the version of the driver's data this answer shows. */
  reviewVersion: number;
  isSessionComplete: boolean;
  isSubscriptionPaid: boolean;
  createdAt: string;
  /** When the driver last sent everything for review: the queue's order. */
  submittedAt: string | null;
}

/** A page of the queue; `next` is the cursor of the following page (null on the last). */
export interface QueuePage {
  drivers: QueueDriver[];
  next: string | null;
}

export interface ReviewedField {
  field: string;
  /** The UI schema's title (else the schema's, else the field's name). */
  title: string;
  kind: 'text' | 'file' | 'sensitive';
  /** Text answers as sent (booleans and numbers as JSON values); sensitive ones masked; null for a file. */
  value: unknown;
  /** A file: its address under the admin API, and its type. */
  file?: { url: string; mime: string };
  /** Changed since the last decision (false before any decision). */
  changed: boolean;
  /** The value (masked) or the file's address the last decision saw, when changed. */
  previous?: unknown;
  /** A fix the reviewer asked for and the driver has not sent yet. */
  fix?: string;
}

export interface ReviewedStep {
  step: string;
  /** The step's UI schema title. */
  title: string;
  schema: { name: string; version: string };
  submittedAt: string;
  /** A step the reviewer judges and may ask fixes of (the flow's `review.steps`); else shown only (the payout account). */
  reviewed: boolean;
  fields: ReviewedField[];
}

/** One driver as the review page shows them. */
export interface ReviewDriver extends QueueDriver {
  /** Every step the driver sent, in the flow's order. */
  steps: ReviewedStep[];
}

/** A fix a reviewer asks for: the step, the field of it, and why. */
export interface FixRequest {
  step: string;
  field: string;
  reason: string;
}

/** The body of POST /admin/drivers/:id/reject. */
export interface RejectBody {
  reviewVersion: number;
  /** Required unless `fixes` name what to change. */
  reason?: string;
  fixes?: FixRequest[];
}

export const MAX_REASON_LENGTH = 500;

/** How a form sends a file it keeps from before, in the file's field: `kept:<upload id>`. */
export const KEPT_FILE_PREFIX = 'kept:';

/** What a driver's browser gets back of a step it sent (GET /driver/answers/:step), to prefill the form. */
export interface StepAnswersAnswer {
  /** The answers as sent, sensitive ones masked ("•••••6789": sent back unchanged, they are kept); null if never sent. */
  answers: Record<string, unknown> | null;
  /** The step's files, shown as already added: sent back as `kept:<id>`, they are kept. */
  files: Record<string, { id: string; url: string; mime: string }>;
  /** The fixes a reviewer asked of this step, by field. */
  fixes: { field: string; reason: string }[];
}
