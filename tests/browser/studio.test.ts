// The form studio (/studio) under `npm run dev`, with fixtures of its own: a step picked, a
// fixture picked, the form filled and the validation shown; at phone and desktop width. Without
// `npm run dev`, its data needs the admin token.
import { join } from 'node:path';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_AUTH_MESSAGES } from '../../src/server/plugins/adminAuth.js';
import { PROJECT_ROOT } from '../../src/node/projectFiles.js';
import { startDevServer, type DevServer } from '../../src/cli/devProcess.js';
import { bearer, startTestServer, type TestServer } from '../support/server.js';
import { authEmulatorReady } from '../support/identity.js';
import { launchChromium } from '../../src/cli/chromium.js';
import { screenshot } from './support.js';

const SIGNUP_DATA = {
  email: 'driver@example.com',
  phoneNo: '2025550143',
  password: 'Str0ng!Pass',
  confirmPassword: 'Str0ng!Pass',
  accept: true,
  twilioCheck: true,
};

const FIXTURES = {
  'tests/fixtures/signup/complete.json': { step: 'signup', expect: 'valid', errors: {}, data: SIGNUP_DATA },
  'tests/fixtures/signup/email-without-domain.json': {
    step: 'signup',
    expect: 'invalid',
    errors: { '/email': 'Email must be valid.' },
    data: { ...SIGNUP_DATA, email: 'driver@' },
  },
  // Expects the wrong message on purpose: the studio shows the difference.
  'tests/fixtures/signup/wrong-expectation.json': {
    step: 'signup',
    expect: 'invalid',
    errors: { '/phoneNo': 'Phone number must be 10 digits long' },
    data: { ...SIGNUP_DATA, phoneNo: '20255' },
  },
  'tests/fixtures/profile-social/no-phone.json': {
    step: 'completeProfile',
    variant: 'profile-social',
    expect: 'invalid',
    errors: { '/phoneNo': 'Please provide a valid phone number.' },
    data: { firstName: 'Dana', lastName: 'Rivers' },
  },
  // Other test data under tests/fixtures/ is not listed.
  'tests/fixtures/broken-edits/not-a-fixture.json': { steps: {} },
};

let dev: DevServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  // Else `npm run dev` would start an emulator of its own beside the one still starting.
  await authEmulatorReady();
  dev = await startDevServer(FIXTURES);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1440, height: 1000 }, baseURL: dev.baseUrl });
});
afterAll(async () => {
  await browser?.close();
  await dev?.close();
});

const preview = (): FrameLocator => page.frameLocator('iframe');
const resultText = async () => (await page.getByRole('region', { name: 'Validation' }).textContent()) ?? '';

