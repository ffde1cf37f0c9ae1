import { createHash } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp, contentSecurityPolicy } from '../../src/server/app.js';
import { authEmulatorHost } from '../../src/cli/authEmulator.js';
import { urlOf } from '../../src/server/lib/routeTable.js';
import { DECLARED_ROUTES } from '../../src/server/routes/api.js';
import { bearer, json, latestCode, outbox, verifiedDriver, signUp, startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let app: FastifyInstance;
let production: FastifyInstance;

beforeAll(async () => {
  server = await startTestServer();
  app = server.app;
  production = await server.buildAnother({ production: true, firebaseAuthEmulatorHost: null });
});
afterAll(() => server.close());

const LOCAL_CSP =
  "default-src 'self';script-src 'self';style-src 'self' 'unsafe-inline';img-src 'self' blob: data:;" +
  `connect-src 'self' http://${authEmulatorHost()};frame-ancestors 'self';object-src 'none';base-uri 'none'`;

/** Paths past what a route's parameter or a file's name can hold, under API prefixes and not. */
const LONG_PATHS = [`/driver/status/${'a'.repeat(4100)}`, `/driver/${'a/'.repeat(2100)}`, `/admin/drivers/${'9'.repeat(300)}`, `/auth/${'x'.repeat(5000)}`];

async function expectLongPathsNotFound(): Promise<void> {
  for (const url of LONG_PATHS) {
    for (const [language, message] of [
      ['en', 'Not found.'],
      ['es', 'No encontrado.'],
    ]) {
      const response = await app.inject({ method: 'GET', url, headers: { 'accept-language': language!, 'accept-encoding': 'br, gzip' } });
      expect(response.statusCode, url.slice(0, 30)).toBe(404);
      expect(json(response)).toEqual({ message });
    }
  }
}

const page = (target: FastifyInstance, url: string) => target.inject({ method: 'GET', url, headers: { accept: 'text/html,application/xhtml+xml' } });

describe('the web app (dist/)', () => {
  const dist = () => server.config.staticDir;

  it('answers 503 with a message to put a build in STATIC_DIR while its index.html does not exist', async () => {
    await rm(dist(), { recursive: true, force: true });
    const response = await page(app, '/signup');
    expect(response.statusCode).toBe(503);
    expect(json(response)).toEqual({ message: 'The web app is not built yet. Put a build (`npm run build` makes dist/) in STATIC_DIR, then reload.' });
  });

  it('answers a path of over 4,000 characters under an API prefix 404 with a message, as it does once built', async () => {
    await expectLongPathsNotFound();
  });

  describe('once built', () => {
    const INDEX_HTML = '<!doctype html><html><head><!--app-config--></head><body></body></html>';
    beforeAll(async () => {
      await mkdir(join(dist(), 'assets'), { recursive: true });
      await writeFile(join(dist(), 'index.html'), INDEX_HTML);
      await writeFile(join(dist(), 'assets', 'app.js'), 'console.log("onramp")');
    });

    it('serves index.html for any page route, with the runtime configuration filled in', async () => {
      for (const url of ['/', '/signup', '/verify-otp-email', '/3f1c/some%2Ftoken']) {
        const response = await page(app, url);
        expect(response.statusCode, url).toBe(200);
        expect(response.headers['content-type']).toContain('text/html');
        const script = /<script type="application\/json" id="app-config">(.*)<\/script>/.exec(response.body);
        expect(JSON.parse(script?.[1] ?? 'null')).toEqual({
          // The build named by index.html's hash.
          build: createHash('sha256').update(INDEX_HTML).digest('base64url').slice(0, 16),
          firebase: { apiKey: 'demo-api-key', authDomain: 'demo-onramp.firebaseapp.com', projectId: 'demo-onramp' },
          authEmulatorUrl: `http://${authEmulatorHost()}`,
          ipLookupUrl: '/ip',
          payments: { provider: 'sandbox', confirmUrl: '/sandbox/confirmPayment' },
          subscriptionPlan: { amountCents: 19_900, currency: 'usd', interval: 'week' },
          dev: null,
        });
        expect(response.body).not.toContain('<!--app-config-->');
      }
    });

    it('never serves index.html without its configuration', async () => {
      const response = await page(app, '/index.html');
      expect(response.body).toContain('id="app-config"');
    });

    it('has no emulator in the production configuration', async () => {
      const response = await page(production, '/signup');
      expect(response.body).toContain('"authEmulatorUrl":null');
    });

    it('escapes "<" so no configured value can close the script element', async () => {
      const odd = await server.buildAnother({ firebaseProjectId: '</script><script>alert(1)</script>' });
      const response = await page(odd, '/signup');
      expect(response.body).not.toContain('</script><script>alert(1)');
      expect(response.body).toContain('\\u003c/script>');
    });

    it('answers a range past an asset’s end with 416 and a message', async () => {
      const response = await app.inject({ method: 'GET', url: '/assets/app.js', headers: { range: 'bytes=1000-2000' } });
      expect(response.statusCode).toBe(416);
      expect(json(response)).toEqual({ message: 'The request could not be read.' });
    });

    it('serves a built script with the headers that guard a file a page loads, and none only a page needs', async () => {
      const response = await app.inject({ method: 'GET', url: '/assets/app.js' });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe('console.log("onramp")');
      expect(response.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'cross-origin-resource-policy': 'same-origin',
        'referrer-policy': 'no-referrer',
      });
      for (const pageOnly of ['content-security-policy', 'x-frame-options', 'cross-origin-opener-policy', 'origin-agent-cluster', 'x-xss-protection']) {
        expect(response.headers[pageOnly]).toBeUndefined();
      }
    });

    it('serves a picture, which a browser can open as a page, with the page’s CSP', async () => {
      await writeFile(join(dist(), 'assets', 'mark.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
      const response = await app.inject({ method: 'GET', url: '/assets/mark.svg' });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-security-policy']).toBe(LOCAL_CSP);
      expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
    });

    describe('delivered for a slow phone', () => {
      const script = 'export const answer = "the same text, compressed by the build";\n'.repeat(40);
      beforeAll(async () => {
        await mkdir(join(dist(), 'assets', 'chunks'), { recursive: true });
        await writeFile(join(dist(), 'assets', 'chunks', 'StepPage-ABCD2345.js'), script);
        await writeFile(join(dist(), 'assets', 'chunks', 'StepPage-ABCD2345.js.br'), brotliCompressSync(script));
        await writeFile(join(dist(), 'assets', 'chunks', 'StepPage-ABCD2345.js.gz'), gzipSync(script));
        await writeFile(join(dist(), 'assets', 'welcome.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
        await writeFile(
          join(dist(), 'route-preloads.json'),
          JSON.stringify({
            '/signup': {
              en: ['/assets/chunks/StepPage-ABCD2345.js', '/assets/chunks/signup-WXYZ2345.js'],
              es: ['/assets/chunks/StepPage-ABCD2345.js', '/assets/chunks/signup.es-WXYZ6789.js', '/assets/chunks/onboarding.flow-EFGH2345.js'],
            },
            '/:id/:token': { en: ['/assets/chunks/ResumeScreen-QRST2345.js'], es: ['/assets/chunks/ResumeScreen-QRST2345.js'] },
            '/verify-otp-email': { en: [], es: [] },
          }),
        );
        await writeFile(join(dist(), 'index.html'), '<!doctype html><html><head><!--app-config--><!--route-preload--></head><body></body></html>');
      });
      const asset = (url: string, acceptEncoding?: string) =>
        app.inject({ method: 'GET', url, headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} });

      it('sends the build’s Brotli or gzip form by what the browser accepts, and says it varies by that', async () => {
        const br = await asset('/assets/chunks/StepPage-ABCD2345.js', 'gzip, deflate, br');
        expect(br.headers['content-encoding']).toBe('br');
        expect(brotliDecompressSync(br.rawPayload).toString()).toBe(script);
        const gz = await asset('/assets/chunks/StepPage-ABCD2345.js', 'gzip');
        expect(gz.headers['content-encoding']).toBe('gzip');
        expect(gunzipSync(gz.rawPayload).toString()).toBe(script);
        const plain = await asset('/assets/chunks/StepPage-ABCD2345.js');
        expect(plain.headers['content-encoding']).toBeUndefined();
        expect(plain.body).toBe(script);
        for (const response of [br, gz, plain]) expect(response.headers.vary).toContain('accept-encoding');
      });

      it('lets a browser keep a script named by its contents for a year, and asks again for the rest and the page', async () => {
        const script = await asset('/assets/chunks/StepPage-ABCD2345.js', 'br');
        expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
        // Never asked again, so never revalidated.
        expect(script.headers.etag).toBeUndefined();
        expect(script.headers['last-modified']).toBeUndefined();
        const picture = await asset('/assets/welcome.svg');
        expect(picture.headers['cache-control']).toBe('no-cache');
        expect(picture.headers.etag).toBeDefined();
        expect((await app.inject({ method: 'GET', url: '/assets/welcome.svg', headers: { 'if-none-match': String(picture.headers.etag) } })).statusCode).toBe(
          304,
        );
        expect((await page(app, '/signup')).headers['cache-control']).toBe('no-cache');
      });

      it('compresses the page by what the browser accepts, and answers a revalidation of the same page 304 with no body', async () => {
        const send = (headers: Record<string, string>) => app.inject({ method: 'GET', url: '/signup', headers: { accept: 'text/html', ...headers } });
        const plain = await send({});
        const br = await send({ 'accept-encoding': 'gzip, deflate, br' });
        expect(br.headers['content-encoding']).toBe('br');
        expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
        const gz = await send({ 'accept-encoding': 'gzip' });
        expect(gz.headers['content-encoding']).toBe('gzip');
        expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
        for (const response of [plain, br, gz]) expect(response.headers.vary).toContain('accept-encoding');

        const etag = String(plain.headers.etag);
        const again = await send({ 'if-none-match': etag, 'accept-encoding': 'br' });
        expect(again.statusCode).toBe(304);
        expect(again.body).toBe('');
        expect(again.headers['cache-control']).toBe('no-cache');
        expect((await send({ 'if-none-match': `W/"another", ${etag}` })).statusCode).toBe(304);
        // Another page (its own preloads), or a page changed since: sent whole.
        expect((await app.inject({ method: 'GET', url: '/verify-otp-email', headers: { accept: 'text/html', 'if-none-match': etag } })).statusCode).toBe(200);
        expect((await send({ 'if-none-match': 'W/"an older page"' })).statusCode).toBe(200);
      });

      it('preloads the scripts of the page’s own step with the page, so none waits for another', async () => {
        expect((await page(app, '/signup')).body).toContain(
          '<link rel="modulepreload" href="/assets/chunks/StepPage-ABCD2345.js" /><link rel="modulepreload" href="/assets/chunks/signup-WXYZ2345.js" />',
        );
        expect((await page(app, '/3f1c/some-token')).body).toContain('<link rel="modulepreload" href="/assets/chunks/ResumeScreen-QRST2345.js" />');
        for (const url of ['/verify-otp-email', '/not-a-step']) {
          const other = (await page(app, url)).body;
          expect(other).not.toContain('modulepreload');
          expect(other).not.toContain('<!--route-preload-->');
        }
      });

      it('preloads the step’s form and texts in the language the browser asks for', async () => {
        const spanish = await app.inject({ method: 'GET', url: '/signup', headers: { accept: 'text/html', 'accept-language': 'es-MX,es;q=0.9,en;q=0.5' } });
        expect(spanish.body).toContain(
          '<link rel="modulepreload" href="/assets/chunks/signup.es-WXYZ6789.js" /><link rel="modulepreload" href="/assets/chunks/onboarding.flow-EFGH2345.js" />',
        );
        expect(spanish.body).not.toContain('signup-WXYZ2345.js');
        expect(spanish.headers.vary).toContain('accept-language');
        const unknown = await app.inject({ method: 'GET', url: '/signup', headers: { accept: 'text/html', 'accept-language': 'fr-FR' } });
        expect(unknown.body).toContain('<link rel="modulepreload" href="/assets/chunks/signup-WXYZ2345.js" />');
      });
    });

    it('sends the CSP, no-referrer and nosniff with every page', async () => {
      const response = await page(app, '/signup');
      expect(response.headers['content-security-policy']).toBe(LOCAL_CSP);
      expect(response.headers['referrer-policy']).toBe('no-referrer');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
    });

    it('lets production pages talk to Firebase Auth, not the emulator, over HSTS', async () => {
      const response = await page(production, '/signup');
      const csp = String(response.headers['content-security-policy']);
      expect(csp).toContain("connect-src 'self' https://identitytoolkit.googleapis.com https://securetoken.googleapis.com;");
      expect(response.headers['cross-origin-opener-policy']).toBe('same-origin-allow-popups');
      expect(csp).not.toContain(authEmulatorHost());
      expect(response.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    });

    it.each(['/auth/nothing', '/driver/nothing', '/dev/nothing', '/ip/more'])('answers 404 JSON, never the page, for the API path %s', async (url) => {
      const response = await page(app, url);
      expect(response.statusCode).toBe(404);
      expect(json(response)).toEqual({ message: 'Not found.' });
      expect(response.headers['cache-control']).toBe('no-store');
    });

    it('gives the API’s answers the REST set of headers, not a page’s (OWASP REST Security Cheat Sheet)', async () => {
      for (const [server, hsts] of [
        [app, undefined],
        [production, 'max-age=31536000; includeSubDomains'],
      ] as const) {
        const response = await server.inject({ method: 'GET', url: '/driver/status/3f1c2d4e-0000-4000-8000-00000000abcd' });
        expect(response.statusCode).toBe(401);
        expect(response.headers).toMatchObject({
          'content-security-policy': "default-src 'none';frame-ancestors 'none'",
          'x-frame-options': 'DENY',
          'x-content-type-options': 'nosniff',
          'cross-origin-resource-policy': 'same-origin',
          'referrer-policy': 'no-referrer',
          'cache-control': 'no-store',
        });
        expect(response.headers['strict-transport-security']).toBe(hsts);
        for (const pageOnly of ['cross-origin-opener-policy', 'origin-agent-cluster', 'x-dns-prefetch-control', 'x-download-options', 'x-xss-protection']) {
          expect(response.headers[pageOnly]).toBeUndefined();
        }
      }
    });

    it('answers a path of over 4,000 characters under an API prefix 404 with a message, as before it was built', async () => {
      // Past find-my-way's longest path parameter no API route matches, and the static files' handler
      // refused such a path with 403 "The request could not be read.".
      await expectLongPathsNotFound();
    });

    it('answers 404 JSON to a request that does not want HTML', async () => {
      for (const [url, accept] of [
        ['/no-such-file.png', 'image/png'],
        ['/signup', 'application/json'],
        ['/signup', 'text/html;q=0, */*'],
      ] as const) {
        const response = await app.inject({ method: 'GET', url, headers: { accept } });
        expect(response.statusCode, `${url} ${accept}`).toBe(404);
        expect(json(response)).toEqual({ message: 'Not found.' });
      }
    });

    it('answers the page to a request that takes any type, or says nothing of types (curl, a link preview, an uptime check)', async () => {
      for (const headers of [{ accept: '*/*' }, { accept: 'text/*' }, {}]) {
        const response = await app.inject({ method: 'GET', url: '/signup', headers });
        expect(response.statusCode, JSON.stringify(headers)).toBe(200);
        expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(response.body).toContain('id="app-config"');
      }
    });

    it('answers a missing file 404 JSON to a script or a picture that takes any type, the page only to a visit that asks for HTML', async () => {
      for (const url of ['/assets/chunks/gone-ABCD2345.js', '/no-such-file.png']) {
        const response = await app.inject({ method: 'GET', url, headers: { accept: 'image/avif,image/webp,*/*;q=0.8' } });
        expect(response.statusCode, url).toBe(404);
        expect(json(response)).toEqual({ message: 'Not found.' });
      }
      expect((await page(app, '/index.html')).statusCode).toBe(200);
    });
  });
});

describe("the API's route tables (routes/api.ts), which the lint reads", () => {
  it('are the routes the server registers, each with the parts of its path it reads (the live-edit stream is there under npm run dev alone)', () => {
    const registered = app.apiRoutes.filter((route) => route.method !== 'HEAD').map((route) => `${route.method} ${route.url} [${route.params.join(', ')}]`);
    const declared = DECLARED_ROUTES.map((route) => `${route.method} ${urlOf(route, app.callReader.flow)} [${(route.params ?? []).join(', ')}]`);
    expect(registered.sort()).toEqual(declared.filter((route) => !route.startsWith('GET /dev/events ')).sort());
  });

  it('leave out of a production server the local helpers', () => {
    const registered = production.apiRoutes.filter((route) => route.method !== 'HEAD').map((route) => `${route.method} ${route.url}`);
    const declared = DECLARED_ROUTES.map((route) => `${route.method} ${urlOf(route, production.callReader.flow)}`);
    expect(registered.sort()).toEqual(declared.filter((route) => !route.includes(' /dev/')).sort());
  });
});

describe('GET /ip', () => {
  it('answers the address the request came from', async () => {
    const response = await app.inject({ method: 'GET', url: '/ip', remoteAddress: '198.51.100.4' });
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ ip: '198.51.100.4' });
  });

  it('ignores X-Forwarded-For unless the server is told it is behind a proxy', async () => {
    const response = await app.inject({ method: 'GET', url: '/ip', remoteAddress: '198.51.100.4', headers: { 'x-forwarded-for': '1.1.1.1' } });
    expect(json(response).ip).toBe('198.51.100.4');
  });
});

describe('GET /dev/outbox', () => {
  it('lists the codes sent, newest first, as { channel, to, code, text, sentAt }', async () => {
    const driver = await verifiedDriver(app);
    await app.inject({ method: 'POST', url: '/auth/sendPhoneOTP', headers: bearer(driver.token), payload: { phoneNo: driver.phone } });
    const entries = await outbox(app);
    expect(entries[0]).toEqual({
      channel: 'sms',
      to: driver.phone,
      code: expect.stringMatching(/^\d{4}$/),
      text: expect.stringMatching(/^Your Onramp code is \d{4}\. It expires in 10 minutes\.$/),
      sentAt: expect.any(String),
    });
    expect(entries[1]).toMatchObject({ channel: 'email', to: driver.email });
    expect(Date.parse(entries[0]!.sentAt)).toBeGreaterThanOrEqual(Date.parse(entries[1]!.sentAt));
    expect(await latestCode(app, driver.phone)).toBe((entries[0] as { code: string }).code);
  });

  it('is not there in production', async () => {
    const response = await production.inject({ method: 'GET', url: '/dev/outbox' });
    expect(response.statusCode).toBe(404);
    expect(json(response)).toEqual({ message: 'Not found.' });
  });

  it('receives nothing from a production server (no adapter yet), which still answers the driver', async () => {
    const driver = await signUp(app);
    const before = (await outbox(app)).length;
    const response = await production.inject({ method: 'POST', url: '/auth/sendOTP', headers: bearer(driver.signUpToken), payload: { email: driver.email } });
    expect(response.statusCode).toBe(201);
    expect((await outbox(app)).length).toBe(before);
  });
});

describe('the error handler', () => {
  it('answers a fault with "Something went wrong." and keeps the details in the log only', async () => {
    const faulty = await buildApp(server.config, { db: server.db, now: server.clock.now, logStream: { write: (line) => void server.logs.push(line) } });
    faulty.get('/driver/fault', async () => {
      throw new Error('database exploded at row 42');
    });
    await faulty.ready();
    try {
      const response = await faulty.inject({ method: 'GET', url: '/driver/fault' });
      expect(response.statusCode).toBe(500);
      expect(json(response)).toEqual({ message: 'Something went wrong.' });
      expect(response.body).not.toContain('exploded');
      expect(server.logs.some((line) => line.includes('database exploded at row 42'))).toBe(true);
    } finally {
      await faulty.close();
    }
  });

  it('answers an unsupported content type with 415 and a message', async () => {
    const response = await app.inject({ method: 'POST', url: '/auth/sendOTP', headers: { 'content-type': 'application/xml' }, payload: '<email/>' });
    expect(response.statusCode).toBe(415);
    expect(json(response).message).toBe('Unsupported content type: send JSON or a multipart form.');
  });

  it('answers plain text where JSON is expected with 400', async () => {
    const response = await app.inject({ method: 'POST', url: '/auth/signIn', headers: { 'content-type': 'text/plain' }, payload: 'idToken=x' });
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('The request body must be a JSON object.');
  });

  it('refuses a "constructor" key as unknown rather than taking it for a known field', async () => {
    const response = await app.inject({ method: 'POST', url: '/auth/signIn', payload: { idToken: 'x', constructor: 1 } });
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('Unknown field: constructor');
  });
});

describe('contentSecurityPolicy', () => {
  it('allows the emulator origin configured, not a fixed one', () => {
    expect(contentSecurityPolicy({ ...server.config, firebaseAuthEmulatorHost: '127.0.0.1:9199' })['connect-src']).toEqual(["'self'", 'http://127.0.0.1:9199']);
  });

  it("lets in Stripe's script, frames and API only when Stripe is configured", () => {
    expect(JSON.stringify(contentSecurityPolicy(server.config))).not.toContain('stripe.com');
    const stripe = contentSecurityPolicy({
      ...server.config,
      payments: { kind: 'stripe', secretKey: 'sk_test_x', publishableKey: 'pk_test_x', priceId: 'price_x', webhookSecret: null },
    });
    expect(stripe['script-src']).toEqual(["'self'", 'https://js.stripe.com']);
    expect(stripe['frame-src']).toEqual(["'self'", 'https://js.stripe.com', 'https://hooks.stripe.com']);
    expect(stripe['connect-src']).toContain('https://api.stripe.com');
  });
});
