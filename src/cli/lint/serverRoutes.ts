/**
 * Whether the server serves each call of the flow: the real Fastify app is built from the
 * linted flow (without a database: nothing is asked of it) and asked for each call's method and
 * path. The server registers its routes at the paths the flow names, by call name, so this
 * finds a call the server has no route for, a method it does not answer, and a call it needs
 * that the flow no longer has. The app reads the step schemas of the project itself.
 */
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../server/db/db.js';
import type { Flow } from '../../shared/flow.js';
import { pointer, type Problems } from './problems.js';
import { FLOW_FILE } from './flowChecks.js';

const noDatabase = async (): Promise<never> => {
  throw new Error('The lint opens no database.');
};
const NO_DATABASE: Db = {
  query: noDatabase,
  prepared: noDatabase,
  transaction: noDatabase,
  exec: noDatabase,
  withLock: noDatabase,
  close: async () => undefined,
};

/** A local configuration of its own: no data key or admin token is generated in the project. */
const lintConfig = (readConfig: typeof import('../../server/config.js').readConfig) =>
  readConfig({
    DATA_DIR: join(tmpdir(), 'onramp-lint'),
    DATA_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'silent',
  });

let serverCode: Promise<[typeof import('../../server/app.js'), typeof import('../../server/config.js')]> | undefined;

/**
 * The server's code, loaded once: by `npm run lint:schemas` before its checks, elsewhere by
 * checkServedCalls. Its failure (a data file it reads is broken) is only looked at there.
 */
export function loadServerCode(): typeof serverCode & {} {
  serverCode ??= Promise.all([import('../../server/app.js'), import('../../server/config.js')]);
  // Looked at by checkServedCalls, which reports the failure; not an unhandled rejection meanwhile.
  serverCode.catch(() => undefined);
  return serverCode;
}

export async function checkServedCalls(flow: Flow, problems: Problems): Promise<void> {
  let app: FastifyInstance;
  try {
    // The server's code reads the content's data files as it loads: used here, once they have
    // passed their own checks (lintProject), so a broken one is a problem line, not a crash on import.
    const [{ buildApp }, { readConfig }] = await loadServerCode();
    app = await buildApp(lintConfig(readConfig), { db: NO_DATABASE, flow });
  } catch (error) {
    const message = (error as Error).message;
    const needed = /has no call "(\w+)"/.exec(message)?.[1];
    if (needed) {
      problems.add(
        FLOW_FILE,
        pointer('calls'),
        `the server answers a call named "${needed}", and the flow has none`,
        `name the call "${needed}" again (or ask a developer to rename it in src/server/routes too)`,
      );
    } else {
      problems.add(FLOW_FILE, pointer('calls'), `the server does not start with this flow: ${message}`, 'undo the last change to "calls", or ask a developer');
    }
    return;
  }
  try {
    for (const [name, call] of Object.entries(flow.calls)) {
      const url = call.path.replace(/\{(\w+)\}/g, ':$1');
      if (app.hasRoute({ method: call.method, url })) {
        // The server registers the route at the flow's path: a part it reads must be named there.
        const named = [...call.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
        const route = app.apiRoutes.find((each) => each.method === call.method && each.url === url);
        const unnamed = (route?.params ?? []).filter((param) => !named.includes(param));
        if (unnamed.length > 0) {
          const parts = unnamed.map((param) => `{${param}}`).join(' and ');
          problems.add(
            FLOW_FILE,
            pointer('calls', name, 'path'),
            `the server reads ${parts} from this path, and the path no longer names ${unnamed.length === 1 ? 'it' : 'them'}: every request would be refused`,
            `name that part of the path ${parts}`,
          );
        }
        continue;
      }
      const other = call.method === 'GET' ? 'POST' : 'GET';
      const what = `the server does not serve ${call.method} ${call.path}`;
      if (app.hasRoute({ method: other, url }))
        problems.add(FLOW_FILE, pointer('calls', name, 'method'), what, `it answers ${other} there: write "method": "${other}"`);
      else
        problems.add(
          FLOW_FILE,
          pointer('calls', name, 'path'),
          what,
          'check the path against the server (src/server/routes), or ask a developer to add the route',
        );
    }
  } finally {
    await app.close();
  }
}
