// Every route of the API, driven with generated junk (fast-check): odd path parameters and
// queries, every kind of token, JSON of any shape, bodies that only look like forms, control
// characters and unpaired surrogates in every field. Whatever comes in, the answer is never a 5xx, and every refusal
// carries a `{ message }`. A failure prints the seed and the smallest request that broke it.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/node/projectFiles.js';
import { CONFIG_PLACEHOLDER } from '../../src/server/routes/static.js';
import {
  approvedDriver,
  bearer,
  integration,
  signUp,
  staffKey,
  staffSession,
  startTestServer,
  uploadVehicleImages,
  verifiedDriver,
  verifyPhone,
  type TestServer,
} from '../support/server.js';
import { scaled } from '../support/machineSpeed.js';

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
  // A built page: junk that leaves a route (a ".." parameter, a path the URL parser folds into a
  // page's) is answered the page, which must hold up too, not 503 for a build the test never made.
  await mkdir(server.config.staticDir, { recursive: true });
  await writeFile(join(server.config.staticDir, 'index.html'), `<!doctype html><html lang="en"><head>${CONFIG_PLACEHOLDER}</head><body></body></html>`);
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
  // An integration's key, and a launch link of its: junk reaches its routes' checks too.
  const partner = await integration(app);
  const { rows: partnerKeys } = await server.db.query<{ id: string }>('SELECT id FROM integration_keys WHERE integration_id = $1', [partner.id]);
  // A webhook endpoint (on a port nothing listens on), so junk reaches its deliveries, resend and replay.
  const hook = await app.inject({ method: 'POST', url: '/admin/webhooks', headers: bearer(everyRole.key), payload: { url: 'http://127.0.0.1:9/hooks' } });
  const endpointId = (hook.json() as { endpoint: { id: string } }).endpoint.id;
  tokens = [signingUp.signUpToken, driver.token, paid.token, server.reviewer.key, everyRole.key, officer.token, partner.key, 'A'.repeat(43), 'onramp-key-'];
  ids = [driver.driverId, paid.driverId, vehicleId, rows[0]!.id, other.id, keys[0]!.id, partner.id, partnerKeys[0]!.id, endpointId];
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
    '2147483648',
    '9223372036854775808',
    'NaN',
    '+12025550143',
    '2025550143',
    '1234',
    'x'.repeat(5000),
    '😀'.repeat(300),
  ),
);
/** Numbers just past what PostgreSQL stores (integer, bigint), past exact doubles, and the largest double: what a column refuses with an error. */
const edgeNumber = fc.constantFrom(2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2, 2 ** 63, 1e20, Number.MAX_VALUE, -Number.MAX_VALUE);
const junkValue: fc.Arbitrary<unknown> = fc.oneof(
  junkText,
  fc.integer(),
  fc.double(),
  edgeNumber,
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

/** Text that is not Unicode: a lone half of a surrogate pair (valid JSON: "\\ud800"), or a pair the wrong way round, anywhere in a text. */
const illFormedText = fc
  .tuple(fc.string({ maxLength: 8 }), fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '\ude00\ud83d'), fc.string({ maxLength: 8 }))
  .map(([before, broken, after]) => `${before}${broken}${after}`);
const ILL_FORMED_MESSAGE = 'Some of the text you sent has characters that can’t be read. Please type it again.';

/** A JSON body of a route's fields with ill-formed text somewhere in it: a value, a list's item, a nested key. */
const illFormedBody = (fields: string[]) =>
  fc
    .tuple(
      fc.dictionary(fc.constantFrom(...fields), junkValue, { maxKeys: 4 }),
      fc.constantFrom(...fields),
      fc.oneof(
        illFormedText,
        illFormedText.map((text) => [text]),
        illFormedText.map((text) => ({ [text]: 'x' })),
      ),
    )
    .map(([body, field, broken]) => JSON.stringify({ ...body, [field]: broken }))
    // A "__proto__" or "constructor" key at any depth is refused by the JSON parsing itself, before the text is read.
    .filter((text) => !text.includes('"__proto__"') && !text.includes('"constructor"'));

describe('every API route, driven with junk', () => {
  it('has routes to drive', () => {
    expect(app.apiRoutes.length).toBeGreaterThan(20);
  });

  it(
    'answers no request with a 5xx, and every refusal with a message',
    async () => {
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
    },
    scaled(240_000),
  );

  it(
    'refuses text that is not Unicode (unpaired surrogates) with 400 and a message, in any JSON body of any route',
    async () => {
      const routes = app.apiRoutes.filter((route) => route.method === 'POST' && !route.url.includes('webhook'));
      expect(routes.length).toBeGreaterThan(10);
      for (const { method, url } of routes) {
        await fc.assert(
          // Without the names JSON parsing refuses on their own ("__proto__": not valid JSON).
          fc.asyncProperty(
            illFormedBody(fieldsOf(url).filter((field) => field !== '__proto__' && field !== 'constructor')),
            fc.constantFrom(...tokens),
            async (payload, token) => {
              const path = url.replace(/:(\w+)/g, () => ids[0]!);
              const response = await app.inject({ method, url: path, headers: { ...bearer(token), 'content-type': 'application/json' }, payload });
              // A caller the route does not take is turned away first (the admin API checks its token on arrival); anyone else is told about the text.
              const refusedCaller = response.statusCode === 401 || response.statusCode === 403;
              expect(refusedCaller ? 400 : response.statusCode, `${method} ${url}: ${response.body.slice(0, 200)}`).toBe(400);
              if (refusedCaller) expect(typeof response.json().message).toBe('string');
              else expect(response.json(), `${method} ${url}`).toEqual({ message: ILL_FORMED_MESSAGE });
            },
          ),
          { numRuns: Math.ceil(RUNS_PER_ROUTE / 4) },
        );
      }
    },
    scaled(120_000),
  );

  it('refuses it in a form field sent as UTF-16, whose bytes can hold a lone surrogate', async () => {
    // A driver of its own: the junk above may have signed the shared ones out.
    const driver = await verifiedDriver(app);
    await verifyPhone(app, driver);
    const lone = Buffer.from([0x41, 0x00, 0x00, 0xd8]); // "A" then a lone high surrogate, UTF-16LE
    const payload = Buffer.concat([
      Buffer.from('--xYz\r\nContent-Disposition: form-data; name="firstName"\r\nContent-Type: text/plain; charset=utf-16le\r\n\r\n'),
      lone,
      Buffer.from('\r\n--xYz--\r\n'),
    ]);
    const response = await app.inject({
      method: 'POST',
      url: '/driver/completeProfile',
      headers: { ...bearer(driver.token), 'content-type': 'multipart/form-data; boundary=xYz' },
      payload,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ message: ILL_FORMED_MESSAGE });
  });

  it('refuses it in Spanish to a Spanish reader, and in a bank account’s holder name, which PostgreSQL would refuse to store', async () => {
    const paid = tokens[2]!;
    const response = await app.inject({
      method: 'POST',
      url: '/finance/banks',
      headers: { ...bearer(paid), 'content-type': 'application/json', 'accept-language': 'es' },
      payload: '{"accountHolderName":"Ada \\ud800","accountNumber":"123456789012","routingNumber":"111000025"}',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ message: 'Parte del texto que enviaste tiene caracteres que no se pueden leer. Escríbelo de nuevo, por favor.' });
  });
});
