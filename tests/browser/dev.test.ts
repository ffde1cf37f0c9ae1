// @module-tag chromium
// `npm run dev` on a copy of schemas/ and flows/, with fixtures of its own: the form studio
// (/studio) shows a step with a fixture's data and its validation, at phone and desktop width;
// then a saved edit reaches the open page, and a broken one is shown over the page while the page
// and the server keep the last good version. One dev server for both: starting one is the costly
// part. The studio without `npm run dev` is in studio.test.ts.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { msUntilReloadedPageShows, startDevServer, type DevServer } from '../../tools/devProcess.js';
import { closeContexts, PHONE_VIEWPORT, screenshot, sharedChromium } from './support.js';
import { authEmulatorReady } from '../support/identity.js';
import { scaled } from '../support/machineSpeed.js';

const FIRST_MESSAGE = 'Please enter your email';
const EDITED_MESSAGE = 'Type the email address you use every day';
const FIXED_MESSAGE = 'Which email address should we use?';
/** Generous for a shared machine; the figure that matters is the latency printed. */
const POLL_TIMEOUT_MS = 10_000;

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
/** The open page: the studio at a desktop's width, then the sign-up at a phone's. */
let page: Page;
let schemaFile: string;
/** signup.schema.json as last applied, before the broken edits. */
let lastGood: string;

beforeAll(async () => {
  // Else `npm run dev` would start an emulator of its own beside the one still starting.
  await authEmulatorReady();
  dev = await startDevServer(FIXTURES);
  schemaFile = join(dev.root, 'schemas', 'signup.schema.json');
  browser = await sharedChromium();
});
afterAll(async () => {
  if (browser) await closeContexts(browser);
  await dev?.close();
});

