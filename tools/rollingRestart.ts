/**
 * A deploy as operators run one, under load: two built servers (serverProcess.ts) on one
 * throwaway PostgreSQL behind haproxy (Debian's package; health check GET /readyz every 500 ms),
 * a steady mix of status polls, sign-ups and photo uploads through the balancer, and each server
 * in turn stopped with SIGTERM, started again on its port, and waited for until haproxy sends it
 * traffic. Then what was stored is checked against what was answered. For
 * tests/server/rollingRestart.test.ts (no retries at the balancer) and `npm run bench` (beside
 * the same with retries). Needs a build, PostgreSQL, haproxy and the Auth emulator on its port.
 *
 * Both servers keep documents in one folder, as they would in one S3 bucket: a photo stored
 * through one is read through the other.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import sharp from 'sharp';
import { runningPostgres } from './postgres.js';
import { freePort } from '../src/node/freePort.js';
import { emulatorIdToken, signUpBody } from './emulatorSignUp.js';
import { startServerProcess, type ServerProcess } from './serverProcess.js';

/** Where Debian's haproxy package puts it. */
export const DEBIAN_HAPROXY = '/usr/sbin/haproxy';
/** The haproxy the harness starts: HAPROXY, or Debian's. */
export const HAPROXY = process.env.HAPROXY || DEBIAN_HAPROXY;

/** How often haproxy asks each server's /readyz. */
export const CHECK_INTERVAL_MS = 500;
/**
 * The servers' grace on SIGTERM: haproxy takes a server out after 3 failed checks (its default
 * `fall`), 1.5 s at this interval, and a check under way may add one more.
 */
export const GRACE_MS = 3 * CHECK_INTERVAL_MS + 1_500;

const POLLERS = 6;
const UPLOADERS = 2;
const DRIVERS_PER_UPLOADER = 2;
/** Photos sent ahead of the vehicle photo step, each field taking the place of the one sent before. */
const STEP = 'uploadVehicleImages';
const FIELDS = ['vehicleImageFront', 'vehicleImageRear'];
/** Load before the first restart and after the last one. */
const SETTLE_MS = 1_000;

export interface RollingRestartResult {
  /** Requests answered through the balancer, by kind. */
  requests: { polls: number; signUps: number; uploads: number };
  /** Each request that got no 2xx answer: "503 GET /driver/status/…" or "ECONNRESET POST …". */
  failed: string[];
  /** Photos answered as stored that can't be read back whole, or stored without being answered. */
  lostUploads: string[];
  /** What the storage holds that no upload names (or half-written scratch files), or names that it lacks. */
  leftovers: string[];
  /** Sign-ups answered that left no driver, or drivers no sign-up was answered for. */
  signUpMismatch: number;
  seconds: number;
  /** The servers' warnings and errors, for a failure's message. */
  serverOutput: string;
}

interface Driver {
  id: string;
  token: string;
}

