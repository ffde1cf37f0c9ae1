// The bad fixture payloads under tests/fixtures/, sent to the server the way the browser sends
// them (the flow's payload mapping, files as multipart parts): the server refuses each with 400
// and exactly the messages the browser's validator shows (tests/fixtures.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareMessages, firstMessages, listFixtures } from '../../src/cli/fixtures.js';
import { buildPayload, lookupIn, type FormStep } from '../../src/shared/flow.js';
import { loadFlow } from '../../src/shared/projectFiles.js';
import {
  JPEG_BYTES,
  PNG_BYTES,
  TEXT_BYTES,
  bearer,
  signIn,
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

beforeAll(async () => {
  server = await startTestServer();
  driver = await signIn(server.app);
  await verifyPhone(server.app, driver);
  vehicleId = await uploadVehicleImages(server.app, driver);
});
afterAll(async () => {
  await server?.close();
});

/** Bytes that match what an image field's value says the file is. */
function fileFor(contentType: unknown): Blob | undefined {
  if (typeof contentType !== 'string') return undefined;
  const bytes = contentType === 'image/jpeg' ? JPEG_BYTES : contentType === 'image/png' ? PNG_BYTES : TEXT_BYTES;
  return new Blob([new Uint8Array(bytes)], { type: contentType });
}

async function serverMessages(stepId: string, formData: Record<string, unknown>) {
  const step = flow.steps[stepId] as FormStep;
  const call = flow.calls[step.call]!;
  const lookup = lookupIn({
    form: formData,
    context: { ip: null, idToken: 'not-checked-before-the-form' },
    storage: { email: driver.email, phone: driver.phone, vehicle_id: vehicleId },
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
  const response = await server.app.inject({ method: 'POST', url: call.path, headers: bearer(driver.token), payload: body as never });
  const json = response.json() as { message?: string; errors?: Record<string, string[]> };
  return { status: response.statusCode, message: json.message, messages: firstMessages(json.errors ?? {}) };
}

/** The step that renders each schema; the social profile needs a social driver (a later issue). */
const stepOfSchema = Object.fromEntries(
  Object.entries(flow.steps).flatMap(([id, step]) => (step.kind === 'form' ? [[step.schema, id]] : [])),
);

const serverFixtures = listFixtures().filter((f) => !f.valid && stepOfSchema[f.schema]);

describe('bad fixture payloads sent to the server', () => {
  it('cover every step but the social profile', () => {
    expect(new Set(serverFixtures.map((f) => f.schema))).toEqual(new Set(['signup', 'email-code', 'phone-code', 'profile', 'vehicle-images', 'vehicle']));
  });

  it.each(serverFixtures.map((f) => [f.file, f] as const))('%s is refused with the same messages', async (_file, fixture) => {
    const answer = await serverMessages(stepOfSchema[fixture.schema]!, fixture.formData);
    expect(answer.status).toBe(400);
    expect(compareMessages(fixture.errors, answer.messages)).toEqual([]);
    expect(Object.values(fixture.errors)).toContain(answer.message);
  });
});
