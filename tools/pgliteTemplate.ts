/**
 * A new data folder's embedded database, copied from one made and migrated before: making one
 * (PGlite's initdb, then the migrations) costs about 9 CPU-seconds, copying one about half a second.
 * For the tests and tools that start servers on new data folders (serverProcess.ts, devProcess.ts,
 * tests/support/server.ts); what they test of the database runs all the same, on a copy of what
 * the server would have made. The template is named by what makes it (the migrations, the code
 * that runs them and PGlite's version): an edited migration makes a new one.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/node/projectFiles.js';
import { openDb } from '../src/server/db/db.js';

const DB_SOURCES = join(PROJECT_ROOT, 'src', 'server', 'db');

function templateName(): string {
  const hash = createHash('sha256');
  hash.update(readFileSync(join(PROJECT_ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json')));
  hash.update(readFileSync(join(DB_SOURCES, 'db.ts')));
  for (const name of readdirSync(join(DB_SOURCES, 'migrations')).sort()) hash.update(name).update(readFileSync(join(DB_SOURCES, 'migrations', name)));
  return `onramp-pglite-${hash.digest('hex').slice(0, 16)}`;
}

let template: Promise<string> | undefined;

/** The migrated template, made once per content on this machine (processes that make it at once both do; one keeps it). */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = join(tmpdir(), templateName());
    if (existsSync(dir)) return dir;
    const making = await mkdtemp(`${dir}-making-`);
    try {
      await (await openDb({ kind: 'pglite', dir: making })).close();
      await rename(making, dir);
    } catch (error) {
      await rm(making, { recursive: true, force: true });
      // Another process renamed its own first: that one is as good.
      if (!existsSync(dir)) throw error;
    }
    return dir;
  })().catch((error: unknown) => {
    template = undefined;
    throw error;
  });
  return template;
}

/** Puts a migrated database at `dir` (a PGlite folder, DATA_DIR/pglite) unless one is there. */
export async function seedPglite(dir: string): Promise<void> {
  if (existsSync(dir)) return;
  await cp(await migratedTemplate(), dir, { recursive: true });
}
