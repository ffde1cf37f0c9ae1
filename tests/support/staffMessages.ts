/**
 * What staff and integrations read from the admin and integration APIs comes from the files, never from the code: each `{ message }`
 * a staff route answers is a message of flows/server-messages.json (its `staff` section, or the
 * requests' own refusals every route shares), its placeholders filled, or the errorMessage of a
 * contract (src/shared/…schema.json) the request broke.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { PROJECT_ROOT } from '../../src/node/projectFiles.js';
import { SERVER_MESSAGES } from '../../src/server/serverMessages.js';
import { placeholdersIn } from '../../src/shared/placeholders.js';
import type { TestServer } from './server.js';

/** Every errorMessage text of a contract, however the keyword is written (one text, or texts by keyword or property). */
function errorMessagesIn(value: unknown, inErrorMessage = false): string[] {
  if (typeof value === 'string') return inErrorMessage ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((each) => errorMessagesIn(each));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, each]) => errorMessagesIn(each, inErrorMessage || key === 'errorMessage'));
}

const contractFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? contractFiles(join(dir, entry.name)) : entry.name.endsWith('.schema.json') ? [join(dir, entry.name)] : [],
  );

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A message text as a pattern its answers match: each {placeholder} any value. */
const patternOf = (text: string) =>
  new RegExp(`^${placeholdersIn(text).reduce((pattern, name) => pattern.replace(escape(`{${name}}`), '.+'), escape(text))}$`, 's');

const FILE_MESSAGES = Object.values(SERVER_MESSAGES).flatMap((section) => Object.values(section as Record<string, string>));
const CONTRACT_MESSAGES = contractFiles(join(PROJECT_ROOT, 'src', 'shared')).flatMap((file) => errorMessagesIn(JSON.parse(readFileSync(file, 'utf8'))));
const KNOWN = [...new Set([...FILE_MESSAGES, ...CONTRACT_MESSAGES])].map(patternOf);

/** Fails each test after which a staff route of `server` had answered a message the files do not hold. */
export function expectStaffMessagesFromFiles(server: () => TestServer): void {
  afterEach(() => {
    const answers = server().staffAnswers.splice(0);
    expect(answers.filter(({ message }) => !KNOWN.some((pattern) => pattern.test(message)))).toEqual([]);
  });
}
