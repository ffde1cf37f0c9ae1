// @module-tag chromium
// An approved driver pays the weekly subscription with the local sandbox's test cards and adds
// the payout bank account (spec §2 Summary, Add Card, Success, Add Bank; §4; §8 Payment), in
// headless Chromium at 390×844.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvedDriver, bearer, json, type TestDriver } from '../support/server.js';
import { contextForTest, expectToast, PHONE_VIEWPORT, press, screenshot, startJourney, type Journey } from './support.js';

let journey: Journey;

beforeAll(async () => {
  journey = await startJourney();
});
afterAll(async () => {
  await journey?.close();
});

/** Messages an embedding app would receive (window.parent and React Native's web view). */
type Posted = { posted: unknown[] };

/** A page signed in as the driver, as the resume link or the earlier steps leave it. */
async function pageFor(driver: TestDriver, viewport = PHONE_VIEWPORT): Promise<Page> {
  const context = await contextForTest(journey, viewport);
  await context.addCookies([{ name: 'token', value: encodeURIComponent(driver.token), url: journey.baseUrl }]);
  await context.addInitScript((id) => {
    localStorage.setItem('driver_id', id);
    const posted: unknown[] = [];
    (window as unknown as Posted).posted = posted;
    (window as unknown as { ReactNativeWebView: { postMessage(message: string): void } }).ReactNativeWebView = {
      postMessage: (message) => posted.push(JSON.parse(message)),
    };
  }, driver.driverId);
  return context.newPage();
}

async function fillCard(page: Page, number: string, expiry = '12 / 34', cvc = '123') {
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry date').fill(expiry);
  await page.getByLabel('Security code').fill(cvc);
}

const stored = (page: Page, key: string) => page.evaluate((name) => localStorage.getItem(name), key);
const fieldError = (page: Page, text: string) => page.locator('.field-error', { hasText: text });

