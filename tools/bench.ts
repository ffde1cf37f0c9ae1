// `npm run bench`: the figures of docs/performance.md, "The bench", printed, never asserted
// (machines are shared and noisy). Needs a build (`npm run build`) and Debian's Chromium for the
// browser figures.
import { execFile, execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { parseArgs, promisify } from 'node:util';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RJSFSchema } from '@rjsf/utils';
import { createPrecompiledValidator } from '@rjsf/validator-ajv8';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import pLimit from 'p-limit';
import { Webhook } from 'standardwebhooks';
import pg from 'pg';
import sharp from 'sharp';
import { buildApp } from '../src/server/app.js';
import { prepareLocalSecrets, readConfig } from '../src/server/config.js';
import { queueSql } from '../src/server/routes/admin.js';
import { addStaff } from '../src/server/lib/staffMembers.js';
import { loadSchema, PROJECT_ROOT, SSR_BUNDLE } from '../src/node/projectFiles.js';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { postgresBinDir, runningPostgres } from './postgres.js';
import { RARE_LAST_NAME, readAtScale, seedScale } from './scale.js';
import { HOLDER_QUERY, HOLDER_STATEMENT, holderQueryParams } from '../src/server/plugins/sessions.js';
import { POOL_SIZE } from '../src/server/db/db.js';
import { PARALLEL_POSTS } from '../src/server/plugins/webhooks.js';
import { pageScripts, type Metafile } from '../src/node/builds/pageScripts.js';
import { startAuthEmulator } from '../src/cli/authEmulator.js';
import { emulatorIdToken, signUpBody } from './emulatorSignUp.js';
import { launchChromium } from './chromium.js';
import { msUntilReloadedPageShows, startDevServer } from './devProcess.js';
import { installProduction } from './productionInstall.js';
import { CHECK_INTERVAL_MS, HAPROXY, rollingRestart, type RollingRestartResult } from './rollingRestart.js';
import { startServerProcess } from './serverProcess.js';
import { soak, type SoakResult } from './soak.js';
import { gzippedSize, SLOW_PHONE_PAGES, slowPhoneVisits, startAnchor } from './slowPhone.js';

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const inSeconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

/**
 * JavaScript a first visit to each measured route downloads: the shell (the entry and its static
 * imports) and the route's own scripts (the step page and its form, which the server preloads).
 */
async function firstVisitBundles() {
  const metafile = JSON.parse(await readFile(join(PROJECT_ROOT, 'build', 'metafile.json'), 'utf8')) as Metafile;
  const { shell, routes } = pageScripts(metafile);
  const scriptsOf = (files: string[]) => files.filter((file) => file.endsWith('.js')).map((file) => join(PROJECT_ROOT, file));
  const firstVisits = SLOW_PHONE_PAGES.map(({ route }) => ({ route, files: [...shell, ...(routes[route]?.en ?? [])] }));
  const firebaseInFirstPage = firstVisits.some(({ files }) =>
    files.some((file) => Object.keys(metafile.outputs[file]?.inputs ?? {}).some((input) => input.includes('node_modules/@firebase/'))),
  );
  return {
    shell: await gzippedSize(scriptsOf(shell)),
    routes: await Promise.all(firstVisits.map(async ({ route, files }) => ({ route, gzip: await gzippedSize(scriptsOf(files)) }))),
    firebaseInFirstPage,
  };
}

/**
 * `npm run lint:schemas` on the shipped files, in its own process as operations staff run it:
 * the checks, and the whole command; the anchor is the same runner starting an empty script.
 */
function lintFigures() {
  const tsx = join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx');
  const timed = (args: string[]) => {
    const started = performance.now();
    const output = execFileSync(tsx, args, { cwd: PROJECT_ROOT, encoding: 'utf8' });
    return { output, ms: performance.now() - started };
  };
  const runs = Array.from({ length: 5 }, () => timed([join('src', 'cli', 'lint.ts')]));
  const checked = runs.map(({ output }) => Number(/checked in (\d+) ms/.exec(output)?.[1] ?? NaN));
  const problems = /(\d+) problems?/.exec(runs[0]?.output ?? '')?.[1] ?? '?';
  const empty = Array.from({ length: 5 }, () => timed(['-e', '']).ms);
  return { problems, checked: median(checked), command: median(runs.map(({ ms }) => ms)), anchor: median(empty), runs: runs.length };
}

/** The slow-phone visits to the app and to the anchor (the plain rjsf setup, slowPhone.ts), in one browser. */
async function slowPhoneFigures(baseUrl: string, anchorUrl: string) {
  const browser = await launchChromium();
  try {
    return await slowPhoneVisits(browser, baseUrl, anchorUrl);
  } finally {
    await browser.close();
  }
}

/**
 * The measured steps as the server sends them (gzip, as the page is sent) and the time the
 * server's drawing takes (serverRender.tsx, warm: after its first drawing of each).
 */
async function drawnSteps(baseUrl: string) {
  const { renderStep } = (await import(pathToFileURL(SSR_BUNDLE).href)) as { renderStep: (path: string, locale: string) => Promise<unknown> };
  const pages = [];
  const renders = [];
  for (const { route } of SLOW_PHONE_PAGES) {
    const response = await fetch(`${baseUrl}${route}`, { headers: { accept: 'text/html', 'accept-encoding': 'identity' } });
    const html = await response.text();
    if (!html.includes('id="server-page"')) throw new Error(`${route} was not drawn by the server`);
    pages.push({ route, gzip: gzipSync(html).length });
    await renderStep(route, 'en');
    const times = [];
    for (let run = 0; run < 20; run++) {
      const started = performance.now();
      await renderStep(route, 'en');
      times.push(performance.now() - started);
    }
    renders.push({ route, ms: median(times) });
  }
  return { pages, renders };
}

/** Median time of one validation of a half-typed sign-up form with the browser's precompiled validator. */
async function validationSpeed() {
  const form = (await import(join(PROJECT_ROOT, 'build', 'generated', 'forms', 'signup.js'))) as { schema: RJSFSchema; validateFns: never };
  const validator = createPrecompiledValidator(form.validateFns, form.schema);
  const data = { email: 'driver@exa', phoneNo: '20255', password: 'Str0ng', confirmPassword: 'S', accept: false, twilioCheck: false };
  for (let i = 0; i < 2_000; i++) validator.validateFormData(data, form.schema);
  const runs = 20_000;
  const started = performance.now();
  for (let i = 0; i < runs; i++) validator.validateFormData(data, form.schema);
  return ((performance.now() - started) / runs) * 1000;
}

