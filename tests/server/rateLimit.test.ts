import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ authRateLimit: { max: 3, windowMs: 60_000 } });
});
afterAll(() => server.close());

describe('the per-address limit on /auth/*', () => {
  // A sign-in with a token that is no token: answered 401, and counted like any other request.
  const tryAuth = (remoteAddress: string, headers: Record<string, string> = {}) =>
    server.app.inject({ method: 'POST', url: '/auth/signIn', remoteAddress, headers, payload: { idToken: 'not-a-token' } });

  it('answers 429 with a message once an address has used its requests', async () => {
    for (let i = 0; i < 3; i++) expect((await tryAuth('198.51.100.20')).statusCode).toBe(401);
    const refused = await tryAuth('198.51.100.20');
    expect(refused.statusCode).toBe(429);
    expect(json(refused)).toEqual({ message: 'Too many requests. Please wait a minute and try again.' });
    expect(refused.headers['retry-after']).toBeDefined();
  });

  it('counts the connecting address, not a forged X-Forwarded-For or the ip in the body', async () => {
    for (let i = 0; i < 3; i++) await tryAuth('198.51.100.21', { 'x-forwarded-for': `203.0.113.${i}` });
    expect((await tryAuth('198.51.100.21', { 'x-forwarded-for': '203.0.113.99' })).statusCode).toBe(429);
  });

  it('leaves other addresses alone', async () => {
    expect((await tryAuth('198.51.100.22')).statusCode).toBe(401);
  });

  it('does not limit pages and other APIs', async () => {
    for (let i = 0; i < 5; i++) expect((await server.app.inject({ method: 'GET', url: '/ip', remoteAddress: '198.51.100.20' })).statusCode).toBe(200);
  });
});
