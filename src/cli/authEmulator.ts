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

/**
 * Nothing listening is refused at once; an emulator that is there but slow (a busy machine) is
 * given seconds to answer, or a second one would be started beside it.
 */
const ANSWER_TIMEOUT_MS = 5_000;

async function answers(): Promise<boolean> {
  try {
    const response = await fetch(`http://${LOCAL_AUTH_EMULATOR_HOST}/`, { signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
    return response.ok;
  } catch {
    // Nothing answers there (refused, timed out): no emulator running.
    return false;
  }
}

export interface RunningEmulator {
  /** True when this call started it (and so stop() ends it). */
  started: boolean;
  stop(): Promise<void>;
}

/** Waits until the emulator answers; false if it did not within START_TIMEOUT_MS (or `stillStarting` says it gave up). */
export async function authEmulatorAnswers(stillStarting: () => boolean = () => true): Promise<boolean> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await answers())) {
    if (!stillStarting() || Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return true;
}

export interface LaunchedEmulator extends RunningEmulator {
  /** Settles once the emulator answers; rejects if it exits or does not answer in time. */
  ready: Promise<void>;
}

/**
 * Starts the emulator unless one answers, without waiting for it: the test run goes on with what
 * needs no emulator while it starts (about 15 s), and what needs it waits (authEmulatorAnswers).
 */
export async function launchAuthEmulator({ quiet = false } = {}): Promise<LaunchedEmulator> {
  // One already running was started by someone else, and is theirs to stop.
  if (await answers()) return { started: false, stop: async () => undefined, ready: Promise.resolve() };
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
    } catch (error) {
      // ESRCH: the group ended already, between its exit and our notice of it.
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return;
      throw error;
    }
    await new Promise((resolve) => child.once('exit', resolve));
  };
  const ready = authEmulatorAnswers(() => !exited).then(async (answered) => {
    if (answered) return;
    if (exited) throw new Error('The Firebase Auth emulator exited while starting; run `npx firebase emulators:start --only auth` to see why.');
    await stop();
    throw new Error(`The Firebase Auth emulator did not answer on ${LOCAL_AUTH_EMULATOR_HOST} within ${START_TIMEOUT_MS / 1000} s.`);
  });
  return { started: true, stop, ready };
}

export async function startAuthEmulator({ quiet = false } = {}): Promise<RunningEmulator> {
  const emulator = await launchAuthEmulator({ quiet });
  await emulator.ready;
  return emulator;
}