/** Keystrokes on the 17-field profile step and the size of a resized 5 MB photo, in headless Chromium. */
async function browserFigures(baseUrl: string) {
  const browser = await launchChromium();
  try {
    // The page's CSP has no blob: in connect-src; the bench reads the resized photo back through its object URL.
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, bypassCSP: true });
    // Per key: until its input event was handled (what the typing waits for: the field shows the
    // key), and until the page is idle again, the form having taken the value in its transition
    // (widgets/echoFirst.tsx).
    await page.addInitScript(() => {
      const keys = { shown: [] as number[], taken: [] as number[] };
      let down = 0;
      (window as unknown as { keySamples: typeof keys }).keySamples = keys;
      addEventListener('keydown', () => (down = performance.now()), true);
      addEventListener('input', () => {
        const pressed = down;
        keys.shown.push(performance.now() - pressed);
        requestIdleCallback(() => keys.taken.push(performance.now() - pressed));
      });
    });
    await page.goto(`${baseUrl}/complete-profile`);
    await page.locator('#root_firstName').waitFor();
    const typed = async (field: string) => {
      await page.evaluate(() => {
        const keys = (window as unknown as { keySamples: { shown: number[]; taken: number[] } }).keySamples;
        keys.shown.length = 0;
        keys.taken.length = 0;
      });
      await page.locator(field).pressSequentially('Alexandra Rivers Jr', { delay: 30 });
      // Every key's idle moment has come (at 4× the page may stay busy well after the last key).
      await page.waitForFunction(() => {
        const keys = (window as unknown as { keySamples: { shown: number[]; taken: number[] } }).keySamples;
        return keys.taken.length === keys.shown.length;
      });
      return page.evaluate(() => ({ ...(window as unknown as { keySamples: { shown: number[]; taken: number[] } }).keySamples }));
    };
    const keys = await typed('#root_firstName');
    // The same on a slow phone's CPU (four times slower), in the next field.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    const slowKeys = await typed('#root_lastName');
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });

    // A noisy 4000×3000 photo saved as a high-quality JPEG: about the size of a phone camera's.
    const photo = await page.evaluate(async () => {
      const canvas = document.createElement('canvas');
      canvas.width = 4000;
      canvas.height = 3000;
      const ctx = canvas.getContext('2d');
      if (!ctx) throw new Error('no canvas');
      const image = ctx.createImageData(4000, 3000);
      for (let i = 0; i < image.data.length; i += 4) {
        const x = (i / 4) % 4000;
        image.data[i] = (x / 16 + Math.random() * 60) & 255;
        image.data[i + 1] = (i / 48000 + Math.random() * 60) & 255;
        image.data[i + 2] = 128 + Math.random() * 60;
        image.data[i + 3] = 255;
      }
      ctx.putImageData(image, 0, 0);
      const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.95));
      if (!blob) throw new Error('no blob');
      // As one base64 text: an array of 9 million numbers, as Playwright carries values, grew this
      // process to 2.6 GB, and collecting it slowed the next section (the slow phone) for us and the anchor alike.
      const dataUrl = await new Promise<string>((resolve, reject) => {
        const reader = new FileReader();
        reader.onload = () => resolve(String(reader.result));
        reader.onerror = () => reject(reader.error);
        reader.readAsDataURL(blob);
      });
      return dataUrl.slice(dataUrl.indexOf(',') + 1);
    });
    const original = Buffer.from(photo, 'base64');
    const started = Date.now();
    await page.locator('#root_profilePicture').setInputFiles({ name: 'photo.jpg', mimeType: 'image/jpeg', buffer: original });
    await page.locator('.w-photo--filled:not(.w-photo--busy) #root_profilePicture').waitFor({ state: 'attached', timeout: 60_000 });
    const resizeMs = Date.now() - started;
    const resized = await page.evaluate(async () => {
      const src = document.querySelector<HTMLImageElement>('.w-photo__preview')?.src;
      return src ? (await (await fetch(src)).blob()).size : NaN;
    });
    return {
      keyMedian: median(keys.shown),
      keyTakenMedian: median(keys.taken),
      slowKeyMedian: median(slowKeys.shown),
      slowKeyTakenMedian: median(slowKeys.taken),
      keys: keys.shown.length,
      original: original.length,
      resized,
      resizeMs,
    };
  } finally {
    await browser.close();
  }
}

/**
 * Under `npm run dev`: from saving a message in signup.schema.json until the open page, reloaded
 * by the dev server, shows it. Median of five edits.
 */
