// @module-tag chromium
// Every form step arrives drawn by the server: with its scripts held back, a driver on a phone
// sees the form and types in it; once the scripts run, the page is hydrated (the same elements
// stay, no hydration warning), and every character typed is kept and validated. In English and in
// Spanish.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import flowFile from '../../flows/onboarding.flow.json' with { type: 'json' };
import type { Flow } from '../../src/shared/flow.js';
import { expectToast, PHONE_VIEWPORT, startJourney, type Journey } from './support.js';
import { DRAFTS_COOKIE, SENT_AWAY_COOKIE } from '../../src/shared/storageKeys.js';
import { scaled } from '../support/machineSpeed.js';

let journey: Journey;
beforeAll(async () => {
  journey = await startJourney();
});
afterAll(async () => {
  await journey?.close();
});

/** React's hydration failures, as the production build reports them (#418, #423, #425) and as its messages name them. */
const HYDRATION_TROUBLE = /hydrat|#418|#423|#425/i;

/** A phone (or a screen of `viewport`) in `locale` whose app scripts wait until `release()`; every console error or warning is noted. */
async function phoneWithScriptsHeld(
  locale: string,
  viewport = PHONE_VIEWPORT,
): Promise<{ context: BrowserContext; page: Page; release: () => void; troubles: string[] }> {
  const context = await journey.browser.newContext({
    viewport,
    deviceScaleFactor: 1,
    isMobile: viewport === PHONE_VIEWPORT,
    hasTouch: true,
    baseURL: journey.baseUrl,
    locale,
  });
  let release = () => undefined as void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  await context.route(/\/assets\/.*\.js$/, async (route) => {
    await released;
    await route.continue();
  });
  const page = await context.newPage();
  const troubles: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') troubles.push(message.text());
  });
  page.on('pageerror', (error) => troubles.push(error.message));
  return { context, page, release, troubles };
}

const SIGNUP = {
  en: { heading: 'Sign up', email: 'Email', referral: 'Referral Code (optional)', submit: 'Sign Up', invalidEmail: 'Email must be valid.' },
  es: {
    heading: 'Registrarse',
    email: 'Correo electrónico',
    referral: 'Código de referido (opcional)',
    submit: 'Registrarse',
    invalidEmail: 'El correo electrónico debe ser válido.',
  },
} as const;

describe('a step drawn by the server, before and after its scripts', () => {
  for (const locale of ['en', 'es'] as const) {
    const words = SIGNUP[locale];
    it(`keeps and validates what was typed before the scripts ran, with no hydration warning (${locale})`, async () => {
      const { context, page, release, troubles } = await phoneWithScriptsHeld(locale);
      try {
        await page.goto('/signup', { waitUntil: 'commit' });
        await page.getByRole('heading', { name: words.heading, exact: true }).waitFor();
        const email = page.getByLabel(words.email);
        // No script has run: the submit waits, and the inputs are the page's own.
        await expect(page.locator('form.step-form button[type=submit]').isDisabled()).resolves.toBe(true);
        await email.pressSequentially('driver@example');
        await page.getByLabel(words.referral).pressSequentially('AB12');
        const drawnForm = await page.locator('form.step-form').elementHandle();

        release();
        await page.locator('form.step-form button[type=submit]:not([disabled])').waitFor();
        // Hydrated, not drawn again: the server's elements are React's now.
        await expect(drawnForm?.evaluate((form) => form.isConnected)).resolves.toBe(true);
        await expect(email.inputValue()).resolves.toBe('driver@example');
        await expect(page.getByLabel(words.referral).inputValue()).resolves.toBe('AB12');
        // Validated once the scripts run, as if typed then: its message shows without a submit.
        await expect.poll(() => page.locator('#root_email__error').textContent()).toBe(words.invalidEmail);
        await expect(page.locator('#root_referalCode__error').count()).resolves.toBe(0);
        await expect(page.locator('#root_password__error').count()).resolves.toBe(0);
        expect(troubles.filter((text) => HYDRATION_TROUBLE.test(text))).toEqual([]);
        // Kept on the device as a draft, as if typed after the scripts ran (a moment after the last
        // key, and named in the drafts cookie): a reload brings it back.
        await expect.poll(async () => (await context.cookies()).find((cookie) => cookie.name === DRAFTS_COOKIE)?.value).toBe('signup');
        await page.reload();
        await expect.poll(() => page.locator('#root_email').inputValue()).toBe('driver@example');
      } finally {
        await context.close();
      }
    });
  }
});

