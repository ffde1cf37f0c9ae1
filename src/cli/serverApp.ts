// The server's own app, opened from a terminal on the data the server's settings name (DATABASE_URL
// or DATA_DIR, the data keys, the upload store), for the commands that work on that data directly.
// The embedded database can be open in one process only: stop `npm start` first, or use DATABASE_URL.
import { buildApp } from '../server/app.js';
import { prepareLocalSecrets, readConfig } from '../server/config.js';
import type { AdminIo } from './adminApi.js';

export type ServerApp = Awaited<ReturnType<typeof buildApp>>;

/** Runs `work` on the app, closed after; an error is printed and answered as exit code 1. */
export async function withServerApp(
  io: Pick<AdminIo, 'err'>,
  env: Record<string, string | undefined>,
  work: (app: ServerApp) => Promise<number>,
): Promise<number> {
  let app: ServerApp | undefined;
  try {
    // The server's data folder, as the server starts on it (its data key, made on a first start).
    prepareLocalSecrets(env);
    app = await buildApp(readConfig(env), { terminal: true });
    await app.ready();
    return await work(app);
  } catch (error) {
    io.err(`Error: ${(error as Error).message}`);
    return 1;
  } finally {
    await app?.close();
  }
}
