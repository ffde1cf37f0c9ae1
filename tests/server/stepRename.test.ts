// A step renamed by operations staff in a copy of the content, as they would: its name changed
// everywhere the flow, the notices, the translations and the fixtures say it. Declared in the
// flow's "renamed", the server started with the copy moves what drivers sent under the old name:
// the insights count the step as before and the driver and the review read the same answers.
// Undeclared, the lint refuses the edit, at the place to change, before anything is lost.
//
// The server's code reads its content folder when it is first imported: the copy's server is
// loaded afresh once ONRAMP_CONTENT_DIR names it (as tests/server/contentFolder.test.ts does).
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { lintProject } from '../../src/cli/lintProject.js';
import { openAnswers } from '../../src/server/lib/answers.js';
import { SCREEN_NAMES, WIDGET_NAMES } from '../../src/shared/registries.js';
import type { Insights } from '../../src/shared/review.js';
import { copyProject } from '../support/brokenEdits.js';
import {
  bearer,
  json,
  profileValues,
  reviewVersion,
  sendVehicle,
  startTestServer,
  verifiedDriver,
  type TestDriver,
  type TestServer,
} from '../support/server.js';

const FROM = 'completeProfile';
const TO = 'driverProfile';
const registry = { widgets: [...WIDGET_NAMES], screens: [...SCREEN_NAMES] };
const contentDirBefore = process.env.ONRAMP_CONTENT_DIR;
const copies: string[] = [];

type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Every string that is the step's name becomes the new one: values, and the step's key under "steps"; a call's name stays. */
function renamedIn(value: JsonValue, key = ''): JsonValue {
  if (typeof value === 'string') return value === FROM && key !== 'call' ? TO : value;
  if (Array.isArray(value)) return value.map((item) => renamedIn(item));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [key === 'steps' && name === FROM ? TO : name, renamedIn(item, name)]));
}

function editJson(root: string, file: string, edit: (value: JsonValue) => JsonValue): void {
  const path = join(root, file);
  writeFileSync(path, `${JSON.stringify(edit(JSON.parse(readFileSync(path, 'utf8')) as JsonValue), null, 2)}\n`);
}