describe('a sign-up filled while the scripts are on their way', () => {
  it('keeps every answer, waits for the scripts to send it, and goes on to the email code', async () => {
    const { context, page, release } = await phoneWithScriptsHeld('en');
    try {
      await page.goto('/signup', { waitUntil: 'commit' });
      await page.locator('#root_email').fill(`drawn-${Date.now()}@example.com`);
      await page.locator('#root_phoneNo').fill('2025550143');
      await page.locator('#root_password').fill('Str0ng!Pass');
      await page.locator('#root_confirmPassword').fill('Str0ng!Pass');
      await page.locator('#root_accept').check();
      await page.locator('#root_twilioCheck').check();
      // Pressed before the scripts arrive: the button waits (disabled) rather than sending the page away.
      const pressed = page.getByRole('button', { name: 'Sign Up', exact: true }).click();
      await page.waitForTimeout(500);
      expect(page.url()).toBe(`${journey.baseUrl}/signup`);
      release();
      await pressed;
      await page.waitForURL('**/verify-otp-email');
    } finally {
      await context.close();
    }
  });
});

/**
 * Types a new address into the drawn sign-up's email at every turn of the page's event loop, as
 * keys would come (between any two slices of React's work), from before the scripts arrive until
 * `stopAfter` ms after React has begun hydrating; answers the last address typed.
 */
const typeIntoHydration = (page: Page, stopAfter: number) =>
  page.evaluate(
    (stopAfterMs) =>
      new Promise<string>((resolve) => {
        const root = document.getElementById('root');
        const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set;
        let round = 0;
        let hydrationBegan: number | undefined;
        const type = () => {
          const value = `hydrating-${(round += 1)}@example.com`;
          const input = document.querySelector<HTMLInputElement>('#root_email');
          if (input) {
            setValue?.call(input, value);
            input.dispatchEvent(new Event('input', { bubbles: true }));
          }
          // hydrateRoot marks its container at once.
          if (root && Object.keys(root).some((key) => key.startsWith('__reactContainer'))) hydrationBegan ??= performance.now();
          if (hydrationBegan !== undefined && performance.now() - hydrationBegan >= stopAfterMs) resolve(value);
          else setTimeout(type, 0);
        };
        type();
      }),
    stopAfter,
  );

describe('a sign-up typed into while the scripts take the drawn form over', () => {
  // Stopping at moments spread over a hydration six times slower than this machine's. Each on a
  // page of its own, side by side: a throttled page spends most of its time asleep, and eight of
  // them one after another took some 30 s. Each has the time all eight had.
  describe.concurrent('on a slow phone', { timeout: scaled(120_000) }, () => {
    for (const stopAfter of [0, 10, 30, 60, 100, 150, 250, 400]) {
      it(`keeps the last key typed ${stopAfter} ms into hydration${stopAfter === 0 ? ', and sends it' : ''}`, async ({ expect }) => {
        const { context, page, release } = await phoneWithScriptsHeld('en');
        try {
          await page.goto('/signup', { waitUntil: 'commit' });
          await page.locator('form.step-form').waitFor();
          const cdp = await context.newCDPSession(page);
          await cdp.send('Emulation.setCPUThrottlingRate', { rate: 6 });
          const typing = typeIntoHydration(page, stopAfter);
          release();
          const email = await typing;
          const submit = page.locator('form.step-form button[type=submit]:not([disabled])');
          await submit.waitFor();
          await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
          await expect(page.locator('#root_email').inputValue()).resolves.toBe(email);
          if (stopAfter !== 0) return;
          // Sent as typed: the next step names it.
          await page.locator('#root_email').fill(email.replace('hydrating', `hydrating-${Date.now()}`));
          const sent = await page.locator('#root_email').inputValue();
          await page.locator('#root_phoneNo').fill('2025550143');
          await page.locator('#root_password').fill('Str0ng!Pass');
          await page.locator('#root_confirmPassword').fill('Str0ng!Pass');
          await page.locator('#root_accept').check();
          await page.locator('#root_twilioCheck').check();
          await submit.click();
          await page.waitForURL('**/verify-otp-email');
          await page.getByText(sent).waitFor();
        } finally {
          await context.close();
        }
      });
    }
  });
});

