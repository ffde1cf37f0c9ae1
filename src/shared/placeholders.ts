/**
 * `{name}` placeholders in the texts operations staff write: a notice's `{code}`, an error's
 * `{min}`, a rule's `{minLength}`, a stored value's `{storage.email}`. One reading of them for
 * every kind, so the lint checks what the app fills.
 */
const PLACEHOLDER = /\{([\w.]+)\}/g;

/** Whether a text has a brace that is part of no placeholder ("{ name }", "{{name}}", "{name"): its readers would see it as written. */
export const hasStrayBrace = (text: string): boolean => /[{}]/.test(text.replace(PLACEHOLDER, ''));

/** The names of a text's placeholders, in order. */
export const placeholdersIn = (text: string): string[] => [...text.matchAll(PLACEHOLDER)].map((match) => match[1]!);

/** The text with each placeholder that `values` has replaced by its value; the others stay as written. */
export const fillPlaceholders = (text: string, values: Readonly<Record<string, unknown>> | undefined): string =>
  text.replace(PLACEHOLDER, (whole, name: string) => (values && Object.hasOwn(values, name) && values[name] !== undefined ? String(values[name]) : whole));
