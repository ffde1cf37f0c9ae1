/**
 * Starts the Firebase Auth emulator for the server and browser tests (they verify real ID tokens),
 * or reuses one already listening on 127.0.0.1:9099, and stops it (its whole process group)
 * afterwards if this run started it. It is not waited for here: it takes about 15 s to start,
 * during which the other tests run; tests/support/server.ts waits for it before a server starts.
 * Both projects name this file: the first to run starts the emulator, the second shares it.
 */
import { launchAuthEmulator, type LaunchedEmulator } from '../src/cli/authEmulator.js';

const shared = globalThis as { onrampAuthEmulator?: Promise<LaunchedEmulator> };

export default async function startEmulator(): Promise<() => Promise<void>> {
  const first = shared.onrampAuthEmulator === undefined;
  shared.onrampAuthEmulator ??= launchAuthEmulator({ quiet: true });
  const emulator = await shared.onrampAuthEmulator;
  // A start that failed is reported by the first project's tests, which wait for it.
  emulator.ready.catch(() => undefined);
  return async () => {
    if (first) await emulator.stop();
  };
}
