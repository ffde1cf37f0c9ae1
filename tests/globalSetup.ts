/**
 * Starts the Firebase Auth emulator once for the whole test run (about 15 s), or reuses one
 * already listening on 127.0.0.1:9099, and stops it (its whole process group) afterwards if
 * this run started it. The server tests sign drivers up with real emulator ID tokens.
 */
import { startAuthEmulator } from '../src/cli/authEmulator.js';

export default async function startEmulator(): Promise<() => Promise<void>> {
  const emulator = await startAuthEmulator({ quiet: true });
  return () => emulator.stop();
}