/** The form steps a driver opens with nothing on the device (the others' guards send them back to the sign-up). */
const openSteps = Object.values((flowFile as Flow).steps).filter((step) => step.kind === 'form' && !step.guards?.length);

describe('every open form step, drawn and then hydrated', () => {
  for (const locale of ['en', 'es'] as const) {
    for (const step of openSteps) {
      it(`${step.route} (${locale}): the drawn form takes typing, and keeps it through hydration without a warning`, async () => {
        const { context, page, release, troubles } = await phoneWithScriptsHeld(locale);
        try {
          await page.goto(step.route, { waitUntil: 'commit' });
          await page.locator('form.step-form').waitFor();
          // A step of photos only (its inputs are files) has nothing to type.
          const field = page.locator('form.step-form').locator('input[type=text], input[type=email], input[type=tel], input:not([type])').first();
          const typeable = (await field.count()) > 0;
          if (typeable) await field.pressSequentially('Ab1');
          const drawnForm = await page.locator('form.step-form').elementHandle();
          release();
          await page.locator('form.step-form button[type=submit]:not([disabled])').waitFor();
          await expect(drawnForm?.evaluate((form) => form.isConnected)).resolves.toBe(true);
          if (typeable) await expect(field.inputValue()).resolves.toBe('Ab1');
          expect(troubles.filter((text) => HYDRATION_TROUBLE.test(text))).toEqual([]);
        } finally {
          await context.close();
        }
      });
    }
  }
});

describe('a page drawn before the scripts read the device', () => {
  for (const viewport of [PHONE_VIEWPORT, { width: 1280, height: 800 }]) {
    it(`reads whole words on the phone code page, then names the number kept (${viewport.width} px)`, async () => {
      const { context, page, release, troubles } = await phoneWithScriptsHeld('en', viewport);
      try {
        await context.addInitScript(() => window.localStorage.setItem('phone', '+12025550143'));
        await page.goto('/verify-otp-phone', { waitUntil: 'commit' });
        await page.getByRole('heading', { name: 'Verify your phone', exact: true }).waitFor();
        await page.getByText('Enter the 4-digit code we sent you by text.', { exact: true }).waitFor();
        release();
        await page.getByText('Enter the 4-digit code we sent by text to (202) 555-0143.', { exact: true }).waitFor();
        expect(troubles.filter((text) => HYDRATION_TROUBLE.test(text))).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it(`sends a visitor without a session from the vehicle step to the sign-up before any script runs, with the guard’s toast (${viewport.width} px)`, async () => {
      const { context, page, release } = await phoneWithScriptsHeld('en', viewport);
      try {
        await page.goto('/add-vehicle', { waitUntil: 'commit' });
        await page.getByRole('heading', { name: 'Sign up', exact: true }).waitFor();
        expect(new URL(page.url()).pathname).toBe('/signup');
        release();
        await expectToast(page, 'Session expired, Please relogin');
        // Shown once: the cookie that named the guard is gone.
        expect((await context.cookies()).map((cookie) => cookie.name)).not.toContain(SENT_AWAY_COOKIE);
      } finally {
        await context.close();
      }
    });
  }
});
