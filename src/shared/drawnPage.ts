/**
 * The first visit's rule, stated once for both sides: a step's page the server drew holds nothing
 * of a driver's (it is drawn once per build, route and language), so it is used only when the
 * device holds nothing to fill it with; otherwise the browser draws the page itself, filled.
 * The server tells by the cookies (src/server/routes/static.ts sends such a page undrawn); the
 * browser by what it reads before its first drawing (src/client/app/main.tsx draws afresh rather
 * than hydrate), where it also knows the form's variant.
 */
import { DRAFT_STEP_SEPARATOR } from './storageKeys.js';

/** What the device holds of a step, as far as one side can tell. */
export interface DeviceHolds {
  /** A draft of the step (the server: the drafts cookie names it; the browser: one was read). */
  draft: boolean;
  /** A driver's token (the token cookie): on a reviewed step, the answers they sent fill the form. */
  signedIn: boolean;
  /** The browser only: the form's variant it picks is not the step's own schema, which the server draws. */
  otherVariant?: boolean;
}

/** Whether the device fills the step with what only it knows: the server's drawing would show less. */
export const deviceFills = (step: { reviewed: boolean }, holds: DeviceHolds): boolean =>
  holds.draft || (step.reviewed && holds.signedIn) || holds.otherVariant === true;

/** The steps a drafts cookie's value names (none for no cookie). */
export const draftSteps = (cookie: string | undefined): string[] => (cookie ? cookie.split(DRAFT_STEP_SEPARATOR) : []);
