// @module-tag chromium
// A partner's app starts a driver's onboarding with a launch link (docs/launch-links.md): made with
// the integration's key, opened in headless Chromium at 390×844, the sign-up filled in with the
// email and phone it sent; the driver walks every step to the bank and lands back on the partner's
// page with a result whose signature verifies with the integration's signing secret.
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide, integration, json, type TestIntegration } from '../support/server.js';
import {
  addVehicleStep,
  completeProfileStep,
  expectToast,
  latestCode,
  press,
  screenshot,
  startJourney,
  uploadVehicleImagesStep,
  type Journey,
} from './support.js';
import { scaled } from '../support/machineSpeed.js';

let journey: Journey;
let page: Page;
/** The partner's own page the driver returns to, served by the test. */
let partnerSite: Server;
let returnUrl: string;
let partner: TestIntegration;
const email = `launched-${randomUUID().slice(0, 8)}@example.com`;
const phoneDigits = '2025550143';
const externalId = `partner-user-${randomUUID().slice(0, 8)}`;

/** Messages the host app of a web view receives. */
type Posted = { posted: unknown[] };

beforeAll(async () => {
  journey = await startJourney();
  page = journey.page;
  partnerSite = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Partner</title><h1>Back in the partner app</h1>');
  });
  await new Promise<void>((resolve) => partnerSite.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(partnerSite.address() as AddressInfo).port}`;
  returnUrl = `${origin}/onramp/done`;
  partner = await integration(journey.server.app, [returnUrl]);
});
afterAll(async () => {
  await journey?.close();
  await new Promise((resolve) => partnerSite?.close(resolve));
});

describe('a driver sent by a partner’s app with a launch link', () => {
  it('opens the sign-up with the email and phone the partner sent, the token out of the address bar', async () => {
    const made = await journey.server.app.inject({
      method: 'POST',
      url: '/integration/launch-links',
      headers: { authorization: `Bearer ${partner.key}` },
      payload: { email, phone: `+1${phoneDigits}`, externalId, returnUrl: `${returnUrl}?from=onramp` },
    });
    expect(made.statusCode, made.body).toBe(200);
    const link = new URL(json<{ url: string }>(made).url);
    // As inside a React Native web view: what the page posts to its host app is kept.
    await page.addInitScript(() => {
      const posted: unknown[] = [];
      (window as unknown as Posted).posted = posted;
      (window as unknown as { ReactNativeWebView: { postMessage(message: string): void } }).ReactNativeWebView = {
        postMessage: (message) => posted.push(JSON.parse(message)),
      };
    });
    await page.goto(`${link.pathname}${link.hash}`);
    await page.waitForURL('**/signup');
    await page.getByRole('heading', { name: 'Sign up' }).waitFor();
    await expect.poll(() => page.locator('#root_email').inputValue()).toBe(email);
    await expect(page.locator('#root_phoneNo').inputValue()).resolves.toBe(phoneDigits);
    expect(page.url()).not.toContain(link.hash.slice(1));
    await screenshot(page, '60-launch-signup');
  });

  it('still verifies both by their codes, and walks to the approval wait', async () => {
    await page.locator('#root_password').fill('Str0ng!Pass');
    await page.locator('#root_confirmPassword').fill('Str0ng!Pass');
    await page.locator('#root_accept').check();
    await page.locator('#root_twilioCheck').check();
    await press(page, 'Sign Up');
    await page.waitForURL('**/verify-otp-email');
    await page.locator('#root_otp').fill(await latestCode(journey.baseUrl, 'email', email));
    await press(page, 'Continue');
    await page.waitForURL('**/verify-otp-phone');
    await page.locator('#root_otp').fill(await latestCode(journey.baseUrl, 'sms', `+1${phoneDigits}`));
    await press(page, 'Continue');
    await page.waitForURL('**/complete-profile');
    await completeProfileStep(page);
    await page.waitForURL('**/upload-vehicle-images');
    await uploadVehicleImagesStep(page);
    await page.waitForURL('**/add-vehicle');
    await addVehicleStep(page);
    await page.waitForURL('**/awaiting-approval');
  });

  it('once approved, pays, adds the bank, and returns to the partner’s page with a signed result', async () => {
    const { rows } = await journey.server.db.query<{ id: string }>('SELECT id FROM drivers WHERE external_id = $1', [externalId]);
    const driverId = rows[0]!.id;
    expect((await decide(journey.server.app, journey.server.reviewer.key, driverId, 'approve')).statusCode).toBe(200);
    await page.waitForURL('**/profile-approved', { timeout: scaled(30_000) });
    await press(page, 'Continue');
    await page.waitForURL('**/summary');
    await press(page, 'Subscribe Now');
    await page.getByRole('heading', { name: 'Card details' }).waitFor();
    await page.getByLabel('Card number').fill('4242424242424242');
    await page.getByLabel('Expiry date').fill('12 / 34');
    await page.getByLabel('Security code').fill('123');
    await press(page, 'Confirm & Continue');
    await expectToast(page, 'Congrats! Your Subscription is now active');
    await page.getByRole('heading', { name: 'Bank details' }).waitFor();
    await page.locator('#root_accountHolderName').fill('Dana Driver');
    await page.locator('#root_accountNumber').fill('000123456789');
    await page.locator('#root_routingNumber').fill('111000025');
    await press(page, 'Confirm & Continue');

    // The spec's words stay; the way back is a button beside them.
    await page.getByRole('heading', { name: 'Congratulations!' }).waitFor();
    await page.getByText('Tap the close button at the top left to return to the app.').waitFor();
    await screenshot(page, '61-launch-done');
    // The host app is told the same result, so it can close the web view itself.
    await expect
      .poll(() => page.evaluate(() => (window as unknown as Posted).posted))
      .toEqual([
        {
          type: 'onramp:onboarding-complete',
          result: { driverId, externalId, status: 'completed', issuedAt: expect.any(String), signature: expect.any(String) },
        },
      ]);
    const [posted] = (await page.evaluate(() => (window as unknown as Posted).posted)) as { result: Record<string, string> }[];
    await page.getByRole('link', { name: 'Return to the app' }).click();

    await page.waitForURL(`${returnUrl}?**`);
    await page.getByRole('heading', { name: 'Back in the partner app' }).waitFor();
    const back = new URL(page.url());
    expect(`${back.origin}${back.pathname}`).toBe(returnUrl);
    const result = Object.fromEntries(back.searchParams);
    expect(result).toEqual({
      from: 'onramp',
      driverId,
      externalId,
      status: 'completed',
      issuedAt: expect.stringMatching(/^\d+$/),
      signature: expect.any(String),
    });
    // As docs/launch-links.md tells the partner to check it.
    const expected = createHmac('sha256', partner.signingSecret).update(`${driverId}.${externalId}.completed.${result.issuedAt}`).digest('hex');
    expect(result.signature).toBe(expected);
    expect(posted!.result).toEqual({ driverId, externalId, status: 'completed', issuedAt: result.issuedAt, signature: result.signature });
  });
});