/** `slowly`: the save truncates the file and writes it a moment later, as a busy machine's does. */
async function replaceInSchema(from: string, to: string, { slowly = false } = {}): Promise<void> {
  const text = await readFile(schemaFile, 'utf8');
  if (!text.includes(from)) throw new Error(`signup.schema.json has no ${JSON.stringify(from)}`);
  if (slowly) {
    await writeFile(schemaFile, '');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await writeFile(schemaFile, text.replace(from, to));
}

/** The email field's message after pressing Sign Up on an empty form. */
async function emailMessage(): Promise<string> {
  await page.getByRole('button', { name: 'Sign Up', exact: true }).click();
  return (await page.locator('#root_email__error').textContent()) ?? '';
}

const emptySignUp = (path: string) => fetch(`${dev.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });

/** The lint's lines the dev server printed for a broken edit, after `from`. */
async function problemsPrintedAfter(from: number): Promise<string[]> {
  const printed = await dev.waitForOutput(/✗ \d+ problem\(s\) in schemas\/ and flows\/; the app keeps the last good version:\n((?: {2}✗ .*\n)+)/, from);
  return (printed[1] ?? '')
    .trimEnd()
    .split('\n')
    .map((line) => line.replace(/^ {2}✗ /, ''));
}

/** What the server answers to an empty sign-up: the email's messages from the schema it validates with. */
async function serverEmailMessages(path = '/auth/driverEmailSignUp'): Promise<string[]> {
  const response = await emptySignUp(path);
  expect(response.status).toBe(400);
  return ((await response.json()) as { errors: Record<string, string[]> }).errors.email ?? [];
}

const preview = (): FrameLocator => page.frameLocator('iframe');
const resultText = async () => (await page.getByRole('region', { name: 'Validation' }).textContent()) ?? '';

describe('the form studio under npm run dev', () => {
  beforeAll(async () => {
    page = await browser.newPage({ viewport: { width: 1440, height: 1000 }, baseURL: dev.baseUrl });
  });
  afterAll(() => page.close());

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

describe('npm run dev', () => {
  beforeAll(async () => {
    const context = await browser.newContext({ viewport: PHONE_VIEWPORT, isMobile: true, hasTouch: true, baseURL: dev.baseUrl });
    page = await context.newPage();
  });

  it('shows an edited message in the open page without building the app’s scripts again, and the server validates with it', async () => {
    await page.goto('/signup');
    expect(await emailMessage()).toBe(FIRST_MESSAGE);
    const appScript = await page.locator('script[type="module"][src]').getAttribute('src');

    const printedBefore = dev.output().length;
    const latency = await msUntilReloadedPageShows(page, EDITED_MESSAGE, () => replaceInSchema(FIRST_MESSAGE, EDITED_MESSAGE));
    // Only the form changed: the reloaded page runs the scripts it had, its form the edited one.
    expect(await page.locator('script[type="module"][src]').getAttribute('src')).toBe(appScript);
    // Its edited form is asked for with those scripts, not once they have run.
    const formUrls = JSON.parse((await page.locator('#form-urls').textContent()) ?? '{}') as Record<string, string>;
    const preloaded = await page.locator('link[rel="modulepreload"]').evaluateAll((links) => links.map((link) => link.getAttribute('href')));
    expect(preloaded).toContain(formUrls['signup\nen']);
    const applied = await dev.waitForOutput(/✓ schemas\/signup\.schema\.json: applied in (\d+) ms; open pages reload/, printedBefore);
    console.log(`edit saved → new message in the browser: ${latency} ms (checked, built and applied in ${applied[1]} ms)`);
    expect(await serverEmailMessages()).toEqual([EDITED_MESSAGE]);
    lastGood = await readFile(schemaFile, 'utf8');
  });

  it('shows a broken edit’s problems over the page and in the terminal, and keeps serving the last good version', async () => {
    const printedBefore = dev.output().length;
    // The empty file in between is a save under way, not the edit: only the edit's problems are shown.
    await replaceInSchema('"required": [', '"requird": [', { slowly: true });

    const lines = await problemsPrintedAfter(printedBefore);
    expect(lines.every((line) => !line.includes('JSON'))).toBe(true);
    expect(lines.some((line) => line.startsWith('schemas/signup.schema.json') && line.includes('requird'))).toBe(true);

    const overlay = page.getByRole('alertdialog');
    await overlay.waitFor({ timeout: POLL_TIMEOUT_MS });
    const heading = lines.length === 1 ? 'This edit has a problem' : `This edit has ${lines.length} problems`;
    expect(await overlay.getByRole('heading').textContent()).toBe(heading);
    expect(await overlay.getByRole('listitem').allTextContents()).toEqual(lines);
    expect(await overlay.getAttribute('aria-labelledby')).toBe('dev-overlay-title');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Dismiss');

    await page.keyboard.press('Escape');
    await overlay.waitFor({ state: 'detached' });
    expect(await emailMessage()).toBe(EDITED_MESSAGE);
    expect(await serverEmailMessages()).toEqual([EDITED_MESSAGE]);

    // A page opened now is the last good version too, with the problems shown over it.
    await page.reload();
    await overlay.waitFor();
    await overlay.getByRole('button', { name: 'Dismiss' }).click();
    await overlay.waitFor({ state: 'detached' });
    expect(await emailMessage()).toBe(EDITED_MESSAGE);
  });

  it('shows an edit that leaves the file no longer JSON the same way', async () => {
    const printedBefore = dev.output().length;
    await replaceInSchema('"maxLength": 254,', '"maxLength": 254');

    const lines = await problemsPrintedAfter(printedBefore);
    expect(lines[0]?.startsWith('schemas/signup.schema.json')).toBe(true);
    expect(lines[0]).toContain('JSON');
    const overlay = page.getByRole('alertdialog');
    await overlay.waitFor({ timeout: POLL_TIMEOUT_MS });
    expect(await overlay.getByRole('listitem').allTextContents()).toEqual(lines);

    await overlay.getByRole('button', { name: 'Dismiss' }).click();
    expect(await emailMessage()).toBe(EDITED_MESSAGE);
    expect(await serverEmailMessages()).toEqual([EDITED_MESSAGE]);
  });

  it('reloads the page without the problems once the file is fixed', async () => {
    const printedBefore = dev.output().length;
    const latency = await msUntilReloadedPageShows(page, FIXED_MESSAGE, () => writeFile(schemaFile, lastGood.replace(EDITED_MESSAGE, FIXED_MESSAGE)));
    const applied = await dev.waitForOutput(/✓ schemas\/signup\.schema\.json: applied in (\d+) ms; open pages reload/, printedBefore);
    console.log(`fix saved → new message in the browser: ${latency} ms (checked, built and applied in ${applied[1]} ms)`);
    expect(await page.getByRole('alertdialog').count()).toBe(0);
    expect(await serverEmailMessages()).toEqual([FIXED_MESSAGE]);
  });

  it('draws an edited label in the page the server sends, and the open page shows it', async () => {
    const uiFile = join(dev.root, 'schemas', 'signup.ui.json');
    const ui = await readFile(uiFile, 'utf8');
    const printedBefore = dev.output().length;
    await writeFile(uiFile, ui.replace('"ui:title": "Email"', '"ui:title": "Email address"'));
    await dev.waitForOutput(/✓ schemas\/signup\.ui\.json: applied in \d+ ms; open pages reload/, printedBefore);

    const drawn = await (await fetch(`${dev.baseUrl}/signup`, { headers: { accept: 'text/html' } })).text();
    expect(drawn).toContain('<label class="control-label" for="root_email">Email address<');
    const label = page.locator('label[for="root_email"]', { hasText: 'Email address' });
    await label.waitFor({ timeout: scaled(POLL_TIMEOUT_MS) });
    expect(await label.textContent()).toBe('Email address*');
  });

  it(
    'serves a call at its new path once the flow file moves it, and the open page follows',
    async () => {
      const flowFile = join(dev.root, 'flows', 'onboarding.flow.json');
      const flow = await readFile(flowFile, 'utf8');
      const printedBefore = dev.output().length;
      // A save that changes nothing is neither checked nor applied.
      await writeFile(flowFile, flow);
      await new Promise((resolve) => setTimeout(resolve, 300));
      // The page reconnects to the restarted server and reloads; it then checks the form as before.
      await msUntilReloadedPageShows(
        page,
        FIXED_MESSAGE,
        async () => {
          await writeFile(flowFile, flow.replace('"path": "/auth/driverEmailSignUp"', '"path": "/auth/emailSignUp"'));
          // A moved path restarts the server too: on a loaded machine that takes more than one poll's wait.
          await dev.waitForOutput(/✓ flows\/onboarding\.flow\.json: applied in \d+ ms; open pages reload/, printedBefore, 3 * POLL_TIMEOUT_MS);
        },
        4 * POLL_TIMEOUT_MS,
      );
      expect(
        dev
          .output()
          .slice(printedBefore)
          .match(/applied in/g),
      ).toHaveLength(1);
      expect(await serverEmailMessages('/auth/emailSignUp')).toEqual([FIXED_MESSAGE]);
      expect((await emptySignUp('/auth/driverEmailSignUp')).status).toBe(404);
    },
    scaled(90_000),
  );
});
