import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../support/identity.js';
import { json, startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ authRateLimit: { max: 3, windowMs: 60_000 } });
});
afterAll(() => server.close());

describe('the per-address limit on /auth/*', () => {
  const sendCode = (remoteAddress: string, headers: Record<string, string> = {}) =>
    server.app.inject({ method: 'POST', url: '/auth/sendOTP', remoteAddress, headers, payload: { email: uniqueEmail() } });

  it('answers 429 with a message once an address has used its requests', async () => {
    for (let i = 0; i < 3; i++) expect((await sendCode('198.51.100.20')).statusCode).toBe(201);
    const refused = await sendCode('198.51.100.20');
    expect(refused.statusCode).toBe(429);
    expect(json(refused)).toEqual({ message: 'Too many requests. Please wait a minute and try again.' });
    expect(refused.headers['retry-after']).toBeDefined();
  });

  it('counts the connecting address, not a forged X-Forwarded-For or the ip in the body', async () => {
    for (let i = 0; i < 3; i++) await sendCode('198.51.100.21', { 'x-forwarded-for': `203.0.113.${i}` });
    expect((await sendCode('198.51.100.21', { 'x-forwarded-for': '203.0.113.99' })).statusCode).toBe(429);
  });

  it('leaves other addresses alone', async () => {
    expect((await sendCode('198.51.100.22')).statusCode).toBe(201);
  });

  it('does not limit pages and other APIs', async () => {
    for (let i = 0; i < 5; i++) expect((await server.app.inject({ method: 'GET', url: '/ip', remoteAddress: '198.51.100.20' })).statusCode).toBe(200);
  });
});
