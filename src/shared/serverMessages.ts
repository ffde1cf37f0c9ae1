/**
 * The keys of flows/server-messages.json, and the placeholders the server fills in each message:
 * the server throws and answers by key (src/server/serverMessages.ts), and the lint checks the
 * file's texts use no other placeholder.
 */
import type { ServerMessages } from './generated/serverMessages.js';

export type Sections = Omit<ServerMessages, '$schema' | '$comment'>;

/** A message's key: its section and its name ("request.unknownField"). */
export type MessageKey = { [Section in keyof Sections]: `${Section}.${keyof Sections[Section] & string}` }[keyof Sections];

/**
 * The {placeholders} the server fills in each message that has any: a message may use these and
 * no other (the lint checks flows/server-messages.json against this list: src/cli/lint/serverMessageChecks.ts).
 */
export const MESSAGE_PARAMS = {
  'request.unknownField': ['field'],
  'request.textTooLong': ['field', 'max'],
  'form.fileNotText': ['field'],
  'form.mustBeFile': ['field'],
  'form.mustBeText': ['field'],
  'form.tooLong': ['field'],
  'form.oneFileOnly': ['field'],
  'form.sentTwice': ['field'],
  'form.keptFileGone': ['field'],
  'form.oneFileAs': ['field'],
  'codes.locked': ['hours'],
  'staff.roleNeeded': ['roles'],
  'staff.fixUnknown': ['step', 'field'],
  'staff.claimedBy': ['email', 'time'],
  'staff.badRange': ['days'],
  'staff.badMethod': ['providers'],
  'staff.unknownStep': ['steps'],
  'staff.badReturnUrl': ['url'],
  'staff.unknownEventType': ['type'],
  'staff.webhookHostUnresolved': ['host'],
  'staff.remindQuietHours': ['from', 'until', 'zone'],
} as const satisfies Partial<Record<MessageKey, readonly string[]>>;
