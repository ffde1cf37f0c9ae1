/**
 * What a server-rendered step tells the browser that hydrates it (src/client/app/main.tsx): the
 * page as the server drew it, sent as `<script type="application/json" id="server-page">` beside
 * the drawn form (no inline script: the CSP stays as it is).
 */
import type { Locale } from './locales.js';

export const SERVER_PAGE_ELEMENT_ID = 'server-page';

export interface ServerPage {
  /** The step drawn (its id in the flow). */
  step: string;
  /** The step's route, as drawn. */
  route: string;
  /** The language it was drawn in. */
  locale: Locale;
  /** The form drawn: the step's own schema (a variant a driver's device picks is drawn in the browser). */
  schema: string;
  /** The server's date (YYYY-MM-DD) the drawn date limits were worked out for. */
  today: string;
}
