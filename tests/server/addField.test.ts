// The guide's "Add a field" example (docs/authoring.md), made as written on a copy of the
// project's content, with a second field marked "sensitive": true beside it. No server code knows
// either field, yet the server checks them, stores them with the step's answers, shows them to
// reviewers under their titles (on the review page too, in Chromium), and never keeps the
// sensitive one readable, not even in the database files of its data folder.
//
// The server reads its content folder (ONRAMP_CONTENT_DIR) once, when src/node/projectFiles.ts
// is first imported: this file imports nothing of the server statically, and loads it only once
// the variable names the copy.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CONTENT_FOLDERS } from '../../src/node/projectFiles.js';
import type { ReviewDriver, StepAnswersAnswer } from '../../src/shared/review.js';
import { applyGuideEdits, guideExample } from '../support/guideExamples.js';
import type { TestDriver, TestServer } from '../support/server.js';

const PROJECT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The guide's field, and a value of it found nowhere else. */
const COLOR = 'Zircon Teal';
/** The second field: sensitive. Only its last four characters may be shown. */
const POLICY_FIELD = 'insurancePolicyNumber';
const POLICY_TITLE = 'Insurance Policy Number';
const POLICY = 'PN-7395018264';
const POLICY_MASK = '•••••8264';

/** Adds the sensitive field the way the guide adds one: the schema, the UI schema (title and order) and the call's payload. */
function addSensitiveField(root: string): void {
  const edit = (file: string, change: (json: Record<string, any>) => void) => {
    const path = join(root, file);
    const json = JSON.parse(readFileSync(path, 'utf8')) as Record<string, any>;
    change(json);
    writeFileSync(path, `${JSON.stringify(json, null, 2)}\n`);
  };
  edit('schemas/vehicle.schema.json', (schema) => {
    schema.properties[POLICY_FIELD] = {
      $ref: 'common.schema.json#/$defs/plainText',
      sensitive: true,
      maxLength: 30,
      errorMessage: { maxLength: 'Policy number must be at most 30 characters.' },
    };
  });
  edit('schemas/vehicle.ui.json', (ui) => {
    const order = ui['ui:order'] as string[];
    order.splice(order.indexOf('vehicleColor') + 1, 0, POLICY_FIELD);
    ui[POLICY_FIELD] = { 'ui:title': POLICY_TITLE };
  });
  edit('flows/onboarding.flow.json', (flow) => {
    flow.calls.completeVehicle.payload[POLICY_FIELD] = { from: `form.${POLICY_FIELD}` };
  });
}

/** Every file under a folder, however deep. */
async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) return filesUnder(path);
      return Promise.resolve(entry.isFile() ? [path] : []);
    }),
  );
  return nested.flat();
}

let content: string;
let changed: string[];
let support: typeof import('../support/server.js');
let server: TestServer;
let serverStopped = false;
let driver: TestDriver;
let vehicleId: string;
const contentDirBefore = process.env.ONRAMP_CONTENT_DIR;

beforeAll(async () => {
  content = mkdtempSync(join(tmpdir(), 'onramp-add-field-'));
  for (const path of [...CONTENT_FOLDERS, 'tests/fixtures']) cpSync(join(PROJECT, path), join(content, path), { recursive: true });
  changed = applyGuideEdits(content, guideExample('add-field'));
  addSensitiveField(content);
  process.env.ONRAMP_CONTENT_DIR = content;
  vi.resetModules();
  support = await import('../support/server.js');
  // The database in DATA_DIR, as `npm start` keeps it: the last test reads its files.
  server = await support.startTestServer({ staticDir: join(PROJECT, 'dist') }, { databaseOnDisk: true });
  driver = await support.verifiedDriver(server.app);
  vehicleId = await support.uploadVehicleImages(server.app, driver);
});

afterAll(async () => {
  if (server && !serverStopped) await server.close();
  else if (server) await rm(server.config.dataDir, { recursive: true, force: true });
  if (content) rmSync(content, { recursive: true, force: true });
  if (contentDirBefore === undefined) delete process.env.ONRAMP_CONTENT_DIR;
  else process.env.ONRAMP_CONTENT_DIR = contentDirBefore;
  // The server tests share their modules within a worker: the next file must read the project's content again.
  vi.resetModules();
});

const sendVehicle = (values: Record<string, string>) =>
  support.post(server.app, '/driver/completeVehicle', driver.token, support.formData(support.vehicleValues(vehicleId, values)));

