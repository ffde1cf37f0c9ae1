// @module-tag chromium
// Sign-up's identity step and the hand-over to the phone code, in headless Chromium at 390×844.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSocialUser } from '../support/identity.js';
import { bearer, json, verifiedDriver } from '../support/server.js';
import { expectToast, latestCode, PHONE_VIEWPORT, screenshot, startJourney, type Journey } from './support.js';

let journey: Journey;

beforeAll(async () => {
  journey = await startJourney();
});
afterAll(async () => {
  await journey?.close();
});

async function freshPage(): Promise<Page> {
  const context = await journey.browser.newContext({ viewport: PHONE_VIEWPORT, isMobile: true, hasTouch: true, baseURL: journey.baseUrl });
  return context.newPage();
}

async function signUp(page: Page, email: string, password = 'Str0ng!Pass', phone = '2025550143') {
  await page.goto('/signup');
  await page.locator('#root_email').fill(email);
  await page.locator('#root_phoneNo').fill(phone);
  await page.locator('#root_password').fill(password);
  await page.locator('#root_confirmPassword').fill(password);
  await page.locator('#root_accept').check();
  await page.locator('#root_twilioCheck').check();
  await page.getByRole('button', { name: 'Sign Up', exact: true }).click();
}

describe('the journey strip', () => {
  /** The strip as a driver reads it: the stage marked current, and whether the page is wider than the screen. */
  const strip = (page: Page) =>
    page.evaluate(() => ({
      current: document.querySelector('nav[aria-label="Your onboarding steps"] [aria-current="step"] .journey-label')?.textContent,
      stages: [...document.querySelectorAll('nav[aria-label="Your onboarding steps"] li')].map((li) => li.textContent),
      overflows: document.documentElement.scrollWidth > window.innerWidth,
    }));

  it('marks the stage of each step, fits a 390 px screen without sideways scrolling, and names every stage on a wide one', async () => {
    const page = await freshPage();
    await page.goto('/signup');
    await page.getByRole('heading', { name: 'Sign up' }).waitFor();
    expect(await strip(page)).toEqual({
      current: 'Sign up',
      stages: ['1Sign up', '2Complete Profile', '3Add Vehicle', '4Admin Approval', '5Buy Subscription', '6Add Bank'],
      overflows: false,
    });
    await screenshot(page, '01-journey-strip-phone');
    // Each stage a step belongs to, from the flow: the later ones marked done before it.
    await page.goto('/summary');
    await page.getByRole('heading', { name: 'Administrative Fees' }).waitFor();
    const summary = await strip(page);
    expect(summary.current).toBe('Buy Subscription');
    expect(summary.stages.slice(0, 4)).toEqual(['1Sign up (done)', '2Complete Profile (done)', '3Add Vehicle (done)', '4Admin Approval (done)']);
    expect(summary.overflows).toBe(false);
    await page.setViewportSize({ width: 1280, height: 900 });
    await expect
      .poll(() =>
        page
          .locator('.journey-step:not(.is-current) .journey-label')
          .first()
          .boundingBox()
          .then((box) => box?.width ?? 0),
      )
      .toBeGreaterThan(20);
    await screenshot(page, '01-journey-strip-desktop');
    // A long email address in a text wraps within the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate(() => localStorage.setItem('email', 'a.very.long.name.of.a.driver.with.many.parts@a-long-company-domain.example.com'));
    await page.goto('/verify-otp-email');
    await page.getByText('a.very.long.name', { exact: false }).waitFor();
    expect((await strip(page)).overflows).toBe(false);
    // An information page that is no stage of the journey has no strip.
    await page.goto('/ride/new-request/info');
    await page.getByRole('heading', { name: 'New ride requests' }).waitFor();
    expect(await page.locator('nav[aria-label="Your onboarding steps"]').count()).toBe(0);
  });
});

describe('a form sent with mistakes, and a move to another page', () => {
  it('lists the answers to change above the form, each a link to its field, and the new page’s heading takes the focus', async () => {
    const page = await freshPage();
    await page.goto('/signup');
    await page.locator('#root_email').fill('driver@example.com');
    await page.getByRole('button', { name: 'Sign Up', exact: true }).click();
    const summary = page.getByRole('region', { name: 'Please check these answers:' });
    await summary.waitFor();
    expect(await summary.getByRole('link').allTextContents()).toEqual([
      'Phone Number: Please enter your phone number',
      'Password: Please enter your password',
      'Confirm Password: Please confirm your password',
      'You must accept the Terms & Conditions',
      'You must accept the SMS Notification from the product.',
    ]);
    await screenshot(page, '02-error-summary');
    await summary.getByRole('link', { name: 'Password: Please enter your password' }).click();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('root_password');
    // It shrinks as the answers are fixed.
    await page.locator('#root_phoneNo').fill('2025550143');
    await expect.poll(() => summary.getByRole('link').count()).toBe(4);

    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.waitForURL('**/sign-in');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Sign in');
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
  });
});

