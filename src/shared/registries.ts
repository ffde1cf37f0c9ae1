/**
 * The names the data files may use for code the browser provides: a flow step's `screen` and a UI
 * schema's `ui:widget`. The browser's registries (src/client/screens, widgets/) are typed by these
 * names, so the two can't drift; the lint reads them here without loading React.
 */

export const SCREEN_NAMES = ['message', 'awaitingApproval', 'resume', 'rideRequest', 'summary', 'addCard', 'callOutcome'] as const;
export type ScreenName = (typeof SCREEN_NAMES)[number];

export const WIDGET_NAMES = ['photo', 'usState', 'usCity', 'dateLimit', 'usPhone', 'password', 'consent', 'code'] as const;
export type WidgetName = (typeof WIDGET_NAMES)[number];

/** What each widget's value is, so the lint refuses a widget on a field it can't fill (a box on a text, a photo on a date). */
export const WIDGET_VALUES: Record<WidgetName, { type: 'string' | 'boolean'; holds?: 'photo' | 'date' }> = {
  photo: { type: 'string', holds: 'photo' },
  usState: { type: 'string' },
  usCity: { type: 'string' },
  dateLimit: { type: 'string', holds: 'date' },
  usPhone: { type: 'string' },
  password: { type: 'string' },
  consent: { type: 'boolean' },
  code: { type: 'string' },
};

export const isScreenName = (name: string): name is ScreenName => (SCREEN_NAMES as readonly string[]).includes(name);
