/**
 * Starts the Firebase Auth emulator (the local stand-in for Firebase Authentication) unless one
 * is already listening, and waits until it answers. Used by `npm start` and by the tests.
 * firebase.json turns the emulator UI off: it is a download, and offline it aborts the start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { LOCAL_AUTH_EMULATOR_HOST, LOCAL_FIREBASE_PROJECT_ID } from '../server/config.js';
import { PROJECT_ROOT } from '../node/projectFiles.js';
const START_TIMEOUT_MS = 90_000; // ~15 s on an idle machine; CI machines are shared

async function answers(): Promise<boolean> {
  try {
    const response = await fetch(`http://${LOCAL_AUTH_EMULATOR_HOST}/`, { signal: AbortSignal.timeout(1_000) });
    return response.ok;
  } catch {
    return false;
  }
}

export interface RunningEmulator {
  /** True when this call started it (and so stop() ends it). */
  started: boolean;
  stop(): Promise<void>;
}

export async function startAuthEmulator({ quiet = false } = {}): Promise<RunningEmulator> {
  if (await answers()) return { started: false, stop: async () => {} };
  const child: ChildProcess = spawn(
    join(PROJECT_ROOT, 'node_modules', '.bin', 'firebase'),
    ['emulators:start', '--only', 'auth', '--project', LOCAL_FIREBASE_PROJECT_ID],
    { cwd: PROJECT_ROOT, detached: true, stdio: quiet ? 'ignore' : ['ignore', 'inherit', 'inherit'] },
  );
  let exited = false;
  child.on('exit', () => (exited = true));
  const stop = async () => {
    if (exited || child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGTERM'); // the whole group, so the emulator's own children end too
    } catch {
      return;
    }
    await new Promise((resolve) => child.once('exit', resolve));
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await answers())) {
    if (exited) throw new Error('The Firebase Auth emulator exited while starting; run `npx firebase emulators:start --only auth` to see why.');
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`The Firebase Auth emulator did not answer on ${LOCAL_AUTH_EMULATOR_HOST} within ${START_TIMEOUT_MS / 1000} s.`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { started: true, stop };
}
