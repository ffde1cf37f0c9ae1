/**
 * Starts the API server: `tsx src/server/main.ts`, `npm start` and `npm run dev`. Configuration
 * comes from the environment (config.ts); a configuration problem is printed as one clear line,
 * not a stack trace.
 */
import { pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from './app.js';
import { ConfigError, readConfig, type ServerConfig } from './config.js';

export interface RunningServer {
  config: ServerConfig;
  /** Builds the app again from the files on disk and serves it at the same address (`npm run dev`, after the flow's routes changed). */
  restart(): Promise<void>;
}

export async function startServer(options: AppOptions = {}, env = process.env): Promise<RunningServer> {
  let config: ServerConfig;
  try {
    config = readConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`Onramp cannot start: ${error.message}`);
    process.exit(1);
  }

  let app: FastifyInstance = await buildApp(config, options);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
  await app.listen({ host: config.host, port: config.port });
  const shownHost = config.host.includes(':') ? `[${config.host}]` : config.host;
  const port = (app.server.address() as { port?: number } | null)?.port ?? config.port;
  console.log(`Onramp is running at http://${shownHost}:${port}`);
  // Only the locally generated token is shown: one set by ADMIN_TOKEN is already known to whoever set it.
  if (config.adminTokenFile) console.log(`Admin token: ${config.adminToken} (open http://${shownHost}:${port}/admin)`);

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
