/**
 * The corpus of edits (tests/fixtures/broken-edits/*.json): each is an edit to the shipped files,
 * as operations staff might make it, with the exact lint lines it must give: none for a correct
 * edit (named ok-…), its own precise lines for a broken one.
 *
 *   { "edit": "what the edit is", "file": "schemas/signup.schema.json",
 *     "replace": "text of the shipped file", "with": "its replacement", "all": false,
 *     "expect": ["schemas/signup.schema.json:12:7 /properties/…: … — …"] }
 *
 * An edit of several files lists them instead: "changes": [{ "file", "replace", "with" }, …].
 * "replace" must occur in the shipped file exactly once (every occurrence is replaced with
 * "all"), so an edit that no longer applies fails instead of testing nothing.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTENT_FOLDERS, PROJECT_ROOT } from '../../src/node/projectFiles.js';

export const BROKEN_EDITS_DIR = join(PROJECT_ROOT, 'tests', 'fixtures', 'broken-edits');

interface Change {
  file: string;
  replace: string;
  with: string;
  all?: boolean;
}

export type BrokenEdit = { name: string; edit: string; expect: string[] } & (Change | { changes: Change[] });

export function listBrokenEdits(): BrokenEdit[] {
  return readdirSync(BROKEN_EDITS_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => ({ name: name.replace(/\.json$/, ''), ...JSON.parse(readFileSync(join(BROKEN_EDITS_DIR, name), 'utf8')) }) as BrokenEdit);
}

/** A copy of the files the lint reads (schemas/, flows/, the fixtures); remove it when done. */
export function copyProject(): string {
  const root = mkdtempSync(join(tmpdir(), 'onramp-broken-edit-'));
  for (const dir of CONTENT_FOLDERS) cpSync(join(PROJECT_ROOT, dir), join(root, dir), { recursive: true });
  // The fixtures too, which the lint runs on the edited files (not this corpus).
  cpSync(join(PROJECT_ROOT, 'tests', 'fixtures'), join(root, 'tests', 'fixtures'), { recursive: true, filter: (source) => !source.includes('broken-edits') });
  return root;
}

/**
 * Makes the edit in a copy of the project (copyProject); returns what undoes it, so one copy
 * serves every edit in turn.
 */
export function makeEdit(root: string, edit: BrokenEdit): () => void {
  const originals = new Map<string, string>();
  const undo = () => {
    for (const [path, text] of originals) writeFileSync(path, text);
  };
  for (const change of 'changes' in edit ? edit.changes : [edit]) {
    const path = join(root, change.file);
    const text = readFileSync(path, 'utf8');
    if (!originals.has(path)) originals.set(path, text);
    const occurrences = text.split(change.replace).length - 1;
    if (occurrences === 0 || (occurrences > 1 && !change.all)) {
      undo();
      throw new Error(`${edit.name}: "replace" occurs ${occurrences} times in ${change.file}; it must occur once (or set "all")`);
    }
    writeFileSync(path, text.split(change.replace).join(change.with));
  }
  return undo;
}