describe('sign-up with an email that already has an account', () => {
  const email = `again-${randomUUID().slice(0, 8)}@example.com`;

  it('signs in with the same password instead and goes on to the email code', async () => {
    const first = await freshPage();
    await signUp(first, email);
    await first.waitForURL('**/verify-otp-email');
    const again = await freshPage();
    await signUp(again, email);
    await again.waitForURL('**/verify-otp-email');
    await again.getByText(email).waitFor();
  });

  it('shows "Login error || Firebase authentication failed" when the password is not that account’s', async () => {
    const page = await freshPage();
    await signUp(page, email, 'Other!Pass9');
    await expectToast(page, 'Login error || Firebase authentication failed');
    expect(new URL(page.url()).pathname).toBe('/signup');
    await expect(page.locator('#root_email').inputValue()).resolves.toBe(email);
  });
});

describe('after the email code', () => {
  it('returns to /signup with the server’s message and without the token when the phone code cannot be sent', async () => {
    const page = await freshPage();
    const email = `phone-${randomUUID().slice(0, 8)}@example.com`;
    await signUp(page, email);
    await page.waitForURL('**/verify-otp-email');
    // The stored phone no longer matches the account, so the server refuses to text it.
    await page.evaluate(() => localStorage.setItem('phone', '+12125550199'));
    await page.locator('#root_otp').fill(await latestCode(journey.baseUrl, 'email', email));
    await page.getByRole('button', { name: 'Continue', exact: true }).click();
    await expectToast(page, 'This phone number does not match your account. Please sign up again.');
    await page.waitForURL('**/signup');
    await expect(page.evaluate(() => localStorage.getItem('token'))).resolves.toBeNull();
    expect((await page.context().cookies()).find((c) => c.name === 'token')).toBeUndefined();
  });
});

describe('a social sign-up whose provider did not verify the email', () => {
  /** Signs up with the provider's button (locally: the emulator's test account), as `email`. */
  async function socialSignUp(page: Page, button: string, email: string) {
    await page.goto('/signup');
    await page.getByRole('button', { name: button }).click();
    const dialog = page.getByRole('dialog', { name: 'Sign in with a test account' });
    await dialog.getByLabel('Email').fill(email);
    await dialog.getByRole('button', { name: 'Continue' }).click();
  }

  /** On the email code page a code was sent on arrival; Resend sends another, and Continue verifies it and goes on to the social profile. */
  async function verifyEmailByCode(page: Page, email: string) {
    await page.waitForURL('**/verify-otp-email');
    await page.getByText(email).waitFor();
    const first = await latestCode(journey.baseUrl, 'email', email);
    await page.getByRole('button', { name: 'Resend' }).click();
    await expectToast(page, 'Email Resent Sent Successfully.');
    const second = await latestCode(journey.baseUrl, 'email', email);
    expect(second).toMatch(/^\d{4}$/);
    expect(first).toMatch(/^\d{4}$/);
    await page.locator('#root_otp').fill(second);
    await page.getByRole('button', { name: 'Continue', exact: true }).click();
    await expectToast(page, 'Email OTP Verified Successfully.');
    await page.waitForURL('**/complete-profile');
    // The social variant: the profile asks for the phone, which is verified after it.
    await page.locator('#root_phoneNo').waitFor();
    const stored = await page.evaluate(() => ({ token: localStorage.getItem('token') ?? '', driverId: localStorage.getItem('driver_id') ?? '' }));
    const status = await journey.server.app.inject({ method: 'GET', url: `/driver/status/${stored.driverId}`, headers: bearer(stored.token) });
    expect(status.statusCode).toBe(200);
    expect(json(status).data).toMatchObject({ isEmailVerified: true, isSocial: true });
  }

  it('Facebook (which never verifies an email): the email code, then /complete-profile', async () => {
    const email = `facebook-${randomUUID().slice(0, 8)}@example.com`;
    const page = await freshPage();
    await socialSignUp(page, 'Sign in with Facebook', email);
    await verifyEmailByCode(page, email);
    await screenshot(page, '04-profile-social-after-email-code');
  });

  it('Google, for an account whose email Google did not verify: the email code, then /complete-profile', async () => {
    const email = `google-${randomUUID().slice(0, 8)}@example.com`;
    // The account as Google gave it, not verified (the browser's test sign-in finds it by the same provider id).
    await createSocialUser('google.com', email, { emailVerified: false, subject: `test-${email}` });
    const page = await freshPage();
    await socialSignUp(page, 'Continue with Google', email);
    await verifyEmailByCode(page, email);
  });
});

describe('/awaiting-approval', () => {
  it('says "Token Not Found" when the browser keeps no token for the status call, and sends no request', async () => {
    const page = await freshPage();
    const statusRequests: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/driver/status/')) statusRequests.push(request.url());
    });
    await page.goto('/signup');
    await page.evaluate(() => localStorage.setItem('driver_id', '00000000-0000-4000-8000-000000000000'));
    await page.goto('/awaiting-approval');
    await expectToast(page, 'Token Not Found');
    expect(statusRequests).toEqual([]);
  });

  it('clears the social flag', async () => {
    const page = await freshPage();
    const driver = await verifiedDriver(journey.server.app);
    await page.goto('/signup');
    await page.evaluate((id) => {
      localStorage.setItem('isSocial', 'yes');
      localStorage.setItem('driver_id', id);
    }, driver.driverId);
    await page.goto('/awaiting-approval');
    await page.getByRole('heading', { name: 'Awaiting Approval' }).waitFor();
    await expect(page.evaluate(() => localStorage.getItem('isSocial'))).resolves.toBeNull();
  });
});
