/**
 * Starts the API server: `npm start` and `npm run dev` (through tsx), `npm run start:prod` (the
 * build, with plain node). Configuration comes from the environment (config.ts); a problem that
 * stops the start (the configuration, an unreachable database, a broken schema file, a port in
 * use) is printed as one clear line, not a stack trace, and the process exits with 1.
 */
import { pathToFileURL } from 'node:url';
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { ProjectFileError } from '../node/projectFiles.js';
import { buildApp, type AppOptions } from './app.js';
import { ConfigError, prepareLocalSecrets, readConfig, shownDatabaseUrl, type ServerConfig } from './config.js';
import { DatabaseUnavailable } from './db/db.js';
import { loggableError } from './errors.js';
import { stopServing } from './shutdown.js';
import { ensureLocalOwner } from './lib/staffMembers.js';
import { flushTraces } from './lib/traces.js';

/** What closing the database and the other services may take once the requests are done. */
const CLOSE_MS = 5_000;

/** Why the server could not start, in one line for whoever started it. */
function startFailure(error: unknown, config: ServerConfig | null): string {
  if (error instanceof ConfigError || error instanceof ProjectFileError) return error.message;
  if (error instanceof DatabaseUnavailable && config) return `the database at ${shownDatabaseUrl(config.database)} cannot be reached (${error.reason}).`;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EADDRINUSE' && config) return `${config.host}:${config.port} is already in use; set PORT to another port.`;
  if (code === 'EACCES' && config) return `not allowed to listen on ${config.host}:${config.port}; set PORT to a port above 1023.`;
  return error instanceof Error ? error.message : String(error);
}

function exitWith(error: unknown, config: ServerConfig | null): never {
  console.error(`Onramp cannot start: ${startFailure(error, config)}`);
  process.exit(1);
}

export interface RunningServer {
  config: ServerConfig;
  /** Builds the app again from the files on disk and serves it at the same address (`npm run dev`, after the flow's routes changed). */
  restart(): Promise<void>;
}

export async function startServer(options: AppOptions = {}, env = process.env): Promise<RunningServer> {
  let config: ServerConfig;
  try {
    prepareLocalSecrets(env);
    config = readConfig(env);
  } catch (error) {
    exitWith(error, null);
  }

  let app: FastifyInstance;
  try {
    app = await buildApp(config, options);
  } catch (error) {
    exitWith(error, config);
  }
  // SIGTERM (what orchestrators and balancers' deploys send) stops in the order balancers expect
  // (shutdown.ts): not ready, still serving for the grace period, then requests in flight finish.
  // SIGINT (Ctrl-C at a terminal) and a fault nothing caught skip the grace. Past all of it, or on
  // a second signal, the process exits at once.
  const { shutdown } = config;
  closeWithGrace({ delay: shutdown.graceMs + shutdown.drainMs + CLOSE_MS }, async ({ err, signal }) => {
    if (err) app.log.error({ error: loggableError(err) }, 'Stopping after a fault nothing caught');
    await stopServing(app, { ...shutdown, graceMs: signal === 'SIGTERM' ? shutdown.graceMs : 0 });
    // The last requests' spans leave before the process does.
    await flushTraces();
  });
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    // Why it could not listen is what the operator is told; a close that fails too changes nothing.
    await app.close().catch(() => undefined);
    exitWith(error, config);
  }
  const shownHost = config.host.includes(':') ? `[${config.host}]` : config.host;
  const port = (app.server.address() as { port?: number } | null)?.port ?? config.port;
  console.log(`Onramp is running at http://${shownHost}:${port}`);
  if (config.localOwner) {
    const { email, password } = config.localOwner;
    try {
      if (await ensureLocalOwner(app, config.localOwner)) {
        console.log(`Staff: sign in at http://${shownHost}:${port}/admin as ${email}, password ${password} (a local owner with every role).`);
      }
    } catch (error) {
      console.log(`Staff: the local owner ${email} could not be made (${(error as Error).message}); see docs/operations.md, "Staff".`);
    }
  }

  return {
    config,
    async restart() {
      await app.close();
      app = await buildApp(config, options);
      await app.listen({ host: config.host, port });
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await startServer();