describe('the form studio under npm run dev', () => {
  it('lists every form step of the flow', async () => {
    await page.goto('/studio');
    await page.getByRole('navigation', { name: 'Form steps' }).waitFor();
    const steps = page.getByRole('navigation', { name: 'Form steps' }).getByRole('button');
    expect(await steps.allTextContents()).toEqual([
      'signup/signup',
      'signIn/sign-in',
      'verifyEmail/verify-otp-email',
      'verifyPhone/verify-otp-phone',
      'completeProfile/complete-profile',
      'uploadVehicleImages/upload-vehicle-images',
      'addVehicle/add-vehicle',
      'addBank/add-bank',
    ]);
  });

  it('renders a step with a fixture’s data and shows the validation live', async () => {
    await page.getByRole('button', { name: 'signup /signup' }).click();
    const fixture = page.getByLabel('Fixture');
    expect(await fixture.locator('option').allTextContents()).toEqual([
      'None: an empty form',
      'signup/complete.json (valid)',
      'signup/email-without-domain.json (invalid)',
      'signup/wrong-expectation.json (invalid)',
    ]);

    await fixture.selectOption({ label: 'signup/email-without-domain.json (invalid)' });
    await preview().locator('#root_email__error').waitFor();
    expect(await preview().locator('#root_email').inputValue()).toBe('driver@');
    expect(await preview().locator('#root_email__error').textContent()).toBe('Email must be valid.');
    expect(await preview().locator('#root_phoneNo').inputValue()).toBe('2025550143');
    expect(await resultText()).toBe('Validation/emailEmail must be valid.As tests/fixtures/signup/email-without-domain.json expects.');
    await screenshot(page, 'studio-desktop-window');

    // Typing in the preview changes the result at once.
    await preview().locator('#root_email').fill('driver@example.com');
    await page.getByText('Valid', { exact: true }).waitFor();
    expect(await resultText()).toBe(
      'ValidationValidNot as tests/fixtures/signup/email-without-domain.json expects:expected invalid, but the form is valid/email: expected "Email must be valid.", got no message',
    );
  });

  it('shows where a fixture’s expectation differs from the schema’s messages', async () => {
    await page.getByLabel('Fixture').selectOption({ label: 'signup/wrong-expectation.json (invalid)' });
    await page.getByText('Not as tests/fixtures/signup/wrong-expectation.json expects:').waitFor();
    expect(await resultText()).toBe(
      'Validation/phoneNoPhone number must be valid.Not as tests/fixtures/signup/wrong-expectation.json expects:/phoneNo: expected "Phone number must be 10 digits long", got "Phone number must be valid."',
    );
  });

  it('picks the variant schema a fixture names', async () => {
    await page.getByRole('button', { name: 'completeProfile /complete-profile' }).click();
    await page.getByLabel('Fixture').selectOption({ label: 'profile-social/no-phone.json (invalid)' });
    expect(await page.getByLabel('Schema').inputValue()).toBe('profile-social');
    // The profile form, once it replaced the sign-up form (which has a phone number too).
    await preview().locator('#root_firstName').waitFor();
    expect(await preview().locator('#root_phoneNo__error').textContent()).toBe('Please provide a valid phone number.');
    expect(await preview().locator('#root_firstName').inputValue()).toBe('Dana');
  });

  it('shows the preview at a phone’s width and at a desktop’s', async () => {
    await page.getByRole('button', { name: 'signup /signup' }).click();
    await page.getByLabel('Fixture').selectOption({ label: 'signup/email-without-domain.json (invalid)' });
    await preview().locator('#root_email__error').waitFor();
    const frame = page.locator('iframe');
    const pageWidth = () =>
      preview()
        .locator('body')
        .evaluate(() => window.innerWidth);

    expect(await page.getByRole('button', { name: 'Phone 390 px' }).getAttribute('aria-pressed')).toBe('true');
    expect(await frame.getAttribute('title')).toBe('The signup form at Phone 390 px');
    expect(await pageWidth()).toBe(390);

    await page.getByRole('button', { name: 'Desktop 1024 px' }).click();
    expect(await page.getByRole('button', { name: 'Desktop 1024 px' }).getAttribute('aria-pressed')).toBe('true');
    expect(await frame.getAttribute('title')).toBe('The signup form at Desktop 1024 px');
    expect(await pageWidth()).toBe(1024);
    // The same form, with what was shown, at the new width: the page's desktop layout applies.
    expect(await preview().locator('#root_email__error').textContent()).toBe('Email must be valid.');
    expect(
      await preview()
        .locator('.page-main')
        .evaluate((main) => getComputedStyle(main).paddingLeft),
    ).toBe('32px');
    await screenshot(page, 'studio-desktop-preview');
  });

  it('works on a phone too', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, baseURL: dev.baseUrl });
    await phone.goto('/studio');
    await phone.getByLabel('Fixture').selectOption({ label: 'signup/email-without-domain.json (invalid)' });
    await phone.frameLocator('iframe').locator('#root_email__error').waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
    await screenshot(phone, 'studio-phone');
    await phone.close();
  });
});

describe('the form studio without npm run dev', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ staticDir: join(PROJECT_ROOT, 'dist') });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('serves its data for the admin token only', async () => {
    const without = await server.app.inject({ method: 'GET', url: '/admin/fixtures' });
    expect(without.statusCode).toBe(401);
    expect(without.json()).toEqual({ message: ADMIN_AUTH_MESSAGES.tokenRequired });
    const withToken = await server.app.inject({ method: 'GET', url: '/admin/fixtures', headers: bearer(server.config.adminToken) });
    expect(withToken.statusCode).toBe(200);
    expect(Array.isArray(withToken.json<{ fixtures: unknown[] }>().fixtures)).toBe(true);
  });

  it('asks for the admin token, as the review page does', async () => {
    const baseUrl = await server.app.listen({ host: '127.0.0.1', port: 0 });
    const tokenPage = await browser.newPage({ viewport: { width: 390, height: 844 }, baseURL: baseUrl });
    await tokenPage.goto('/studio');
    await tokenPage.getByRole('heading', { name: 'Sign in to preview the forms' }).waitFor();
    // The same wrong token twice: each try is sent and refused.
    for (let i = 0; i < 2; i++) {
      await tokenPage.getByLabel('Admin token').fill('not-the-admin-token-but-long-enough-0000');
      await tokenPage.getByRole('button', { name: 'Open the studio' }).click();
      await tokenPage.getByRole('alert').waitFor();
      expect(await tokenPage.getByRole('alert').textContent()).toBe(ADMIN_AUTH_MESSAGES.tokenRequired);
    }

    await tokenPage.getByLabel('Admin token').fill(server.config.adminToken);
    await tokenPage.getByRole('button', { name: 'Open the studio' }).click();
    await tokenPage.getByRole('navigation', { name: 'Form steps' }).waitFor();
    await tokenPage.close();
  });
});