describe('an approved driver subscribes and adds a bank account', () => {
  it('goes from /profile-approved through summary, the 4242 card and /success to the bank form and the final view', async () => {
    const driver = await approvedDriver(journey.server);
    const page = await pageFor(driver);
    await page.goto('/profile-approved');
    await press(page, 'Continue');

    await page.waitForURL('**/summary');
    await page.getByRole('heading', { name: 'Administrative Fees' }).waitFor();
    await page.getByRole('heading', { name: 'Driver' }).waitFor();
    await page.getByText('$199/week', { exact: true }).waitFor();
    await screenshot(page, '20-summary');

    // Hold the subscription call back a little, to see the skeleton while it is being created.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/subscription/createStripeSub', async (route) => {
      await held;
      await route.continue();
    });
    await press(page, 'Subscribe Now');
    await page.waitForURL('**/add-card');
    await page.locator('.card-skeleton[aria-busy="true"]', { hasText: 'Setting up your subscription…' }).waitFor();
    await screenshot(page, '21-add-card-loading');
    release();

    await page.getByRole('heading', { name: 'Card details' }).waitFor();
    await page.getByLabel('Card number').fill('4242 4242');
    await page.getByLabel('Card number').blur();
    await fieldError(page, 'Your card number is incomplete.').waitFor();
    await fillCard(page, '4242424242424242');
    await expect(page.getByLabel('Card number').inputValue()).resolves.toBe('4242 4242 4242 4242');
    await screenshot(page, '22-add-card');
    await press(page, 'Confirm & Continue');

    await expectToast(page, 'Congrats! Your Subscription is now active');
    await page.waitForURL('**/add-bank');
    expect(await stored(page, 'subscriptionId')).toBeNull();
    expect(await stored(page, 'paymentIntent')).toBeNull();
    const status = await journey.server.app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(driver.token) });
    expect(json<{ data: { isSubscriptionPaid: boolean } }>(status).data.isSubscriptionPaid).toBe(true);

    await page.getByRole('heading', { name: 'Bank details' }).waitFor();
    await page.locator('#root_accountHolderName').fill('Dana Driver');
    await page.locator('#root_accountNumber').fill('12345');
    await fieldError(page, 'Account Number must be minimum 12 characters long.').waitFor();
    await page.locator('#root_routingNumber').fill('111000026');
    await fieldError(page, 'Routing number is not valid.').waitFor();
    await screenshot(page, '23-add-bank-errors');
    await page.locator('#root_accountNumber').fill('000123456789');
    await page.locator('#root_routingNumber').fill('111000025');
    await press(page, 'Confirm & Continue');

    await page.getByRole('heading', { name: 'Congratulations!' }).waitFor();
    await page.getByText('Your subscription is active and your bank account is saved.').waitFor();
    await page.getByText('Tap the close button at the top left to return to the app.').waitFor();
    expect(new URL(page.url()).pathname).toBe('/add-bank');
    await expect.poll(() => page.evaluate(() => (window as unknown as Posted).posted)).toEqual([{ type: 'onramp:onboarding-complete' }]);
    await screenshot(page, '24-add-bank-done');
  });

  it('shows the decline message for 4000 0000 0000 0002 and stays on /add-card, then pays with 4242', async () => {
    const driver = await approvedDriver(journey.server);
    const page = await pageFor(driver);
    await page.goto('/add-card');
    await fillCard(page, '4000 0000 0000 0002');
    await press(page, 'Confirm & Continue');
    await expectToast(page, 'Your card was declined.');
    await screenshot(page, '25-add-card-declined');
    expect(new URL(page.url()).pathname).toBe('/add-card');

    await fillCard(page, '4000 0000 0000 9995');
    await press(page, 'Confirm & Continue');
    await expectToast(page, 'Your card has insufficient funds.');
    expect(new URL(page.url()).pathname).toBe('/add-card');

    // The same subscription takes another card after a decline.
    await fillCard(page, '4242 4242 4242 4242');
    await press(page, 'Confirm & Continue');
    await page.waitForURL('**/add-bank');

    // Back from the bank form: the card step is behind the driver now, who is sent on rather than offered a retry.
    await page.goBack();
    await expectToast(page, 'Your subscription is already active.');
    await page.waitForURL('**/add-bank');
    await expect(page.getByRole('button', { name: 'Try again' }).count()).resolves.toBe(0);
  });
});

describe('/success', () => {
  it('sends an unpaid subscription back to /add-card with the spec’s message', async () => {
    const driver = await approvedDriver(journey.server);
    const created = json<{ stripeSubscriptionId: string; paymentIntentId: string }>(
      await journey.server.app.inject({ method: 'GET', url: '/subscription/createStripeSub', headers: bearer(driver.token) }),
    );
    const page = await pageFor(driver);
    await page.goto('/summary');
    await page.evaluate((ids) => {
      localStorage.setItem('subscriptionId', ids.stripeSubscriptionId);
      localStorage.setItem('paymentIntent', ids.paymentIntentId);
    }, created);
    await page.goto('/success');
    await expectToast(page, 'Oops! Unfortunately your subscription got failed, redirecting to the subscription page again.');
    await page.waitForURL('**/add-card');
  });

  it('shows the server’s message and goes to /signup when the check fails', async () => {
    const driver = await approvedDriver(journey.server);
    const page = await pageFor(driver);
    await page.goto('/summary');
    await page.evaluate(() => {
      localStorage.setItem('subscriptionId', 'sub_not_mine');
      localStorage.setItem('paymentIntent', 'pi_not_mine');
    });
    await page.goto('/success');
    await expectToast(page, 'This subscription does not belong to your account.');
    await page.waitForURL('**/signup');
  });
});

describe('at desktop size', () => {
  it('lays out the summary, the card form and the bank form', async () => {
    const driver = await approvedDriver(journey.server);
    const page = await pageFor(driver, { width: 1280, height: 900 });
    await page.goto('/summary');
    await page.getByText('$199/week', { exact: true }).waitFor();
    await screenshot(page, '26-summary-desktop');
    await page.goto('/add-card');
    await page.getByLabel('Card number').waitFor();
    await screenshot(page, '27-add-card-desktop');
  });
});