describe('a field added as docs/authoring.md shows, and a sensitive one beside it', () => {
  it('is added on a copy of the content, which the server reads', async () => {
    expect(changed).toEqual([
      'schemas/vehicle.schema.json',
      'schemas/vehicle.ui.json',
      'flows/onboarding.flow.json',
      'tests/fixtures/addVehicle/invalid/color-too-long.json',
    ]);
    const { CONTENT_ROOT, loadSchema } = await import('../../src/node/projectFiles.js');
    expect(CONTENT_ROOT).toBe(content);
    expect(Object.keys(loadSchema('vehicle').properties as object)).toEqual(expect.arrayContaining(['vehicleColor', POLICY_FIELD]));
    // The project's own files are untouched.
    expect(readFileSync(join(PROJECT, 'schemas', 'vehicle.schema.json'), 'utf8')).not.toContain('vehicleColor');
  });

  it('is checked by the rule the guide gives it, with its message', async () => {
    const response = await sendVehicle({ vehicleColor: 'Silver with blue trim' });
    expect(response.statusCode).toBe(400);
    const message = 'Vehicle color must be at most 20 characters.';
    expect(support.json(response)).toEqual({ message, errors: { vehicleColor: [message] } });
    const tooLong = await sendVehicle({ vehicleColor: COLOR, [POLICY_FIELD]: 'P'.repeat(31) });
    expect(support.json(tooLong).message).toBe('Policy number must be at most 30 characters.');
  });

  it('is stored with the step’s answers, the sensitive one sealed', async () => {
    const response = await sendVehicle({ vehicleColor: COLOR, [POLICY_FIELD]: POLICY });
    expect(response.statusCode, response.body).toBe(200);
    expect(support.json(response)).toEqual({ success: true, message: 'Your profile and vehicle were sent for approval.' });
    const { rows } = await server.db.query<{ answers: Record<string, unknown>; text: string }>(
      "SELECT answers, row_to_json(a)::text AS text FROM step_answers a WHERE driver_id = $1 AND step = 'addVehicle'",
      [driver.driverId],
    );
    expect(rows[0]!.answers).toMatchObject({
      vehicleMake: 'Toyota',
      plateNumber: 'ABC1234',
      vehicleColor: COLOR,
      [POLICY_FIELD]: { $sealed: expect.any(String), $masked: POLICY_MASK, $fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/) },
    });
    expect(rows[0]!.text).not.toContain(POLICY);
    expect(rows[0]!.text).not.toContain(POLICY.slice(0, -4));
  });

  it('is shown to reviewers under its step, with the UI schema’s title and in its order, the sensitive one masked', async () => {
    const response = await server.app.inject({ method: 'GET', url: `/admin/drivers/${driver.driverId}`, headers: support.bearer(server.reviewer.key) });
    expect(response.statusCode).toBe(200);
    expect(response.body).not.toContain(POLICY.slice(0, -4));
    const step = support.json<ReviewDriver>(response).steps.find((each) => each.step === 'addVehicle')!;
    expect(step.title).toBe('Add vehicle');
    const fields = step.fields.map((field) => field.field);
    expect(fields.slice(fields.indexOf('plateNumber'), fields.indexOf('plateNumber') + 4)).toEqual([
      'plateNumber',
      'vehicleColor',
      POLICY_FIELD,
      'isWheelChairAccessible',
    ]);
    expect(step.fields.find((field) => field.field === 'vehicleColor')).toEqual({
      field: 'vehicleColor',
      title: 'Color',
      kind: 'text',
      value: COLOR,
      changed: false,
    });
    expect(step.fields.find((field) => field.field === POLICY_FIELD)).toEqual({
      field: POLICY_FIELD,
      title: POLICY_TITLE,
      kind: 'sensitive',
      value: POLICY_MASK,
      changed: false,
    });
  });

  it('comes back masked to prefill the driver’s form', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/driver/answers/addVehicle', headers: support.bearer(driver.token) });
    expect(response.statusCode).toBe(200);
    expect(support.json<StepAnswersAnswer>(response).answers).toMatchObject({ vehicleColor: COLOR, [POLICY_FIELD]: POLICY_MASK });
    expect(response.body).not.toContain(POLICY.slice(0, -4));
  });

  it('is shown on the review page in Chromium, the sensitive one masked', { tags: ['chromium'] }, async () => {
    const baseUrl = await server.app.listen({ host: '127.0.0.1', port: 0 });
    const { launchTestChromium } = await import('../../tools/chromium.js');
    const browser = await launchTestChromium();
    try {
      const admin = await browser.newPage({ baseURL: baseUrl, viewport: { width: 1280, height: 900 } });
      await admin.goto('/admin');
      const reviewer = await support.staffAccount(server.app, ['reviewer']);
      await admin.getByLabel('Email').fill(reviewer.email);
      await admin.getByLabel('Password').fill(reviewer.user.password);
      await admin.getByRole('button', { name: 'Sign in' }).click();
      await admin.getByRole('button', { name: 'Ada Lovelace', exact: true }).click();
      const vehicle = admin.locator('section.admin-step', { has: admin.getByRole('heading', { name: 'Add vehicle' }) });
      await vehicle.getByText(COLOR).waitFor();
      const terms = await vehicle.locator('dt').allTextContents();
      expect(terms.slice(terms.indexOf('Plate Number'), terms.indexOf('Plate Number') + 3)).toEqual(['Plate Number', 'Color', POLICY_TITLE]);
      await vehicle.getByText(POLICY_MASK).waitFor();
      expect(await admin.content()).not.toContain(POLICY.slice(0, -4));
    } finally {
      await browser.close();
    }
  });

  it('leaves the sensitive value in no file of the data folder, where the database and the uploads live', async () => {
    const dataDir = server.config.dataDir;
    // Stopped, as a backup or a stolen disk finds it: everything the database holds is written out.
    await server.app.close();
    await server.db.close();
    serverStopped = true;
    const files = await filesUnder(dataDir);
    expect(files.some((path) => path.startsWith(join(dataDir, 'pglite')))).toBe(true);
    const holding = async (text: string) => {
      const found: string[] = [];
      for (const path of files) if ((await readFile(path)).includes(Buffer.from(text))) found.push(path);
      return found;
    };
    // The search reaches the answers: the plain field is there, in the database's files.
    expect((await holding(COLOR)).some((path) => path.startsWith(join(dataDir, 'pglite')))).toBe(true);
    expect(await holding(POLICY)).toEqual([]);
    expect(await holding(POLICY.slice(0, -4))).toEqual([]);
    // Nor in what the server logged.
    expect(server.logs.join('\n')).not.toContain(POLICY.slice(0, -4));
  });
});
