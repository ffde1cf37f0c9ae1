/**
 * flows/server-messages.json beyond its shape: every `{placeholder}` is one the server fills for
 * that message (src/shared/serverMessages.ts `MESSAGE_PARAMS`), so no driver reads "{field}".
 * Its translations keep the English's placeholders (translationChecks.ts).
 */
import { placeholdersIn } from '../../shared/placeholders.js';
import { isObject, type JsonObject } from '../../shared/schemaFiles.js';
import { MESSAGE_PARAMS } from '../../shared/serverMessages.js';
import { closest, placeholderFix, pointer, type Problems } from './problems.js';

export const SERVER_MESSAGES_FILE = 'flows/server-messages.json';

export function checkServerMessages(messages: JsonObject, problems: Problems): void {
  for (const [section, texts] of Object.entries(messages)) {
    if (section.startsWith('$') || !isObject(texts)) continue;
    for (const [name, text] of Object.entries(texts)) {
      if (typeof text !== 'string') continue;
      const offered: readonly string[] = (MESSAGE_PARAMS as Record<string, readonly string[]>)[`${section}.${name}`] ?? [];
      for (const placeholder of placeholdersIn(text)) {
        if (offered.includes(placeholder)) continue;
        const fix = placeholderFix(closest(placeholder, offered), offered);
        problems.add(
          SERVER_MESSAGES_FILE,
          pointer(section, name),
          `{${placeholder}} is not a value the server gives the "${section}.${name}" message, so drivers would read "{${placeholder}}"`,
          fix,
        );
      }
    }
  }
}
