/**
 * What the server answers a driver in `message`: flows/server-messages.json, each text by its key
 * ("driver.notYourStatus"), with its translations (locales/<language>/server-messages.json); and
 * what it answers staff, by key too, from its `staff` section (English only: it has no translation).
 *
 * A refusal is thrown by key with its parameters (`refusal`), and app.ts's error handler answers
 * it in the request's language; a confirmation is put in it where the route answers
 * (`messageIn`). The English is the one the code would read in a log or a test.
 */
import { httpErrors } from '@fastify/sensible';
import { loadServerMessages } from '../node/projectFiles.js';
import { MESSAGE_PARAMS, type MessageKey, type Sections } from '../shared/serverMessages.js';
import { DEFAULT_LOCALE, type Locale } from '../shared/locales.js';
import { fillPlaceholders } from '../shared/placeholders.js';

type ParamsOf<Key extends MessageKey> = Key extends keyof typeof MESSAGE_PARAMS ? Record<(typeof MESSAGE_PARAMS)[Key][number], string | number> : undefined;

/** The arguments after a key: its parameters, required exactly when the message has some. */
type ParamsArgs<Key extends MessageKey> = ParamsOf<Key> extends undefined ? [] : [params: ParamsOf<Key>];

/** What a refusal's answer carries besides its message. */
export interface RefusalOptions {
  /** The form fields the message is shown under too (the answer's `errors`). */
  fields?: readonly string[];
  /** What the client should do (shared/apiAnswers.ts), e.g. sign in again. */
  reason?: string;
}

const byLocale = new Map<Locale, Sections>();

function messagesIn(locale: Locale): Sections {
  let messages = byLocale.get(locale);
  if (!messages) {
    messages = loadServerMessages(locale);
    byLocale.set(locale, messages);
  }
  return messages;
}

/** The English messages, read (and checked against their schema) when the server starts. */
export const SERVER_MESSAGES: Sections = messagesIn(DEFAULT_LOCALE);

/** A message in `locale` (in English where it has no translation yet), its parameters filled. */
export function messageIn<Key extends MessageKey>(locale: Locale, key: Key, ...[params]: ParamsArgs<Key>): string {
  return keyedMessageIn(locale, { key, params });
}

/** A refusal's message (`keyedMessageOf`) in `locale`. */
export function keyedMessageIn(locale: Locale, { key, params }: KeyedMessage): string {
  const [section, name] = key.split('.') as [keyof Sections, string];
  return fillPlaceholders((messagesIn(locale)[section] as Record<string, string>)[name]!, params);
}

/** What a refusal carries for its answer to be put in the request's language. */
export interface KeyedMessage {
  key: MessageKey;
  params?: Readonly<Record<string, string | number>>;
  fields?: readonly string[];
}

/**
 * A refusal a driver reads: an http error whose message is the English, carrying its key and
 * parameters (`keyed`) for app.ts's error handler to answer in the request's language.
 */
export function refusal<Key extends MessageKey>(statusCode: number, key: Key, ...args: [...ParamsArgs<Key>, options?: RefusalOptions]) {
  const takesParams = Object.hasOwn(MESSAGE_PARAMS, key);
  const params = (takesParams ? args[0] : undefined) as Readonly<Record<string, string | number>> | undefined;
  const options = (takesParams ? args[1] : args[0]) as RefusalOptions | undefined;
  const keyed: KeyedMessage = { key, params, fields: options?.fields };
  const message = keyedMessageIn(DEFAULT_LOCALE, keyed);
  const errors = options?.fields ? Object.fromEntries(options.fields.map((field) => [field, [message]])) : undefined;
  return httpErrors.createError(statusCode, message, { keyed, ...(errors ? { errors } : {}), ...(options?.reason ? { reason: options.reason } : {}) });
}

/** The key a thrown refusal carries, if it is one of ours. */
export const keyedMessageOf = (error: unknown): KeyedMessage | undefined => (error as { keyed?: KeyedMessage } | null)?.keyed;
