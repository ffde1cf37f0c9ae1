// The bad fixture payloads under tests/fixtures/, sent to the server the way the browser sends
// them (the flow's payload mapping, files as multipart parts) through the real routes: the
// server refuses each with 400 and exactly the messages the fixture lists, which
// tests/fixtures.test.ts checks against the browser's validator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFixture, type Messages } from '../../src/shared/fixtureFiles.js';
import { LOCALES, type Locale } from '../../src/shared/locales.js';
import { listFixtureFiles } from '../../src/node/projectFiles.js';
import { buildPayload, lookupIn, type FormStep } from '../../src/shared/flow.js';
import { loadFlow, readJsonFile, shownPath } from '../../src/node/projectFiles.js';
import {
  JPEG_BYTES,
  PNG_BYTES,
  TEXT_BYTES,
  approvedDriver,
  bearer,
  signUp,
  verifiedDriver,
  startTestServer,
  uploadVehicleImages,
  verifyPhone,
  type TestDriver,
  type TestServer,
} from '../support/server.js';

const flow = loadFlow();
let server: TestServer;
let driver: TestDriver;
let vehicleId: string;
let paidDriver: TestDriver;
/** A sign-up still at its email code: that step's call takes its sign-up token. */
let signingUp: TestDriver;

beforeAll(async () => {
  server = await startTestServer();
  signingUp = await signUp(server.app);
  driver = await verifiedDriver(server.app);
  await verifyPhone(server.app, driver);
  vehicleId = await uploadVehicleImages(server.app, driver);
  // The bank account comes after the paid subscription; paying has its own tests (tests/server/routes/subscription.test.ts).
  paidDriver = await approvedDriver(server);
  await server.db.query('UPDATE drivers SET is_subscription_paid = true WHERE id = $1', [paidDriver.driverId]);
});

const driverFor = (stepId: string) => (stepId === 'addBank' ? paidDriver : stepId === 'verifyEmail' ? { ...signingUp, token: signingUp.signUpToken } : driver);
afterAll(async () => {
  await server?.close();
});

/** Bytes that match what an image field's value says the file is. */
function fileFor(contentType: unknown): Blob | undefined {
  if (typeof contentType !== 'string') return undefined;
  const bytes = contentType === 'image/jpeg' ? JPEG_BYTES : contentType === 'image/png' ? PNG_BYTES : TEXT_BYTES;
  return new Blob([new Uint8Array(bytes)], { type: contentType });
}

async function serverMessages(stepId: string, formData: Record<string, unknown>, locale: Locale) {
  const step = flow.steps[stepId] as FormStep;
  const sender = driverFor(stepId);
  const call = flow.calls[step.call]!;
  const lookup = lookupIn({
    form: formData,
    context: { ip: null, idToken: 'not-checked-before-the-form' },
    storage: { email: sender.email, phone: sender.phone, vehicle_id: vehicleId },
  });
  const payload = buildPayload(call, (source) => (source.startsWith('file.') ? fileFor(formData[source.slice(5)]) : lookup(source)));
  let body: FormData | Record<string, unknown> = payload;
  if (call.encoding === 'multipart') {
    body = new FormData();
    for (const [key, value] of Object.entries(payload)) {
      if (value instanceof Blob) body.append(key, value, `${key}.bin`);
      else if (value !== null && value !== undefined) body.append(key, String(value));
    }
  }
  // As a browser set to the fixture's language asks.
  const headers = { ...bearer(sender.token), 'accept-language': `${locale};q=1, en;q=0.5` };
  const response = await server.app.inject({ method: 'POST', url: call.path, headers, payload: body as never });
  const json = response.json() as { message?: string; errors?: Record<string, string[]> };
  const messages: Messages = {};
  for (const [field, [first]] of Object.entries(json.errors ?? {})) if (first !== undefined) messages[`/${field}`] = first;
  return { status: response.statusCode, message: json.message, messages };
}

// A variant's fixtures stay out: the social profile needs a social driver (a later issue).
const serverFixtures = listFixtureFiles()
  .map((file) => ({ file: shownPath(file), ...parseFixture(readJsonFile(file), flow) }))
  .filter((f) => f.expect === 'invalid' && f.variant === undefined && !(flow.steps[f.step] as FormStep).private);

describe('bad fixture payloads sent to the server', () => {
  it.each(Object.keys(LOCALES))('cover every form step whose answers reach the server, in %s', (locale) => {
    // A private step's answers stay in the browser (the sign-in's go to the identity provider only).
    const formSteps = Object.entries(flow.steps).flatMap(([id, step]) => (step.kind === 'form' && !step.private ? [id] : []));
    expect(new Set(serverFixtures.filter((f) => f.locale === locale).map((f) => f.step))).toEqual(new Set(formSteps));
  });

  it.each(serverFixtures.map((f) => [f.file, f] as const))('%s is refused with the same messages', async (_file, fixture) => {
    const answer = await serverMessages(fixture.step, fixture.data, fixture.locale);
    expect(answer.status).toBe(400);
    expect(answer.messages).toEqual(fixture.errors);
    expect(Object.values(fixture.errors)).toContain(answer.message);
  });
});
