/**
 * The services the server and browser tests share, started once per run and stopped after it;
 * neither is waited for here, so the unit tests run while they start:
 * - the Firebase Auth emulator (the tests verify real ID tokens), the run's own on free ports, so
 *   that another run or `npm start` beside it shares no accounts with it and can't stop it under
 *   it; it takes about 15 s, and tests/support/server.ts waits for it before a server starts;
 *   each test file finds it by FIREBASE_AUTH_EMULATOR_HOST (tests/support/runServices.ts);
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
    /** The run's Auth emulator, host:port. */
    authEmulatorHost: string;
  }
}

interface Services {
  emulator: LaunchedEmulator;
  postgres?: TestPostgres;
}

const shared = globalThis as { onrampTestServices?: Promise<Services> };

async function launchServices(): Promise<Services> {
  const [emulator, postgres] = await Promise.all([launchAuthEmulator({ quiet: true, own: true }), postgresBinDir ? launchPostgres() : undefined]);
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
  project.provide('authEmulatorHost', emulator.host);
  return async () => {
    if (!first) return;
    await emulator.stop();
    postgres?.remove();
  };
}