async function liveEditLatency() {
  const dev = await startDevServer();
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${dev.baseUrl}/signup`);
    const schemaFile = join(dev.root, 'schemas', 'signup.schema.json');
    // The email's required message as shipped; each edit adds a counter to it.
    const shipped = JSON.parse(await readFile(schemaFile, 'utf8')) as { errorMessage: { required: { email: string } } };
    let current = shipped.errorMessage.required.email;
    const samples: number[] = [];
    for (let edit = 1; edit <= 5; edit++) {
      await page.locator('#root_email').waitFor();
      const next = `${shipped.errorMessage.required.email} (edit ${edit})`;
      const text = (await readFile(schemaFile, 'utf8')).replace(`"${current}"`, `"${next}"`);
      samples.push(await msUntilReloadedPageShows(page, next, () => writeFile(schemaFile, text), 30_000));
      current = next;
    }
    return median(samples);
  } finally {
    await browser.close();
    await dev.close();
  }
}

interface Load {
  rps: number;
  p99: number;
  errors: number;
}

/** 50 connections for `seconds`, from autocannon in a process of its own: the load does not take the server's CPU in its process. */
async function load(url: string, headers: Record<string, string> = {}, seconds = 5): Promise<Load> {
  const args = [
    AUTOCANNON,
    '--json',
    '--connections',
    '50',
    '--duration',
    String(seconds),
    ...Object.entries(headers).flatMap(([name, value]) => ['--headers', `${name}=${value}`]),
    url,
  ];
  const { stdout } = await promisify(execFile)(process.execPath, args);
  const result = JSON.parse(stdout) as { requests: { average: number }; latency: { p99: number }; errors: number; non2xx: number; timeouts: number };
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx + result.timeouts };
}

/**
 * A route and its floors loaded in turns, five rounds after a warm-up of each (4 s a turn): the
 * median turn of each, and for each floor the median of the five ratios of the route's turn to
 * that floor's turn in the same round. A shared host's slow moments last longer than a turn, so
 * they hit both sides of a ratio.
 */
async function againstFloors<Floor extends string>(
  route: [url: string, headers: Record<string, string>],
  floors: Record<Floor, string>,
): Promise<{ route: Load; floors: Record<Floor, { load: Load; ratio: number }> }> {
  const floorUrls = Object.entries(floors) as [Floor, string][];
  await load(...route, 2);
  for (const [, url] of floorUrls) await load(url, {}, 2);
  const rounds: { route: Load; floors: Map<Floor, Load> }[] = [];
  for (let round = 0; round < 5; round++) {
    const routeTurn = await load(...route, 4);
    const floorTurns = new Map<Floor, Load>();
    for (const [name, url] of floorUrls) floorTurns.set(name, await load(url, {}, 4));
    rounds.push({ route: routeTurn, floors: floorTurns });
  }
  const middle = <T>(values: T[], by: (value: T) => number) => [...values].sort((a, b) => by(a) - by(b))[2]!;
  return {
    route: middle(
      rounds.map((each) => each.route),
      (each) => each.rps,
    ),
    floors: Object.fromEntries(
      floorUrls.map(([name]) => [
        name,
        {
          load: middle(
            rounds.map((each) => each.floors.get(name)!),
            (each) => each.rps,
          ),
          ratio: middle(
            rounds.map((each) => each.route.rps / each.floors.get(name)!.rps),
            (each) => each,
          ),
        },
      ]),
    ) as Record<Floor, { load: Load; ratio: number }>,
  };
}
const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

/**
 * GET /driver/status/{id} polled by a signed-in driver, on PostgreSQL, beside its floor: a bare
 * Fastify route running the route's one query (the session lookup, which reads the driver's
 * standing with the token) on the same database, through a pool of the same size. The route runs
 * that query as a prepared statement; a second floor does too, for the app's own share of the
 * time. Null without PostgreSQL.
 */
async function statusPoll() {
  if (!postgresBinDir) return null;
  const postgres = await runningPostgres();
  const dataDir = await mkdtemp(join(tmpdir(), 'onramp-bench-pg-'));
  const env = { DATA_DIR: dataDir, DATABASE_URL: postgres.url, LOG_LEVEL: 'warn', AUTH_RATE_LIMIT_MAX: '100000' };
  prepareLocalSecrets(env);
  const config = readConfig(env);
  const app = await buildApp(config);
  const bare = Fastify();
  const pool = new pg.Pool({ connectionString: postgres.url, max: POOL_SIZE });
  try {
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    const email = `bench-${Date.now()}@example.com`;
    const body = signUpBody(email, '+12025550143', await emulatorIdToken(email));
    const signed = (await (await app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', payload: body })).json()) as { driverId: string; token: string };
    const outbox = (await (await app.inject({ method: 'GET', url: '/dev/outbox' })).json()) as { to: string; code: string }[];
    const code = outbox.find((entry) => entry.to === email)?.code;
    const { token } = (await (
      await app.inject({ method: 'POST', url: '/auth/validateOTP', headers: { authorization: `Bearer ${signed.token}` }, payload: { code, email } })
    ).json()) as { token: string };

    bare.get('/status', async () => ({ data: (await pool.query(HOLDER_QUERY, holderQueryParams(token, new Date()))).rows[0] }));
    bare.get('/prepared', async () => ({
      data: (await pool.query({ name: HOLDER_STATEMENT, text: HOLDER_QUERY, values: holderQueryParams(token, new Date()) })).rows[0],
    }));
    const floorUrl = await bare.listen({ host: '127.0.0.1', port: 0 });
    return await againstFloors([`${baseUrl}/driver/status/${signed.driverId}`, { authorization: `Bearer ${token}` }], {
      plain: `${floorUrl}/status`,
      prepared: `${floorUrl}/prepared`,
    });
  } finally {
    await Promise.allSettled([app.close(), bare.close(), pool.end()]);
    postgres.remove();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** How many drivers the review queue figures are measured on. */
const QUEUE_DRIVERS = 100_000;
/** The one seeded driver with RARE_LAST_NAME (the 75,001st, pending): a search that must read the whole queue to find them. */
const RARE_DRIVER = 75_001;

/**
 * 100,000 drivers straight into the bench's database, one INSERT … SELECT each for the drivers and
 * their profile's names: 70% pending, 20% approved, 10% rejected, 4% not sent yet (no submission
 * time), submissions about a second and a half apart. Then ANALYZE, as autovacuum would after a
 * bulk load (PGlite has none). Returns the seconds it took.
 */
async function seedReviewQueue(app: Awaited<ReturnType<typeof buildApp>>) {
  const started = performance.now();
  await app.db.query(
    `INSERT INTO drivers (email, firebase_uid, provider, phone, status, is_session_complete, submitted_at, email_verified_at, created_at, updated_at)
     SELECT 'queue-' || g || '@bench.example', 'bench-queue-' || g, 'password', '+1' || (2_000_000_000 + g * 7)::text,
       (ARRAY['pending', 'pending', 'pending', 'pending', 'pending', 'pending', 'pending', 'approved', 'approved', 'rejected'])[1 + g % 10],
       g % 25 <> 0,
       CASE WHEN g % 25 <> 0 THEN timestamptz '2025-01-01 00:00:00+00' + g * interval '1.5 seconds' + (g % 7) * interval '1 millisecond' END,
       timestamptz '2024-12-01 00:00:00+00' + g * interval '1 second', timestamptz '2024-12-01 00:00:00+00' + g * interval '1 second',
       timestamptz '2024-12-01 00:00:00+00' + g * interval '1 second'
     FROM generate_series(1, $1::int) AS g`,
    [QUEUE_DRIVERS],
  );
  await app.db.query(
    `INSERT INTO step_answers (driver_id, step, schema_name, schema_version, answers, submitted_at)
     SELECT d.id, 'completeProfile', 'profile', 'bench', jsonb_build_object(
         'firstName', (ARRAY['Ada', 'Grace', 'Alan', 'Katherine', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Radia'])[1 + d.n % 10],
         'lastName', CASE WHEN d.n = $1 THEN $2
           ELSE (ARRAY['Lovelace', 'Hopper', 'Turing', 'Johnson', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Thompson', 'Perlman', 'Ritchie'])[1 + d.n % 11] END),
       d.created_at
     FROM (SELECT id, created_at, row_number() OVER (ORDER BY created_at) AS n FROM drivers WHERE email LIKE 'queue-%') d`,
    [RARE_DRIVER, RARE_LAST_NAME],
  );
  // The queue's name, as saving the profile keeps it.
  await app.db.query(
    `UPDATE drivers d SET review_name = concat_ws(' ', a.answers ->> 'firstName', a.answers ->> 'lastName')
     FROM step_answers a WHERE a.driver_id = d.id AND a.step = 'completeProfile' AND d.email LIKE 'queue-%'`,
  );
  await app.db.query('ANALYZE drivers');
  await app.db.query('ANALYZE step_answers');
  return (performance.now() - started) / 1000;
}

/** Whether the queue's own statement, as PostgreSQL plans it, reads drivers_review_queue_idx in order (no sort of its own). */
async function readsQueueIndex(app: Awaited<ReturnType<typeof buildApp>>, status: string, after: { at: Date; id: string } | null) {
  const { rows } = await app.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${queueSql(status === 'pending')}`, [
    status,
    51,
    after?.at ?? null,
    after?.id ?? null,
    null,
    '',
    new Date(),
    null,
  ]);
  const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
  return /Index (Only )?Scan (Backward )?using drivers_review_queue_idx/.test(plan) && !/\bSort\b/.test(plan);
}

/**
 * GET /admin/drivers through app.inject on the seeded queue: the first page, a page after 50,000
 * drivers (its cursor reached by following `next`), and a search for a name only one driver has.
 * Median of nine after one warm-up; a bare Fastify route through inject is the anchor.
 */
/** Who the bench's staff member was added by, in the audit record. */
const BENCH_ACTOR = { staffId: null, actor: 'npm run bench', ip: null };

async function reviewQueue(app: Awaited<ReturnType<typeof buildApp>>) {
  const runs = 9;
  // A reviewer with a key, as a script acts (docs/operations.md, "Staff").
  const reviewer = await addStaff(app, { email: `bench-${randomUUID()}@onramp.local`, roles: ['reviewer'], firebaseUid: `bench-${randomUUID()}` }, BENCH_ACTOR);
  const headers = { authorization: `Bearer ${(await app.staffAuth.createKey(reviewer, 'npm run bench')).key}` };
  const get = async (url: string) => {
    const response = await app.inject({ method: 'GET', url, headers });
    if (response.statusCode !== 200) throw new Error(`GET ${url}: ${response.statusCode} ${response.body}`);
    return response.json() as { drivers: { id: string }[]; next: string | null };
  };
  const timed = async (url: string, call: (url: string) => Promise<unknown> = get) => {
    await call(url);
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      await call(url);
      samples.push(performance.now() - started);
    }
    return median(samples);
  };
  let after: string | null = null;
  let walked = 0;
  while (walked < 50_000) {
    const page = await get(`/admin/drivers?limit=200${after ? `&after=${after}` : ''}`);
    if (!page.next) throw new Error(`The queue ended after ${walked + page.drivers.length} drivers.`);
    walked += page.drivers.length;
    after = page.next;
  }
  const found = (await get(`/admin/drivers?q=${RARE_LAST_NAME.toLowerCase()}`)).drivers.length;
  const bare = Fastify();
  bare.get('/status', async () => ({ data: { status: 'pending', isSessionComplete: false, isSubscriptionPaid: false } }));
  await bare.ready();
  const { rows } = await app.db.query<{ at: Date; id: string }>(
    "SELECT submitted_at AS at, id FROM drivers WHERE status = 'pending' AND submitted_at IS NOT NULL ORDER BY submitted_at, id OFFSET 49999 LIMIT 1",
  );
  try {
    return {
      runs,
      walked,
      found,
      first: await timed('/admin/drivers'),
      deep: await timed(`/admin/drivers?after=${after}`),
      search: await timed(`/admin/drivers?q=${RARE_LAST_NAME.toLowerCase()}`),
      bare: await timed('/status', (url) => bare.inject({ method: 'GET', url })),
      index: {
        first: await readsQueueIndex(app, 'pending', null),
        deep: await readsQueueIndex(app, 'pending', rows[0] ?? null),
        decided: await readsQueueIndex(app, 'approved', null),
      },
    };
  } finally {
    await bare.close();
  }
}

/**
 * The seeded queue's history for the insights: phones verified, the vehicle steps of those who
 * sent everything, and a decision on each decided driver (a third of the rejected asked for fixes)
 * from a few hours to two days after their submission. Their progress rows (driver_progress, what
 * the insights read) are written by the database's triggers, as for every change the server makes.
 */
async function seedInsightsHistory(app: Awaited<ReturnType<typeof buildApp>>) {
  await app.db.query(
    `UPDATE drivers SET phone_verified_at = created_at + interval '2 minutes',
       reviewed_at = CASE WHEN status <> 'pending' THEN submitted_at + (id_hash % 48) * interval '1 hour' END
     FROM (SELECT id AS hashed_id, abs(hashtext(id::text)) AS id_hash FROM drivers WHERE email LIKE 'queue-%') h
     WHERE h.hashed_id = drivers.id`,
  );
  await app.db.query(
    `INSERT INTO step_answers (driver_id, step, schema_name, schema_version, answers, submitted_at)
     SELECT d.id, s.step, s.step, 'bench', '{}', d.submitted_at - s.before
     FROM drivers d CROSS JOIN (VALUES ('uploadVehicleImages', interval '20 minutes'), ('addVehicle', interval '0 minutes')) AS s (step, before)
     WHERE d.email LIKE 'queue-%' AND d.submitted_at IS NOT NULL`,
  );
  await app.db.query(
    `INSERT INTO driver_reviews (driver_id, decision, reason, reviewed_by, reviewed_at, sent_at, fixes)
     SELECT id, status, CASE WHEN status = 'rejected' THEN 'Please fix' END, 'bench@onramp.local', reviewed_at, submitted_at,
       CASE WHEN status = 'rejected' AND random() < 0.34 THEN jsonb_build_array(jsonb_build_object('step', 'addVehicle', 'field', 'plateNumber',
         'reason', (ARRAY['The plate is not readable', 'Blurry photo', 'Insurance card expired'])[1 + floor(random() * 3)::int])) ELSE '[]' END
     FROM drivers WHERE email LIKE 'queue-%' AND status <> 'pending' AND submitted_at IS NOT NULL`,
  );
  await app.db.query('ANALYZE drivers');
  await app.db.query('ANALYZE step_answers');
  await app.db.query('ANALYZE driver_reviews');
  // Its rows were rewritten as the history above was added: VACUUM, as autovacuum would (PGlite has none).
  await app.db.query('VACUUM ANALYZE driver_progress');
}

/** GET /admin/insights through app.inject over every seeded driver (the range holds them all): median of nine after one warm-up. */
async function insightsTime(app: Awaited<ReturnType<typeof buildApp>>) {
  const runs = 9;
  const reviewer = await addStaff(app, { email: `bench-${randomUUID()}@onramp.local`, roles: ['reviewer'], firebaseUid: `bench-${randomUUID()}` }, BENCH_ACTOR);
  const headers = { authorization: `Bearer ${(await app.staffAuth.createKey(reviewer, 'npm run bench')).key}` };
  const url = '/admin/insights?from=2024-11-01&to=2025-01-31&stalledDays=7';
  const read = async () => {
    const response = await app.inject({ method: 'GET', url, headers });
    if (response.statusCode !== 200) throw new Error(`GET ${url}: ${response.statusCode} ${response.body}`);
    return response.json() as { drivers: number };
  };
  const { drivers } = await read();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await read();
    samples.push(performance.now() - started);
  }
  return { runs, drivers, ms: median(samples) };
}

/**
 * `drivers` (a million unless `--scale-drivers` says otherwise; seeded by tools/scale.ts) in a PostgreSQL database of their own, read by a server
 * on it through app.inject, each figure the median of nine after one warm-up: the review queue
 * (its first page, a page 50,000 drivers deep, a search by name, by email and by phone), the
 * insights for last month and for all time, one driver's review page and timeline, the Drivers
 * list (its first page, drivers stalled at a step, a search), one pass of each background job
 * (the seeded history has sent what was due: the first pass's sends are counted apart), the status
 * poll under load, and the database's size. Null without PostgreSQL.
 */
async function scaleFigures(drivers: number) {
  if (!postgresBinDir) return null;
  const postgres = await runningPostgres();
  const dataDir = await mkdtemp(join(tmpdir(), 'onramp-bench-scale-'));
  const env = { DATA_DIR: dataDir, DATABASE_URL: postgres.url, LOG_LEVEL: 'warn', AUTH_RATE_LIMIT_MAX: '100000' };
  prepareLocalSecrets(env);
  const app = await buildApp(readConfig(env));
  const client = new pg.Client(postgres.url);
  try {
    await client.connect();
    const seeded = await seedScale(client, drivers, new Date());
    return {
      seeded,
      ...(await readAtScale(app, client)),
      poll: await pollLoad(app),
      size: Number((await client.query<{ size: string }>('SELECT pg_database_size(current_database()) AS size')).rows[0]!.size),
    };
  } finally {
    await Promise.allSettled([app.close(), client.end()]);
    postgres.remove();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** GET /driver/status/{id} polled by a newly signed-in driver of `app` under load (autocannon, 50 connections, 5 s). */
async function pollLoad(app: Awaited<ReturnType<typeof buildApp>>) {
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  const email = `bench-${Date.now()}@example.com`;
  const signed = (await (
    await app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', payload: signUpBody(email, '+12025550143', await emulatorIdToken(email)) })
  ).json()) as { driverId: string; token: string };
  const outbox = (await (await app.inject({ method: 'GET', url: '/dev/outbox' })).json()) as { to: string; code: string }[];
  const code = outbox.find((entry) => entry.to === email)?.code;
  const { token } = (await (
    await app.inject({ method: 'POST', url: '/auth/validateOTP', headers: { authorization: `Bearer ${signed.token}` }, payload: { code, email } })
  ).json()) as { token: string };
  return load(`${baseUrl}/driver/status/${signed.driverId}`, { authorization: `Bearer ${token}` });
}

/** Resident memory of a process, from /proc (bytes). */
async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) * 1024;
}

/**
 * Six drivers sending their six vehicle photos of about 10 MB each at once, to the built server in
 * a process of its own: how much its resident memory grows above what it held before (sampled
 * every 20 ms). Returns the growth and the photo's size.
 */
async function uploadMemory() {
  const folder = await mkdtemp(join(tmpdir(), 'onramp-bench-uploads-'));
  // A new embedded database takes longer than the default 30 s to open on a busy machine.
  const server = await startServerProcess({ DATA_DIR: folder, AUTH_RATE_LIMIT_MAX: '100000', LOG_LEVEL: 'warn' }, 90_000);
  try {
    const call = async (method: string, path: string, token?: string, body?: unknown) => {
      const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
      if (body !== undefined && !(body instanceof FormData)) headers['content-type'] = 'application/json';
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers,
        body: body instanceof FormData ? body : body === undefined ? undefined : JSON.stringify(body),
      });
      return (await response.json()) as Record<string, unknown>;
    };
    const codeFor = async (to: string) =>
      ((await (await fetch(`${server.url}/dev/outbox`)).json()) as { to: string; code?: string }[]).find((entry) => entry.to === to && entry.code)?.code;
    const small = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366ff' } })
      .jpeg()
      .toBuffer();
    const form = (fields: string[], bytes: Buffer, extra: Record<string, string> = {}) => {
      const data = new FormData();
      for (const [key, value] of Object.entries(extra)) data.append(key, value);
      for (const field of fields) data.append(field, new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), `${field}.jpg`);
      return data;
    };
    // Six drivers up to the photo step (their profile with small photos).
    const tokens: string[] = [];
    for (let i = 0; i < 6; i++) {
      const email = `bench-upload-${Date.now()}-${i}@example.com`;
      const phone = `+1202555${String(1000 + i)}`;
      const signed = await call('POST', '/auth/driverEmailSignUp', undefined, signUpBody(email, phone, await emulatorIdToken(email)));
      const verified = await call('POST', '/auth/validateOTP', String(signed.token), { code: await codeFor(email), email });
      const token = String(verified.token);
      await call('POST', '/auth/sendPhoneOTP', token, { phoneNo: phone });
      await call('POST', '/auth/validatePhoneOTP', token, { code: await codeFor(phone), phoneNo: phone });
      const profile = {
        firstName: 'Bench',
        lastName: 'Driver',
        dateOfBirth: '1990-01-01',
        gender: 'Female',
        SSN: '123456789',
        driverLicenseNumber: 'D1',
        street: '1 Main St',
        city: 'Austin',
        state: 'TX',
        zipcode: '73301',
      };
      await call('POST', '/driver/completeProfile', token, form(['profilePicture', 'socialSecurityCardFront', 'socialSecurityCardBack'], small, profile));
      tokens.push(token);
    }
    // A 12-megapixel phone photo just under the 10 MiB limit: noise, which JPEG can't shrink.
    const width = 4032;
    const height = 3024;
    const noise = Buffer.alloc(width * height * 3);
    for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
    let photo = Buffer.alloc(0);
    for (const quality of [95, 94, 93, 92]) {
      photo = await sharp(noise, { raw: { width, height, channels: 3 } })
        .jpeg({ quality })
        .toBuffer();
      if (photo.length <= 10 * 1024 * 1024) break;
    }
    // The six vehicle photos, as their schema names them.
    const fields = Object.keys(loadSchema('vehicle-images').properties as object);
    const before = await rssOf(server.pid);
    let peak = before;
    const sampler = setInterval(
      () =>
        void rssOf(server.pid)
          .then((rss) => (peak = Math.max(peak, rss)))
          // A sample missed (the process between reads of /proc) leaves the peak as it was.
          .catch(() => undefined),
      20,
    );
    const answers = await Promise.all(tokens.map((token) => call('POST', '/driver/completeVehicleDocs', token, form(fields, photo))));
    clearInterval(sampler);
    const failed = answers.filter((answer) => answer.success !== true).length;
    return { growth: peak - before, before, photo: photo.length, failed };
  } finally {
    await server.stop();
    await rm(folder, { recursive: true, force: true });
  }
}

