/**
 * Starts the Firebase Auth emulator (the local stand-in for Firebase Authentication) and waits
 * until it answers. `npm start` and the bench use the local one, on 127.0.0.1:9099, started unless
 * it is already listening (or the one FIREBASE_AUTH_EMULATOR_HOST names); a test run starts one of
 * its own on free ports, so that two runs, or a run and `npm start`, never share accounts, nor
 * lose the emulator when the one that started it ends.
 * firebase.json turns the emulator UI off: it is a download, and offline it aborts the start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_AUTH_EMULATOR_HOST, LOCAL_FIREBASE_PROJECT_ID } from '../server/config.js';
import { PROJECT_ROOT } from '../node/projectFiles.js';
import { freePort } from '../node/freePort.js';
const START_TIMEOUT_MS = 90_000; // ~15 s on an idle machine; CI machines are shared

/** Where this process finds the emulator: FIREBASE_AUTH_EMULATOR_HOST, or the local default. */
export const authEmulatorHost = (): string => process.env.FIREBASE_AUTH_EMULATOR_HOST || LOCAL_AUTH_EMULATOR_HOST;

/**
 * Nothing listening is refused at once; an emulator that is there but slow (a busy machine) is
 * given seconds to answer, or a second one would be started beside it.
 */
const ANSWER_TIMEOUT_MS = 5_000;

async function answers(host: string): Promise<boolean> {
  try {
    const response = await fetch(`http://${host}/`, { signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
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

/** Waits until the emulator at `host` answers; false if it did not within START_TIMEOUT_MS (or `stillStarting` says it gave up). */
export async function authEmulatorAnswers(host = authEmulatorHost(), stillStarting: () => boolean = () => true): Promise<boolean> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await answers(host))) {
    if (!stillStarting() || Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return true;
}

export interface LaunchedEmulator extends RunningEmulator {
  /** host:port it listens on. */
  host: string;
  /** Settles once the emulator answers; rejects if it exits or does not answer in time. */
  ready: Promise<void>;
}

/** The project's firebase.json with the emulators' ports (the Auth emulator's, the hub's, the logs') free ones, in a folder of its own. */
async function configOnFreePorts(): Promise<{ file: string; host: string; remove(): void }> {
  const config = JSON.parse(readFileSync(join(PROJECT_ROOT, 'firebase.json'), 'utf8')) as { emulators: Record<string, { host?: string; port?: number }> };
  for (const part of ['auth', 'hub', 'logging']) config.emulators[part] = { ...config.emulators[part], port: await freePort() };
  const dir = mkdtempSync(join(tmpdir(), 'onramp-auth-emulator-'));
  const file = join(dir, 'firebase.json');
  writeFileSync(file, JSON.stringify(config));
  const { host = '127.0.0.1', port } = config.emulators.auth!;
  return { file, host: `${host}:${port}`, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Starts the emulator without waiting for it: the test run goes on with what needs no emulator
 * while it starts (about 15 s), and what needs it waits (authEmulatorAnswers). `own`: one of the
 * caller's own on free ports, whatever else runs. Otherwise the one FIREBASE_AUTH_EMULATOR_HOST
 * names (a test run's, for the `npm start` it tests), waited for; or the local one
 * (firebase.json's port), unless it answers already.
 */
export async function launchAuthEmulator({ quiet = false, own = false } = {}): Promise<LaunchedEmulator> {
  // One already running, or named, is someone else's, theirs to start and stop.
  const named = authEmulatorHost();
  const others = (ready: Promise<void>) => ({ host: named, started: false, stop: async () => undefined, ready });
  if (!own && named !== LOCAL_AUTH_EMULATOR_HOST)
    return others(
      authEmulatorAnswers(named).then((answered) => {
        if (!answered)
          throw new Error(`The Firebase Auth emulator did not answer on ${named} (FIREBASE_AUTH_EMULATOR_HOST) within ${START_TIMEOUT_MS / 1000} s.`);
      }),
    );
  if (!own && (await answers(named))) return others(Promise.resolve());
  const config = own ? await configOnFreePorts() : null;
  const host = config?.host ?? LOCAL_AUTH_EMULATOR_HOST;
  const child: ChildProcess = spawn(
    join(PROJECT_ROOT, 'node_modules', '.bin', 'firebase'),
    ['emulators:start', '--only', 'auth', '--project', LOCAL_FIREBASE_PROJECT_ID, ...(config ? ['--config', config.file] : [])],
    { cwd: PROJECT_ROOT, detached: true, stdio: quiet ? 'ignore' : ['ignore', 'inherit', 'inherit'] },
  );
  let exited = false;
  child.on('exit', () => {
    exited = true;
    config?.remove();
  });
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
  const ready = authEmulatorAnswers(host, () => !exited).then(async (answered) => {
    if (answered) return;
    if (exited) throw new Error('The Firebase Auth emulator exited while starting; run `npx firebase emulators:start --only auth` to see why.');
    await stop();
    throw new Error(`The Firebase Auth emulator did not answer on ${host} within ${START_TIMEOUT_MS / 1000} s.`);
  });
  return { host, started: true, stop, ready };
}

export async function startAuthEmulator({ quiet = false } = {}): Promise<RunningEmulator> {
  const emulator = await launchAuthEmulator({ quiet });
  await emulator.ready;
  return emulator;
}
