// @module-tag chromium
// The form studio (/studio) without `npm run dev`: its data is for staff, who sign in on the page.
// The studio under `npm run dev` (steps, fixtures, live validation) is in dev.test.ts.
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/node/projectFiles.js';
import { bearer, staffAccount, startTestServer, type TestServer } from '../support/server.js';
import { closeContexts, sharedChromium, signInAsStaff } from './support.js';

describe('the form studio without npm run dev', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startTestServer({ staticDir: join(PROJECT_ROOT, 'dist') });
    browser = await sharedChromium();
  });
  afterAll(async () => {
    if (browser) await closeContexts(browser);
    await server?.close();
  });

  it('serves its data to staff only', async () => {
    const without = await server.app.inject({ method: 'GET', url: '/admin/fixtures' });
    expect(without.statusCode).toBe(401);
    expect(without.json()).toEqual({ message: 'Please sign in as a staff member.', reason: 'signInAgain' });
    const withToken = await server.app.inject({ method: 'GET', url: '/admin/fixtures', headers: bearer(server.reviewer.key) });
    expect(withToken.statusCode).toBe(200);
    expect(Array.isArray(withToken.json<{ fixtures: unknown[] }>().fixtures)).toBe(true);
  });

  it('asks staff to sign in, as the review page does', async () => {
    const baseUrl = await server.app.listen({ host: '127.0.0.1', port: 0 });
    const tokenPage = await browser.newPage({ viewport: { width: 390, height: 844 }, baseURL: baseUrl });
    await tokenPage.goto('/studio');
    await tokenPage.getByRole('heading', { name: 'Sign in to preview the forms' }).waitFor();
    const staff = await staffAccount(server.app, ['reviewer']);
    // A wrong password, twice: each try is sent and refused.
    for (let i = 0; i < 2; i++) {
      await signInAsStaff(tokenPage, { email: staff.email, password: 'not-the-password' });
      await tokenPage.getByRole('alert').waitFor();
      expect(await tokenPage.getByRole('alert').textContent()).toBe('The email or password is not right.');
    }

    await signInAsStaff(tokenPage, staff.user);
    await tokenPage.getByRole('navigation', { name: 'Form steps' }).waitFor();
    await tokenPage.close();
  });
});
