/**
 * The form studio's data: the fixtures the server lists (src/server/routes/studio.ts), the
 * messages between the studio page and its preview frame, and a fixture checked against what
 * the validator says.
 */
import type { RJSFValidationError } from '@rjsf/utils';
import { messagesByField } from '../../shared/errors.js';
// The type only: the module itself is Node's.
import type { ListedFixture } from '../../shared/fixtureFiles.js';

export const FIXTURES_URL = '/admin/fixtures';

/** What the studio page asks its frame to show; `key` changes when the form must start again. */
export interface ShowMessage {
  kind: 'show';
  key: string;
  step: string;
  schema: string;
  data: Record<string, unknown>;
}

/** From the frame: `ready` once it listens (again, after a reload), `data` after each change of the form shown for `key`. */
export type FrameMessage = { kind: 'ready' } | { kind: 'data'; key: string; data: Record<string, unknown> };

/** The first message of each field with errors, by JSON pointer ("" for the form as a whole). */
export function messagesByPointer(errors: RJSFValidationError[]): Record<string, string> {
  const byPointer: Record<string, string> = {};
  for (const [field, messages] of Object.entries(messagesByField(errors))) {
    if (messages[0]) byPointer[field ? `/${field}` : ''] = messages[0];
  }
  return byPointer;
}

/** How what the validator says differs from what the fixture expects; empty when it matches. */
export function differencesFrom(fixture: ListedFixture, actual: Record<string, string>): string[] {
  const expected = fixture.errors;
  const expectsValid = fixture.expect === 'valid';
  const valid = Object.keys(actual).length === 0;
  const differences: string[] = [];
  if (expectsValid !== valid) differences.push(expectsValid ? 'expected valid, but the form has errors' : 'expected invalid, but the form is valid');
  for (const pointer of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
    if (expected[pointer] === actual[pointer]) continue;
    const name = pointer || '(form)';
    if (expected[pointer] === undefined) differences.push(`${name}: not expected, got "${actual[pointer]}"`);
    else if (actual[pointer] === undefined) differences.push(`${name}: expected "${expected[pointer]}", got no message`);
    else differences.push(`${name}: expected "${expected[pointer]}", got "${actual[pointer]}"`);
  }
  return differences;
}