/** The production install's size (packages the server runs only), beside this project's full install. */
async function installSizes() {
  const folder = await mkdtemp(join(tmpdir(), 'onramp-bench-install-'));
  try {
    const production = installProduction(folder);
    const full = execFileSync('du', ['-sb', join(PROJECT_ROOT, 'node_modules')]).toString();
    return { production, fullBytes: Number(full.split('\t')[0]) };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** How many events the delivery figure queues, and how many times each way a step is sent for the step figure. */
const WEBHOOK_EVENTS = 2_000;
const STEP_SENDS = 15;

/**
 * Webhooks on the bench's server. Delivery: WEBHOOK_EVENTS events (one per driver) queued to one
 * endpoint at a local receiver that answers 204, then delivered by the server's own passes; beside
 * the anchor, the same number of signed POSTs from a plain loop at the same parallelism, with no
 * database. A step send: a driver's profile (three small photos) sent again and again, in turn with
 * an endpoint that takes every event and with none, median of STEP_SENDS each.
 */
async function webhookFigures() {
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const owner = await addStaff(app, { email: `bench-${randomUUID()}@onramp.local`, roles: ['owner'], firebaseUid: `bench-${randomUUID()}` }, BENCH_ACTOR);
  const ownerKey = (await app.staffAuth.createKey(owner, 'bench')).key;
  const inject = async (method: 'GET' | 'POST', path: string, token: string, payload?: unknown) =>
    app.inject({ method, url: path, headers: { authorization: `Bearer ${token}` }, ...(payload === undefined ? {} : { payload: payload as object }) });
  try {
    const created = (await inject('POST', '/admin/webhooks', ownerKey, { url })).json() as { endpoint: { id: string }; secret: string };
    await app.db.transaction(async (tx) => {
      for (let i = 0; i < WEBHOOK_EVENTS; i++) await app.webhooks.emit(tx, randomUUID(), 'driver.signed_up', { provider: 'password' });
    });
    let started = performance.now();
    let delivered = 0;
    while (delivered < WEBHOOK_EVENTS) {
      const passed = await app.webhooks.deliverDue();
      if (passed === 0) break;
      delivered += passed;
    }
    const deliverySeconds = (performance.now() - started) / 1000;
    const signer = new Webhook(created.secret);
    const body = JSON.stringify({
      type: 'driver.signed_up',
      timestamp: new Date().toISOString(),
      data: { driverId: randomUUID(), sequence: 1, provider: 'password' },
    });
    const limit = pLimit(PARALLEL_POSTS);
    started = performance.now();
    await Promise.all(
      Array.from({ length: WEBHOOK_EVENTS }, () =>
        limit(async () => {
          const id = `msg_${randomUUID()}`;
          const at = new Date();
          const headers = {
            'content-type': 'application/json',
            'webhook-id': id,
            'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
            'webhook-signature': signer.sign(id, at, body),
          };
          (await fetch(url, { method: 'POST', headers, body })).body?.cancel();
        }),
      ),
    );
    const anchorSeconds = (performance.now() - started) / 1000;

    // A driver at their profile, sent again and again, with the endpoint on and off in turn.
    const email = `bench-hooks-driver-${Date.now()}@example.com`;
    const phone = '+12025550177';
    const signed = (
      await app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', payload: signUpBody(email, phone, await emulatorIdToken(email)) })
    ).json() as { token: string };
    const codeFor = async (to: string) =>
      ((await app.inject({ method: 'GET', url: '/dev/outbox' })).json() as { to: string; code?: string }[]).find((entry) => entry.to === to && entry.code)
        ?.code;
    const token = String(((await inject('POST', '/auth/validateOTP', signed.token, { code: await codeFor(email), email })).json() as { token: string }).token);
    await inject('POST', '/auth/sendPhoneOTP', token, { phoneNo: phone });
    await inject('POST', '/auth/validatePhoneOTP', token, { code: await codeFor(phone), phoneNo: phone });
    const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366ff' } })
      .jpeg()
      .toBuffer();
    const profile = {
      firstName: 'Bench',
      lastName: 'Driver',
      dateOfBirth: '1990-01-01',
      gender: 'Female',
      SSN: '123456789',
      driverLicenseNumber: 'D1',
      street: '1 Main St',
      city: 'Austin',
      state: 'TX',
      zipcode: '73301',
    };
    const sendProfile = async () => {
      const form = new FormData();
      for (const [field, value] of Object.entries(profile)) form.append(field, value);
      for (const field of ['profilePicture', 'socialSecurityCardFront', 'socialSecurityCardBack'])
        form.append(field, new Blob([new Uint8Array(photo)], { type: 'image/jpeg' }), `${field}.jpg`);
      const request = new Request('http://bench/driver/completeProfile', { method: 'POST', body: form });
      const payload = Buffer.from(await request.arrayBuffer());
      const at = performance.now();
      const answer = await app.inject({
        method: 'POST',
        url: '/driver/completeProfile',
        headers: { authorization: `Bearer ${token}`, 'content-type': request.headers.get('content-type')! },
        payload,
      });
      if (answer.statusCode !== 200) throw new Error(`the profile was refused: ${answer.body}`);
      return performance.now() - at;
    };
    const setEnabled = async (enabled: boolean) => inject('POST', `/admin/webhooks/${created.endpoint.id}`, ownerKey, { enabled });
    const on: number[] = [];
    const off: number[] = [];
    await sendProfile();
    for (let round = 0; round < STEP_SENDS; round++) {
      await setEnabled(true);
      on.push(await sendProfile());
      await setEnabled(false);
      off.push(await sendProfile());
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    return { perSecond: delivered / deliverySeconds, delivered, anchorPerSecond: WEBHOOK_EVENTS / anchorSeconds, on: median(on), off: median(off) };
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
}

/** The soak's calm phase before the faults: the anchor of its times. */
const SOAK_CALM_SECONDS = 45;

/** The q-quantile of `values` (nearest rank). */
const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil(q * values.length) - 1)] ?? NaN;

async function printSoak(result: SoakResult) {
  // A call with no times in a phase (a code asked again only once the mail server was away) shows a dash.
  const ms = (value: number) => (Number.isNaN(value) ? '–' : `${Math.round(value)}`).padStart(6);
  const calm = result.calls.filter((call) => call.phase === 'calm');
  const loaded = result.calls.filter((call) => call.phase === 'faults');
  const windows = result.faults.map((fault) => `${fault.name} ${fault.from.toFixed(1)}–${fault.to.toFixed(1)} s`).join(', ');
  console.log(`  faults (from the start of the faulty phase): ${windows}`);
  console.log(
    `  ${result.calls.length.toLocaleString('en-US')} requests (${calm.length.toLocaleString('en-US')} calm, ${loaded.length.toLocaleString('en-US')} with faults), ${result.journeys} journeys begun, ${result.approvals} approvals`,
  );
  console.log(`  ${'call'.padEnd(34)}      n   p50   p95   p99   ms, with faults; p95 calm (the anchor)`);
  for (const name of [...new Set(result.calls.map((call) => call.call))]) {
    const times = loaded.filter((call) => call.call === name).map((call) => call.ms);
    const calmTimes = calm.filter((call) => call.call === name).map((call) => call.ms);
    console.log(
      `  ${name.padEnd(34)} ${String(times.length).padStart(6)}${ms(quantile(times, 0.5))}${ms(quantile(times, 0.95))}${ms(quantile(times, 0.99))}   ${ms(quantile(calmTimes, 0.95))}`,
    );
  }
  const failed = result.calls.filter((call) => call.outcome !== 'ok');
  const kinds = new Map<string, { inside: number; outside: number }>();
  for (const call of failed) {
    const kind = kinds.get(`${call.outcome} ${call.call}`) ?? { inside: 0, outside: 0 };
    kind[call.inWindow ? 'inside' : 'outside'] += 1;
    kinds.set(`${call.outcome} ${call.call}`, kind);
  }
  console.log(`  errors by kind                      inside / outside the fault windows`);
  for (const [kind, { inside, outside }] of [...kinds].sort()) console.log(`    ${kind.padEnd(42)} ${String(inside).padStart(5)} / ${outside}`);
  const serverErrorsOutside = failed.filter((call) => !call.inWindow && /^5/.test(call.outcome));
  console.log(`  5xx outside the fault windows       ${serverErrorsOutside.length}   budget 0`);
  for (const call of serverErrorsOutside.slice(0, 10)) console.log(`    ${call.outcome} ${call.call} at ${call.at.toFixed(1)} s`);
  if (serverErrorsOutside.length > 0) {
    // Why they were refused is in the servers' warnings.
    const log = join(tmpdir(), `onramp-soak-servers-${Date.now()}.log`);
    await writeFile(log, result.serverOutput);
    console.log(`    the servers' warnings and errors: ${log}`);
  }
  const lost = result.lostSteps.length + result.lostNotices.length + result.duplicateNotices.length;
  console.log(
    `  lost                                ${lost} (answered steps not stored ${result.lostSteps.length}; approvals' notices undelivered ${result.lostNotices.length}, delivered twice ${result.duplicateNotices.length})   budget 0`,
  );
  for (const each of [...result.lostSteps, ...result.lostNotices, ...result.duplicateNotices].slice(0, 10)) console.log(`    ${each}`);
  console.log(`  notices: ${result.undelivered} still pending; the last delivered ${result.drainSeconds.toFixed(0)} s after the mail server came back`);
}

/** The bench's sections, in the order they run; `npm run bench -- --only slow-phone --only insights` runs those alone. */
const SECTIONS = [
  'bundle',
  'lint',
  'validation',
  'browser',
  'slow-phone',
  'status-poll',
  'webhooks',
  'queue',
  'insights',
  'scale',
  'uploads',
  'restart',
  'soak',
  'install',
  'live-edit',
] as const;
const { values: args } = parseArgs({
  options: {
    only: { type: 'string', multiple: true },
    // The soak's drivers walking at once and its minutes of load with faults: a shared machine may want fewer.
    'soak-drivers': { type: 'string', default: '200' },
    'soak-minutes': { type: 'string', default: '3' },
    // The drivers the scale section seeds: the budgets hold at a million, and at the 100,000 an operator starts with.
    'scale-drivers': { type: 'string', default: '1000000' },
  },
});
const unknown = (args.only ?? []).filter((name) => !(SECTIONS as readonly string[]).includes(name));
if (unknown.length) {
  console.error(`Unknown section ${unknown.join(', ')}: the sections are ${SECTIONS.join(', ')}.`);
  process.exit(2);
}
const wanted = (section: (typeof SECTIONS)[number]) => !args.only || args.only.includes(section);

const emulator = await startAuthEmulator({ quiet: true });
const dataDir = await mkdtemp(join(tmpdir(), 'onramp-bench-'));
const benchEnv = { DATA_DIR: dataDir, LOG_LEVEL: 'warn', AUTH_RATE_LIMIT_MAX: '100000' };
prepareLocalSecrets(benchEnv);
const config = { ...readConfig(benchEnv), database: { kind: 'pglite' as const, dir: null } };
const app = await buildApp(config);
const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
const anchor = await startAnchor();
try {
  if (wanted('bundle')) {
    const bundle = await firstVisitBundles();
    console.log("Bundle (gzip, level 9; the anchor: React 19, rjsf's theme, precompiled validators, markdown stubbed, slowPhone.ts)");
    console.log(`  shell (entry + static imports)      ${kb(bundle.shell)}`);
    for (const { route, gzip } of bundle.routes) {
      const anchorGzip = await gzippedSize(anchor.firstVisit[route] ?? []);
      console.log(`  first visit to ${route.padEnd(18)}   ${kb(gzip)} (anchor ${kb(anchorGzip)})   budget ≤ 115 KB`);
    }
    console.log(`  Firebase in the first page           ${bundle.firebaseInFirstPage ? 'yes' : 'no'}`);
  }

  if (wanted('lint')) {
    const lint = lintFigures();
    console.log(`Lint (npm run lint:schemas on the shipped files, its own process, median of ${lint.runs}: ${lint.problems} problems)`);
    console.log(`  the checks                           ${Math.round(lint.checked)} ms   budget ≤ 1000 ms`);
    console.log(
      `  the whole command                    ${Math.round(lint.command)} ms (anchor: the same runner on an empty script, ${Math.round(lint.anchor)} ms)`,
    );
  }

  if (wanted('validation')) {
    console.log('Validation (Node, precompiled, half-typed sign-up)');
    console.log(`  per call                             ${(await validationSpeed()).toFixed(1)} µs`);
  }

  if (wanted('browser')) {
    const browser = await browserFigures(baseUrl);
    console.log('Browser (headless Chromium, 390×844)');
    console.log(`  keystroke on the profile step        ${browser.keyMedian.toFixed(2)} ms median of ${browser.keys}   budget ≤ 3 ms`);
    console.log(`  the same, CPU 4× slower              ${browser.slowKeyMedian.toFixed(2)} ms median of ${browser.keys}   budget ≤ 10 ms`);
    console.log(
      `  until the page is idle, the form's transition done  ${browser.keyTakenMedian.toFixed(1)} ms, ${browser.slowKeyTakenMedian.toFixed(1)} ms at 4×`,
    );
    console.log(`  photo ${kb(browser.original)} → ${kb(browser.resized)} in ${browser.resizeMs} ms   budget ≤ 400 KB`);
  }

  if (wanted('slow-phone')) {
    const phone = await slowPhoneFigures(baseUrl, anchor.url);
    console.log(
      "Slow phone (Chromium: 400 ms round trip, 400 kbit/s, CPU 4× slower; from the navigation, median of 5, ours and the anchor in turns, each ratio the median of the turns' ratios; the anchor draws in the browser only)",
    );
    for (const { route, ours, anchor, drawnRatio, judgedRatio } of phone) {
      console.log(
        `  ${route}: form drawn, a typed key shows  ${inSeconds(ours.first)} (anchor's first echo ${inSeconds(anchor.first)}, ${drawnRatio.toFixed(2)}×)   budget ≤ 0.35× the anchor`,
      );
      console.log(
        `  ${route}: hydrated, an invalid key shows its message  ${inSeconds(ours.judged)} (anchor ${inSeconds(anchor.judged)}; ${judgedRatio.toFixed(2)}× the anchor's first echo)   budget ≤ 0.8×`,
      );
      console.log(`  ${route}: repeat visit, a typed key shows  ${inSeconds(ours.repeat)} (anchor ${inSeconds(anchor.repeat)})   budget ≤ 1.0 s`);
    }
    const drawn = await drawnSteps(baseUrl);
    console.log('Steps drawn by the server (the page as sent: gzip; the drawing itself, warm, median of 20)');
    for (const { route, gzip } of drawn.pages) console.log(`  ${route.padEnd(18)} HTML ${kb(gzip)} gzip   budget ≤ 30 KB`);
    // Beside the status poll's time, which the next section prints.
    for (const { route, ms } of drawn.renders) console.log(`  the server drawing ${route.padEnd(18)} ${ms.toFixed(1)} ms (median, warm)   budget ≤ 20 ms`);
  }

  if (wanted('status-poll')) {
    const poll = await statusPoll();
    console.log('Status poll (PostgreSQL; autocannon in its own process, 50 connections; 5 rounds of 4 s turns, the route and its floors in turn)');
    if (!poll) console.log('  skipped: no PostgreSQL here (apt-get install postgresql)');
    else {
      const { plain, prepared } = poll.floors;
      console.log(`  GET /driver/status/{id}              ${Math.round(poll.route.rps)} req/s, p99 ${poll.route.p99} ms, ${poll.route.errors} errors`);
      console.log(`  floor: its one query on a bare route ${Math.round(plain.load.rps)} req/s, p99 ${plain.load.p99} ms`);
      console.log(`  ratio (median of 5 rounds' ratios)   ${plain.ratio.toFixed(2)}   budget ≥ 0.9`);
      console.log(`  the floor with the query prepared, as the route runs it: ${Math.round(prepared.load.rps)} req/s, ratio ${prepared.ratio.toFixed(2)}`);
    }
  }

  if (wanted('webhooks')) {
    const hooks = await webhookFigures();
    console.log(`Webhooks (the bench's server on PGlite, a local receiver answering 204)`);
    console.log(
      `  delivered by the server's passes      ${Math.round(hooks.perSecond)} events/s (${hooks.delivered} of ${WEBHOOK_EVENTS}; anchor: the same signed POSTs from a plain loop, ${Math.round(hooks.anchorPerSecond)}/s)`,
    );
    console.log(
      `  a profile sent, webhooks on / off     ${hooks.on.toFixed(1)} ms / ${hooks.off.toFixed(1)} ms median of ${STEP_SENDS} (${((hooks.on / hooks.off - 1) * 100).toFixed(1)} %)   budget ≤ 5 % slower`,
    );
  }

  // The insights read the review queue's drivers with their history.
  const seconds = wanted('queue') || wanted('insights') ? await seedReviewQueue(app) : 0;
  if (wanted('queue')) {
    const queue = await reviewQueue(app);
    const index = Object.entries(queue.index)
      .filter(([, used]) => !used)
      .map(([page]) => page);
    console.log(`Review queue (GET /admin/drivers through app.inject, ${QUEUE_DRIVERS.toLocaleString('en-US')} drivers seeded in ${seconds.toFixed(1)} s)`);
    console.log(`  first page of 50                     ${queue.first.toFixed(1)} ms median of ${queue.runs}   budget ≤ 50 ms`);
    console.log(`  page after ${queue.walked.toLocaleString('en-US')} drivers            ${queue.deep.toFixed(1)} ms median of ${queue.runs}   budget ≤ 50 ms`);
    console.log(
      `  name search (${queue.found} of ${QUEUE_DRIVERS.toLocaleString('en-US')})           ${queue.search.toFixed(1)} ms median of ${queue.runs}   budget ≤ 500 ms`,
    );
    console.log(`  bare Fastify route                   ${queue.bare.toFixed(1)} ms median of ${queue.runs}`);
    console.log(
      `  pages read drivers_review_queue_idx  ${index.length === 0 ? 'yes (EXPLAIN: first, deep and decided pages, no sort)' : `no: ${index.join(', ')}`}`,
    );
  }

  if (wanted('insights')) {
    await seedInsightsHistory(app);
    const insights = await insightsTime(app);
    console.log(`Insights (GET /admin/insights through app.inject, the seeded queue with its history)`);
    console.log(
      `  ${insights.drivers.toLocaleString('en-US')} drivers in the range            ${insights.ms.toFixed(1)} ms median of ${insights.runs}   budget ≤ 300 ms`,
    );
  }

  if (wanted('scale')) {
    const scaleDrivers = Number(args['scale-drivers']);
    const scale = await scaleFigures(scaleDrivers);
    if (!scale) console.log('Scale: skipped: no PostgreSQL here (apt-get install postgresql)');
    else {
      const ms = (value: number, budget: number) => (Number.isNaN(value) ? 'failed' : `${value.toFixed(1)} ms`).padEnd(10) + `budget ≤ ${budget} ms`;
      const { queue, insights, driver, people, passes, poll } = scale;
      console.log(
        `Scale (PostgreSQL, ${scaleDrivers.toLocaleString('en-US')} drivers seeded in ${scale.seeded.seed.toFixed(0)} s, VACUUM ANALYZE ${scale.seeded.vacuum.toFixed(0)} s; app.inject, median of 9 warm)`,
      );
      console.log(`  review queue, first page             ${ms(queue.first, 20)}`);
      console.log(`  review queue, 50,000 deep            ${ms(queue.deep, 20)}`);
      console.log(`  queue search: a name                 ${ms(queue.name, 20)}`);
      console.log(`  queue search: an email               ${ms(queue.email, 20)}`);
      console.log(`  queue search: a phone's digits       ${ms(queue.phone, 20)}`);
      console.log(`  insights, last month                 ${ms(insights.month, 300)}`);
      console.log(`  insights, all time                   ${ms(insights.all, 1000)}`);
      console.log(`  a driver's review page               ${ms(driver.review, 50)}`);
      console.log(`  a driver's timeline                  ${ms(driver.timeline, 50)}`);
      console.log(`  Drivers list, first page             ${ms(people.first, 100)}`);
      console.log(`  Drivers list, stalled at a step      ${ms(people.stalled, 100)}`);
      console.log(`  Drivers list, a search               ${ms(people.search, 100)}`);
      for (const { name, first, idle } of passes)
        console.log(`  ${`${name} pass, nothing due`.padEnd(37)}${ms(idle, 50)}   (the first pass: ${first.sent} sent in ${first.ms.toFixed(0)} ms)`);
      console.log(`  status poll                          ${Math.round(poll.rps)} req/s, p99 ${poll.p99} ms, ${poll.errors} errors`);
      console.log(`  the database                         ${mb(scale.size)}`);
    }
  }

  if (wanted('uploads')) {
    const uploads = await uploadMemory();
    console.log('Uploads (the built server in its own process, as npm run start:prod runs it)');
    console.log(
      `  6 drivers × 6 photos of ${mb(uploads.photo)} at once: memory +${mb(uploads.growth)} over ${mb(uploads.before)}${uploads.failed ? `, ${uploads.failed} refused` : ''}   budget ≤ 200 MB`,
    );
  }

  if (wanted('restart')) {
    console.log(
      `Rolling restart (two built servers on PostgreSQL behind haproxy, GET /readyz checked every ${CHECK_INTERVAL_MS} ms; status polls, sign-ups and photo uploads; each server restarted in turn with SIGTERM)`,
    );
    if (!postgresBinDir || !existsSync(HAPROXY)) console.log('  skipped: needs PostgreSQL and haproxy here (apt-get install postgresql haproxy)');
    else {
      const restartFigure = (result: RollingRestartResult) => {
        const requests = result.requests.polls + result.requests.signUps + result.requests.uploads;
        const lost = result.lostUploads.length + result.leftovers.length + Math.abs(result.signUpMismatch);
        return `${result.failed.length} failed of ${requests.toLocaleString('en-US')} requests in ${result.seconds.toFixed(1)} s${lost ? `, ${lost} uploads or sign-ups lost or left behind` : ''}`;
      };
      console.log(`  without balancer retries (retries 0)        ${restartFigure(await rollingRestart({ retries: false }))}   budget 0 failed`);
      console.log(`  with retries 3 and option redispatch        ${restartFigure(await rollingRestart({ retries: true }))}`);
      console.log(`  anchor: no grace on SIGTERM, retries 0      ${restartFigure(await rollingRestart({ retries: false, graceMs: 0 }))}`);
    }
  }

  if (wanted('soak')) {
    const drivers = Number(args['soak-drivers']);
    const minutes = Number(args['soak-minutes']);
    console.log(
      `Soak (two built servers on PostgreSQL behind haproxy, retries 0; mail by SMTP, texts by a local Twilio; ${drivers} drivers walking the API journey at once, a reviewer approving; ${SOAK_CALM_SECONDS} s calm, then ${minutes} min with faults)`,
    );
    if (!postgresBinDir || !existsSync(HAPROXY)) console.log('  skipped: needs PostgreSQL and haproxy here (apt-get install postgresql haproxy)');
    else await printSoak(await soak({ drivers, minutes, calmSeconds: SOAK_CALM_SECONDS }));
  }

  if (wanted('install')) {
    const install = await installSizes();
    console.log("Production install (the lock file's runtime packages, as npm ci --omit=dev lays them out)");
    console.log(`  ${install.production.packages} packages, ${mb(install.production.bytes)}   (the full install with the dev tools: ${mb(install.fullBytes)})`);
  }

  if (wanted('live-edit')) {
    console.log('Live edits (npm run dev, headless Chromium)');
    console.log(`  message saved → shown in the page    ${Math.round(await liveEditLatency())} ms median of 5   budget ≤ 1000 ms`);
  }
} finally {
  await app.close();
  await anchor.stop();
  await emulator.stop();
  await rm(dataDir, { recursive: true, force: true });
}
