/**
 * The services the server and browser tests share, started once per run and stopped after it;
 * neither is waited for here, so the unit tests run while they start:
 * - the Firebase Auth emulator (the tests verify real ID tokens), or one already listening on
 *   127.0.0.1:9099; it takes about 15 s, and tests/support/server.ts waits for it before a server
 *   starts;
 * - a PostgreSQL cluster (Debian's, as in production), where each worker makes its database
 *   (tests/support/server.ts). Without PostgreSQL installed the workers use the embedded one.
 * Both projects name this file: the first to run starts the services, the second shares them.
 */
import type { TestProject } from 'vitest/node';
import { launchAuthEmulator, type LaunchedEmulator } from '../src/cli/authEmulator.js';
import { launchPostgres, postgresBinDir, type TestPostgres } from '../tools/postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's PostgreSQL (its `postgres` database), or null to use the embedded database. */
    postgresUrl: string | null;
  }
}

interface Services {
  emulator: LaunchedEmulator;
  postgres?: TestPostgres;
}

const shared = globalThis as { onrampTestServices?: Promise<Services> };

async function launchServices(): Promise<Services> {
  const [emulator, postgres] = await Promise.all([launchAuthEmulator({ quiet: true }), postgresBinDir ? launchPostgres() : undefined]);
  // A start that failed is reported by the tests that wait for it.
  emulator.ready.catch(() => undefined);
  postgres?.ready.catch(() => undefined);
  return { emulator, postgres };
}

export default async function startServices(project: TestProject): Promise<() => Promise<void>> {
  const first = shared.onrampTestServices === undefined;
  shared.onrampTestServices ??= launchServices();
  const { emulator, postgres } = await shared.onrampTestServices;
  project.provide('postgresUrl', postgres?.url ?? null);
  return async () => {
    if (!first) return;
    await emulator.stop();
    postgres?.remove();
  };
}
