// Every route of the API, driven with generated junk (fast-check): odd path parameters and
// queries, every kind of token, JSON of any shape, bodies that only look like forms, control
// characters in every field. Whatever comes in, the answer is never a 5xx, and every refusal
// carries a `{ message }`. A failure prints the seed and the smallest request that broke it.
import fc from 'fast-check';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/node/projectFiles.js';
import {
  approvedDriver,
  bearer,
  signUp,
  staffKey,
  staffSession,
  startTestServer,
  uploadVehicleImages,
  verifiedDriver,
  verifyPhone,
  type TestServer,
} from '../support/server.js';

const flow = loadFlow();
/** Requests per route: enough to reach every refusal of a route, few enough for a quick `npm test`. */
const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 60);

let server: TestServer;
let app: FastifyInstance;
/** Bearer tokens of every kind a route may meet, and ids that name real rows. */
let tokens: string[];
let ids: string[];

beforeAll(async () => {
  server = await startTestServer();
  app = server.app;
  const signingUp = await signUp(app);
  const driver = await verifiedDriver(app);
  await verifyPhone(app, driver);
  const vehicleId = await uploadVehicleImages(app, driver);
  const paid = await approvedDriver(server);
  await server.db.query('UPDATE drivers SET is_subscription_paid = true WHERE id = $1', [paid.driverId]);
  const { rows } = await server.db.query<{ id: string }>('SELECT id FROM uploads WHERE driver_id = $1 LIMIT 1', [driver.driverId]);
  // Staff of every role, by key and by a fresh session, so junk reaches the checks of every staff route.
  const everyRole = await staffKey(app, ['reviewer', 'privacy-officer', 'owner']);
  const officer = await staffSession(app, ['privacy-officer', 'owner']);
  const other = await staffKey(app, ['reviewer']);
  const { rows: keys } = await server.db.query<{ id: string }>('SELECT id FROM staff_keys WHERE staff_id = $1', [other.id]);
  tokens = [signingUp.signUpToken, driver.token, paid.token, server.reviewer.key, everyRole.key, officer.token, 'A'.repeat(43), 'onramp-key-'];
  ids = [driver.driverId, paid.driverId, vehicleId, rows[0]!.id, other.id, keys[0]!.id];
});
afterAll(() => server?.close());

/** Text a client could send: anything, with the characters and shapes that break servers well represented. */
const junkText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\u0007\u001b[31m',
    '\ud800',
    '%00',
    '../../etc/passwd',
    "' OR '1'='1",
    '<script>x</script>',
    '',
    ' ',
    '-1',
    '1e309',
    'NaN',
    '+12025550143',
    '2025550143',
    '1234',
    'x'.repeat(5000),
    '😀'.repeat(300),
  ),
);
const junkValue: fc.Arbitrary<unknown> = fc.oneof(
  junkText,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(junkText, { maxLength: 3 }),
  fc.dictionary(junkText, junkText, { maxKeys: 3 }),
);

/** The field names a route's call takes (so junk reaches its checks), and a few it must refuse. */
function fieldsOf(url: string): string[] {
  const call = Object.values(flow.calls).find((each) => each.path.replace(/\{(\w+)\}/g, ':$1') === url);
  return [
    ...Object.keys(call?.payload ?? {}),
    ...['reason', 'reviewVersion', 'fixes', 'clientSecret', 'number', '__proto__', 'constructor', 'status'],
    // The staff routes' bodies.
    ...['idToken', 'email', 'roles', 'label', 'confirm'],
  ];
}

/** A multipart body by hand, so it can be wrong in every way a parser meets: boundaries, headers, bytes. */
const multipartBody = (fields: string[]) =>
  fc
    .record({
      boundary: fc.oneof(fc.constant('xYz'), fc.string({ minLength: 1, maxLength: 70 })),
      parts: fc.array(
        fc.record({
          name: fc.oneof(fc.constantFrom(...fields), junkText),
          file: fc.boolean(),
          value: fc.oneof(
            junkText,
            fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
          ),
        }),
        { maxLength: 8 },
      ),
      cut: fc.oneof(fc.constant(undefined), fc.nat({ max: 400 })),
      announced: fc.oneof(fc.constant('xYz'), fc.string({ maxLength: 10 })),
    })
    .map(({ boundary, parts, cut, announced }) => {
      const body = [
        ...parts.map(
          ({ name, file, value }) =>
            `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file ? '; filename="photo.jpg"\r\nContent-Type: image/jpeg' : ''}\r\n\r\n${value}\r\n`,
        ),
        `--${boundary}--\r\n`,
      ].join('');
      return {
        type: `multipart/form-data; boundary=${announced === 'xYz' ? boundary : announced}`,
        payload: Buffer.from(cut === undefined ? body : body.slice(0, cut), 'latin1'),
      };
    });

