/**
 * What the form studio (/studio, src/client/studio/) needs of the server: the testers' fixtures
 * under tests/fixtures/, in their format (src/shared/fixtureFiles.ts). Under the admin prefix: any staff member may read it (no driver data in it), and anyone under `npm run dev`.
 */
import { relative } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { parseFixture, type ListedFixture } from '../../shared/fixtureFiles.js';
import { isMissingFile } from '../../node/fileErrors.js';
import { listFixtureFiles } from '../../node/projectFiles.js';
import { CONTENT_ROOT, loadFlow, readJsonFile } from '../../node/projectFiles.js';
import { ADMIN_PREFIX, type RouteTable } from '../lib/routeTable.js';

/** The studio's data (lib/routeTable.ts). */
export const STUDIO_ROUTES = {
  fixtures: { method: 'GET', url: `${ADMIN_PREFIX}/fixtures` },
} as const satisfies RouteTable;

/** Every fixture that reads well; a broken one is left out here and reported by `npm run validate`. */
export function readFixtures(): ListedFixture[] {
  let files: string[];
  try {
    files = listFixtureFiles();
  } catch (error) {
    // A deployment without the tests folder has no fixtures to show.
    if (isMissingFile(error)) return [];
    throw error;
  }
  const flow = loadFlow();
  return files.flatMap((path) => {
    try {
      return [{ file: relative(CONTENT_ROOT, path), ...parseFixture(readJsonFile(path), flow) }];
    } catch {
      // Left out, as this function says: `npm run validate` names the broken fixture and why.
      return [];
    }
  });
}

export async function studioRoutes(app: FastifyInstance, options: { open: boolean }) {
  if (!options.open) app.addHook('onRequest', app.requireStaff);
  /** Read at each request: a tester adds fixtures while the server runs. */
  app.get(STUDIO_ROUTES.fixtures.url, { schema: { response: { 200: { $ref: 'api#/$defs/fixtures' } } } }, async () => ({ fixtures: readFixtures() }));
}