/** A copy of the content with the step renamed as operations staff would; `declared`: with "renamed" and the new name listed. */
function renamedCopy(declared: boolean): string {
  const root = copyProject();
  copies.push(root);
  for (const file of ['flows/onboarding.flow.json', 'flows/notices.json']) editJson(root, file, (value) => renamedIn(value));
  const fixtures = join(root, 'tests', 'fixtures', FROM);
  for (const file of readdirSync(fixtures, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.json'))) {
    editJson(root, join('tests', 'fixtures', FROM, file), (value) => renamedIn(value));
  }
  const translations = join(root, 'locales', 'es', 'onboarding.flow.json');
  writeFileSync(translations, readFileSync(translations, 'utf8').replaceAll(`/steps/${FROM}/`, `/steps/${TO}/`));
  if (declared) {
    editJson(root, 'flows/onboarding.flow.json', (flow) => ({ ...(flow as Record<string, JsonValue>), renamed: { [FROM]: TO } }));
    editJson(root, 'flows/recorded-steps.json', (list) => {
      const { steps, ...rest } = list as { steps: string[] };
      return { ...rest, steps: [...steps, TO] };
    });
  }
  return root;
}

afterAll(() => {
  for (const root of copies) rmSync(root, { recursive: true, force: true });
  if (contentDirBefore === undefined) delete process.env.ONRAMP_CONTENT_DIR;
  else process.env.ONRAMP_CONTENT_DIR = contentDirBefore;
  // The server tests share their modules within a worker: the next file must read the project's content again.
  vi.resetModules();
});

describe('npm run lint:schemas on a step renamed in the flow', () => {
  it('refuses it undeclared, saying where to declare it and the list that lacks the new name', async () => {
    const problems = await lintProject(renamedCopy(false), registry);
    expect(problems.map(({ file, at, message }) => ({ file, at, message }))).toEqual([
      {
        file: 'flows/onboarding.flow.json',
        at: '/steps',
        message:
          'step "completeProfile" is gone, but drivers\' stored answers and progress name it (flows/recorded-steps.json): they would be orphaned — if it was renamed, say so beside "steps": "renamed": { "completeProfile": "driverProfile" } (the server moves what is stored under the old name when it starts); otherwise put it back',
      },
      {
        file: 'flows/recorded-steps.json',
        at: '/steps',
        message:
          'the flow records step "driverProfile" (drivers\' answers or progress are stored under its name), and this list lacks it — add "driverProfile" to "steps"',
      },
    ]);
  });

  it('passes it declared in "renamed", with the new name listed', async () => {
    expect(await lintProject(renamedCopy(true), registry)).toEqual([]);
  });
});

describe('a server started with the declared rename', () => {
  let server: TestServer;
  let renamed: FastifyInstance;
  let driver: TestDriver;
  const before: { answers?: unknown; review?: unknown; insights?: Insights } = {};
  const today = new Date().toISOString().slice(0, 10);
  const insights = async (app: FastifyInstance) =>
    json<Insights>(await app.inject({ method: 'GET', url: `/admin/insights?from=${today}&to=${today}`, headers: bearer(server.reviewer.key) }));
  const review = async (app: FastifyInstance) =>
    json<{ steps: unknown[] }>(await app.inject({ method: 'GET', url: `/admin/drivers/${driver.driverId}`, headers: bearer(server.reviewer.key) }));

  beforeAll(async () => {
    // A driver who sent every step under the old name, and was asked to fix a field of it.
    server = await startTestServer();
    driver = await verifiedDriver(server.app);
    await sendVehicle(server.app, driver);
    const rejected = await server.app.inject({
      method: 'POST',
      url: `/admin/drivers/${driver.driverId}/reject`,
      headers: bearer(server.reviewer.key),
      payload: {
        reviewVersion: await reviewVersion(server.app, driver.driverId),
        fixes: [{ step: FROM, field: 'lastName', reason: 'Please write your last name as on your license.' }],
      },
    });
    expect(rejected.statusCode).toBe(200);
    before.answers = json(await server.app.inject({ method: 'GET', url: `/driver/answers/${FROM}`, headers: bearer(driver.token) }));
    before.review = await review(server.app);
    before.insights = await insights(server.app);

    process.env.ONRAMP_CONTENT_DIR = renamedCopy(true);
    vi.resetModules();
    const { buildApp } = await import('../../src/server/app.js');
    renamed = await buildApp(server.config, { db: server.db, now: server.clock.now, logStream: { write: () => undefined } });
    await renamed.ready();
  });
  afterAll(async () => {
    await renamed?.close();
    await server?.close();
  });

  it('counts the step in the insights as before, under its new name', async () => {
    const counts = (answer: Insights, rename: boolean) =>
      answer.steps.map(({ step, completed, stalled }) => ({ step: rename && step === FROM ? TO : step, completed, stalled }));
    const after = await insights(renamed);
    expect(after.steps.find((step) => step.step === TO)?.completed).toBe(1);
    expect(counts(after, false)).toEqual(counts(before.insights!, true));
  });

  it('gives the driver their answers and the fix asked under the new name', async () => {
    const answers = json(await renamed.inject({ method: 'GET', url: `/driver/answers/${TO}`, headers: bearer(driver.token) }));
    expect(answers).toEqual(before.answers);
    expect(answers.fixes).toEqual([{ field: 'lastName', reason: 'Please write your last name as on your license.' }]);
  });

  it('shows the reviewer the same answers, the sensitive one still sealed for the driver alone', async () => {
    const renamedStep = (steps: unknown[]) => JSON.parse(JSON.stringify(steps).replaceAll(`"${FROM}"`, `"${TO}"`)) as unknown[];
    expect((await review(renamed)).steps).toEqual(renamedStep((before.review as { steps: unknown[] }).steps));
    const { rows } = await server.db.query<{ answers: Record<string, unknown> }>('SELECT answers FROM step_answers WHERE driver_id = $1 AND step = $2', [
      driver.driverId,
      TO,
    ]);
    expect(openAnswers(renamed.cipher, driver.driverId, TO, rows[0]!.answers).SSN).toBe(profileValues().SSN);
  });
});