const bodyFor = (fields: string[]) =>
  fc.oneof(
    fc.dictionary(fc.constantFrom(...fields), junkValue, { maxKeys: 6 }).map((value) => ({ type: 'application/json', payload: JSON.stringify(value) })),
    fc.jsonValue({ maxDepth: 3 }).map((value) => ({ type: 'application/json', payload: JSON.stringify(value) })),
    junkText.map((text) => ({ type: 'application/json', payload: text })),
    multipartBody(fields),
    fc
      .constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data', '')
      .chain((type) => junkText.map((payload) => ({ type, payload }))),
    fc.constant(undefined),
  );

/** Every byte percent-encoded (a lone surrogate too, which encodeURIComponent refuses); raw escapes that decode to nothing pass as they are. */
const RAW_ESCAPES = ['%', '%zz', '%E0%A4%A', '%C0%AF', '..', '.'];
const percentEncoded = (text: string) =>
  RAW_ESCAPES.includes(text) ? text : [...Buffer.from(text)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');

/** A request to `url`: its path parameters, query, token and body all chosen by fast-check. */
const requestFor = (method: string, url: string) =>
  fc
    .record({
      // Mostly real tokens and ids, so the junk gets past the door to the checks behind it.
      params: fc.array(fc.oneof({ arbitrary: fc.constantFrom(...ids), weight: 3 }, fc.constantFrom(...RAW_ESCAPES), junkText), { minLength: 3, maxLength: 3 }),
      query: fc.oneof(
        fc.constant(''),
        fc
          .dictionary(fc.constantFrom('status', 'x', '__proto__', 'q', 'limit', 'action', 'actor', 'driver', 'from', 'to', 'before', 'format'), junkText, {
            maxKeys: 3,
          })
          .map((q) => `?${new URLSearchParams(q as Record<string, string>)}`),
      ),
      token: fc.oneof(fc.constant(undefined), { arbitrary: fc.constantFrom(...tokens), weight: 6 }, junkText),
      body: method === 'GET' || method === 'HEAD' ? fc.constant(undefined) : bodyFor(fieldsOf(url)),
      signature: fc.oneof(fc.constant(undefined), junkText),
    })
    .map(({ params, query, token, body, signature }): InjectOptions => {
      let index = 0;
      const path = url.replace(/:(\w+)/g, () => percentEncoded(params[index++] ?? ''));
      const headers: Record<string, string> = {};
      if (token !== undefined) Object.assign(headers, bearer(token));
      if (body?.type) headers['content-type'] = body.type;
      if (signature !== undefined) headers['stripe-signature'] = signature;
      return { method: method as InjectOptions['method'], url: `${path}${query}`, headers, ...(body ? { payload: body.payload } : {}) };
    });

describe('every API route, driven with junk', () => {
  it('has routes to drive', () => {
    expect(app.apiRoutes.length).toBeGreaterThan(20);
  });

  it('answers no request with a 5xx, and every refusal with a message', async () => {
    // HEAD mirrors GET; the live-edit stream never ends (it is only there under npm run dev).
    const routes = app.apiRoutes.filter((route) => route.method !== 'HEAD' && route.url !== '/dev/events');
    for (const { method, url } of routes) {
      await fc.assert(
        fc.asyncProperty(requestFor(method, url), async (request) => {
          const response = await app.inject(request);
          expect(response.statusCode, `${method} ${url}: ${response.body.slice(0, 200)}`).toBeLessThan(500);
          if (response.statusCode >= 400) expect(typeof (response.json() as { message?: unknown }).message, `${method} ${url}`).toBe('string');
        }),
        { numRuns: RUNS_PER_ROUTE },
      );
    }
  }, 240_000);
});