/** The servers as haproxy sees them, from its admin socket: name → UP, DOWN, … */
async function haproxyStatus(socket: string): Promise<Map<string, string>> {
  const csv = await new Promise<string>((resolve, reject) => {
    let text = '';
    const connection = createConnection(socket, () => connection.end('show stat\n'));
    connection.on('data', (chunk: Buffer) => (text += chunk.toString()));
    connection.on('end', () => resolve(text));
    connection.on('error', reject);
  });
  const [header, ...rows] = csv.trim().split('\n');
  const columns = (header ?? '').replace(/^# /, '').split(',');
  const [name, status] = [columns.indexOf('svname'), columns.indexOf('status')];
  return new Map(rows.map((row) => row.split(',')).map((cells) => [cells[name] ?? '', (cells[status] ?? '').split(' ')[0] ?? '']));
}

function haproxyConfig(port: number, servers: { name: string; port: number }[], socket: string, retries: boolean): string {
  return `global
  stats socket ${socket} mode 600 level admin

defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  timeout check 1s
  ${retries ? 'retries 3\n  option redispatch' : 'retries 0'}

frontend onramp
  bind 127.0.0.1:${port}
  default_backend servers

backend servers
  balance roundrobin
  option httpchk
  http-check send meth GET uri /readyz
  http-check expect status 200
  default-server check inter ${CHECK_INTERVAL_MS}ms
${servers.map((server) => `  server ${server.name} 127.0.0.1:${server.port}`).join('\n')}
`;
}

export interface Haproxy {
  /** http://127.0.0.1:<port>, the balancer's address. */
  url: string;
  /** Waits until haproxy sends the server traffic again (its checks passed), 30 s at most. */
  sentTraffic(name: string): Promise<void>;
  stop(): void;
}

/**
 * haproxy on `port` before `servers`, its admin socket and configuration in `folder`; what it says
 * goes to `log`. Resolves once it sends every server traffic.
 */
export async function startHaproxy(
  folder: string,
  port: number,
  servers: { name: string; port: number }[],
  retries: boolean,
  log: (line: string) => void,
): Promise<Haproxy> {
  if (!existsSync(HAPROXY)) throw new Error(`haproxy is not installed at ${HAPROXY} (apt-get install haproxy).`);
  const socket = join(folder, 'haproxy.sock');
  const configFile = join(folder, 'haproxy.cfg');
  await writeFile(configFile, haproxyConfig(port, servers, socket, retries));
  let said = '';
  const child = spawn(HAPROXY, ['-db', '-f', configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.on('data', (chunk: Buffer) => {
    said += chunk.toString();
    log(`haproxy: ${chunk.toString()}`);
  });
  const sentTraffic = async (name: string) => {
    const deadline = Date.now() + 30_000;
    // Its stats socket not open yet (haproxy starting) is as no server up: asked again until the deadline.
    while ((await haproxyStatus(socket).catch(() => new Map<string, string>())).get(name) !== 'UP') {
      if (Date.now() > deadline) throw new Error(`haproxy did not take server ${name} in within 30 s:\n${said}`);
      await sleep(100);
    }
  };
  const balancer = { url: `http://127.0.0.1:${port}`, sentTraffic, stop: () => void child.kill('SIGTERM') };
  try {
    for (const server of servers) await sentTraffic(server.name);
  } catch (error) {
    balancer.stop();
    throw error;
  }
  return balancer;
}

/** A valid US number (area code and exchange 2–9). */
export const randomPhone = () => `+1${randomInt(2, 10)}${randomInt(10, 100)}${randomInt(2, 10)}${String(randomInt(0, 1_000_000)).padStart(6, '0')}`;

/**
 * `retries`: haproxy's `retries 3` and `option redispatch`; without, `retries 0`. `graceMs`: the
 * servers' SHUTDOWN_GRACE_MS (0 stops as soon as SIGTERM comes, for the bench's anchor).
 */
export async function rollingRestart({ retries, graceMs = GRACE_MS }: { retries: boolean; graceMs?: number }): Promise<RollingRestartResult> {
  const postgres = await runningPostgres();
  const folder = await mkdtemp(join(tmpdir(), 'onramp-rolling-'));
  const dataDir = join(folder, 'data');
  const [balancerPort, ...serverPorts] = await Promise.all([freePort(), freePort(), freePort()]);
  const env = {
    DATABASE_URL: postgres.url,
    DATA_DIR: dataDir,
    DATA_KEY: randomBytes(32).toString('base64'),
    STATIC_DIR: join(folder, 'no-web-app'),
    AUTH_RATE_LIMIT_MAX: '1000000',
    SHUTDOWN_GRACE_MS: String(graceMs),
  };
  const names = ['a', 'b'];
  const start = (index: number) => startServerProcess({ ...env, PORT: String(serverPorts[index]) }, 60_000);
  const servers: ServerProcess[] = [];
  let output = '';
  let haproxy: Haproxy | undefined;
  const db = new pg.Client(postgres.url);
  try {
    // At once: the migrations take turns.
    const first = await Promise.allSettled(names.map((_, index) => start(index)));
    for (const each of first) if (each.status === 'fulfilled') servers.push(each.value);
    for (const each of first) if (each.status === 'rejected') throw each.reason;
    const ports = names.map((name, index) => ({ name, port: serverPorts[index]! }));
    haproxy = await startHaproxy(folder, balancerPort!, ports, retries, (line) => (output += line));
    const balancer = haproxy.url;

    // The drivers who poll and send photos, signed up before the load (their codes are in the local outbox of the server that sent them).
    const direct = servers[0]!.url;
    const post = (url: string, body: unknown, token?: string) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
    const drivers: Driver[] = [];
    for (let i = 0; i < UPLOADERS * DRIVERS_PER_UPLOADER; i++) {
      const email = `rolling-${randomBytes(6).toString('hex')}@example.com`;
      const signed = (await (await post(`${direct}/auth/driverEmailSignUp`, signUpBody(email, randomPhone(), await emulatorIdToken(email)))).json()) as {
        driverId: string;
        token: string;
      };
      const outbox = (await (await fetch(`${direct}/dev/outbox`)).json()) as { to: string; code?: string }[];
      const code = outbox.find((entry) => entry.to === email && entry.code)?.code;
      const verified = (await (await post(`${direct}/auth/validateOTP`, { code, email }, signed.token)).json()) as { token: string };
      drivers.push({ id: signed.driverId, token: verified.token });
    }
    const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366ff' } })
      .jpeg()
      .toBuffer();

    const counts = { polls: 0, signUps: 0, uploads: 0 };
    const failed: string[] = [];
    /** The id each driver's field was last answered with: what must be stored. */
    const lastUpload = new Map<string, { driver: Driver; field: string; id: string }>();
    let signUpsAnswered = 0;
    let loading = true;
    const send = async (kind: keyof typeof counts, method: string, path: string, init: RequestInit = {}) => {
      counts[kind] += 1;
      const label = `${method} ${path.replace(/\/[0-9a-f-]{36}/, '/…')}`;
      try {
        const response = await fetch(`${balancer}${path}`, { ...init, method, signal: AbortSignal.timeout(30_000) });
        const body = await response.text();
        if (response.ok) return body;
        failed.push(`${response.status} ${label}`);
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        failed.push(`${cause?.code ?? cause?.message ?? String(error)} ${label}`);
      }
      return null;
    };
    const poller = async (driver: Driver) => {
      while (loading) await send('polls', 'GET', `/driver/status/${driver.id}`, { headers: { authorization: `Bearer ${driver.token}` } });
    };
    const signUps = async () => {
      while (loading) {
        const email = `rolling-${randomBytes(6).toString('hex')}@example.com`;
        const body = JSON.stringify(signUpBody(email, randomPhone(), await emulatorIdToken(email)));
        if ((await send('signUps', 'POST', '/auth/driverEmailSignUp', { headers: { 'content-type': 'application/json' }, body })) !== null)
          signUpsAnswered += 1;
      }
    };
    const uploader = async (own: Driver[]) => {
      for (let turn = 0; loading; turn++) {
        const driver = own[turn % own.length]!;
        const field = FIELDS[Math.floor(turn / own.length) % FIELDS.length]!;
        const form = new FormData();
        form.append(field, new Blob([new Uint8Array(photo)], { type: 'image/jpeg' }), `${field}.jpg`);
        const answer = await send('uploads', 'POST', `/driver/uploads/${STEP}/${field}`, {
          headers: { authorization: `Bearer ${driver.token}` },
          body: form,
        });
        if (answer !== null) lastUpload.set(`${driver.id}/${field}`, { driver, field, id: (JSON.parse(answer) as { id: string }).id });
      }
    };
    const started = Date.now();
    const load = Promise.all([
      ...Array.from({ length: POLLERS }, (_, i) => poller(drivers[i % drivers.length]!)),
      signUps(),
      ...Array.from({ length: UPLOADERS }, (_, i) => uploader(drivers.slice(i * DRIVERS_PER_UPLOADER, (i + 1) * DRIVERS_PER_UPLOADER))),
    ]);
    try {
      await sleep(SETTLE_MS);
      for (const [index, name] of names.entries()) {
        const stopped = servers[index]!;
        const code = await stopped.stop();
        output += stopped.output();
        if (code !== 0) throw new Error(`Server ${name} exited with ${code} on SIGTERM:\n${stopped.output()}`);
        servers[index] = await start(index);
        await haproxy.sentTraffic(name);
      }
      await sleep(SETTLE_MS);
    } finally {
      loading = false;
      await load;
    }
    const seconds = (Date.now() - started) / 1000;

    // What was stored, against what was answered.
    await db.connect();
    const lostUploads: string[] = [];
    const { rows } = await db.query<{ id: string; driver_id: string; field: string; storage_name: string; size: number }>(
      'SELECT id, driver_id, field, storage_name, size FROM uploads',
    );
    const answeredIds = new Set([...lastUpload.values()].map((each) => each.id));
    for (const row of rows) if (!answeredIds.has(row.id)) lostUploads.push(`${row.field} ${row.id}: stored, but not the one last answered`);
    for (const { driver, field, id } of lastUpload.values()) {
      const row = rows.find((each) => each.id === id);
      if (!row) {
        lostUploads.push(`${field} ${id}: answered, but not stored`);
        continue;
      }
      const read = await fetch(`${balancer}/driver/uploads/${id}`, { headers: { authorization: `Bearer ${driver.token}` } });
      const bytes = Buffer.from(await read.arrayBuffer());
      if (read.status !== 200 || bytes.length !== Number(row.size))
        lostUploads.push(`${field} ${id}: reads back as ${read.status}, ${bytes.length} of ${row.size} bytes`);
    }
    const stored = new Set(await readdir(join(dataDir, 'uploads')));
    const named = new Set(rows.map((row) => row.storage_name));
    const leftovers = [
      ...[...stored].filter((name) => !named.has(name)).map((name) => `uploads/${name}: no upload names it`),
      ...[...named].filter((name) => !stored.has(name)).map((name) => `uploads/${name}: named, but not there`),
      ...(await readdir(join(dataDir, 'scratch'))).map((name) => `scratch/${name}: left on the way`),
    ];
    const signedUp = Number((await db.query<{ count: string }>("SELECT count(*) FROM drivers WHERE email LIKE 'rolling-%'")).rows[0]!.count);
    return {
      requests: counts,
      failed,
      lostUploads,
      leftovers,
      signUpMismatch: signedUp - drivers.length - signUpsAnswered,
      seconds,
      serverOutput: output + servers.map((server) => server.output()).join(''),
    };
  } finally {
    haproxy?.stop();
    await Promise.allSettled(servers.map((server) => server.stop()));
    // Tearing down: the run's own outcome is the one to report, not a pool that fails to end.
    await db.end().catch(() => undefined);
    postgres.remove();
    await rm(folder, { recursive: true, force: true });
  }
}
