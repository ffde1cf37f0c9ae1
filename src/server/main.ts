/**
 * Starts the API server: `tsx src/server/main.ts`. Configuration comes from the environment
 * (config.ts); a configuration problem is printed as one clear line, not a stack trace.
 */
import { buildApp } from './app.js';
import { ConfigError, readConfig, type ServerConfig } from './config.js';

let config: ServerConfig;
try {
  config = readConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`Onramp cannot start: ${error.message}`);
  process.exit(1);
}

const app = await buildApp(config);
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
