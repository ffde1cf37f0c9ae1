// @module-tag chromium
// A driver's screens as a whole, in headless Chromium: every screen of the journey under axe-core
// at a phone's and a desktop's width, and the draft a step keeps on the device through a reload.
// The driver arrives by a resume link (a session, as after signing in) at the step to fill.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { verifiedDriver, verifyPhone } from '../support/server.js';
import { axeViolations, contextForTest, expectToast, fillProfileStep, openResumeLink, press, screenshot, startJourney, type Journey } from './support.js';
import { scaled } from '../support/machineSpeed.js';

let journey: Journey;

beforeAll(async () => {
  journey = await startJourney();
});
afterAll(async () => {
  await journey?.close();
});

const app = () => journey.server.app;

/** A page of its own at the complete-profile step, for a driver who verified email and phone. */
async function atProfileStep() {
  const driver = await verifiedDriver(app());
  await verifyPhone(app(), driver);
  const page = await (await contextForTest(journey)).newPage();
  await openResumeLink(journey, page, driver.driverId);
  await page.waitForURL('**/complete-profile');
  return { driver, page };
}

/**
 * Watches what the page draws from its next load on, as it draws it: whether the step's own
 * spinner ever shows, and the value of `field` the first time it is there.
 */
async function watchFirstDraw(page: Page, field: string): Promise<() => Promise<unknown>> {
  await page.addInitScript((selector) => {
    const drawn: { stepSpinner: boolean; value?: string } = { stepSpinner: false };
    Object.assign(window, { drawn });
    new MutationObserver(() => {
      if (document.querySelector('.step-loading')) drawn.stepSpinner = true;
      drawn.value ??= document.querySelector<HTMLInputElement>(selector)?.value;
    }).observe(document, { childList: true, subtree: true });
  }, field);
  return () => page.evaluate(() => (window as unknown as { drawn: unknown }).drawn);
}

describe('a draft of the step on the device', () => {
  /** Everything the page's origin keeps: each draft (photos as their type and size) and local storage, as text. */
  const kept = (page: Page) =>
    page.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const request = indexedDB.open('onramp-drafts');
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      const drafts = db.objectStoreNames.contains('drafts')
        ? await new Promise<unknown[]>((resolve) => {
            const request = db.transaction('drafts').objectStore('drafts').getAll();
            request.onsuccess = () => resolve(request.result);
          })
        : [];
      db.close();
      const described = JSON.stringify(drafts, (_key, value) => (value instanceof Blob ? `blob ${value.type} ${value.size}` : value));
      return { drafts: drafts.length, text: `${described} ${JSON.stringify({ ...localStorage })}` };
    });

  it('brings back everything typed and every photo after a reload, but the SSN and the licence number, which never reach the device', async () => {
    const { page } = await atProfileStep();
    await fillProfileStep(page);
    // Saved a moment after the last change: the last of the three photos included.
    await expect.poll(async () => (await kept(page)).text.match(/blob image\/jpeg/g)?.length ?? 0, { timeout: scaled(5_000) }).toBe(3);
    const onDevice = await kept(page);
    expect(onDevice.text).toContain('blob image/jpeg');
    expect(onDevice.text).not.toContain('234567890');
    expect(onDevice.text).not.toContain('H7654321');
    // As a draft saved between the last photo and its value would be: the photo comes back all the same.
    await page.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((resolve) => {
        const request = indexedDB.open('onramp-drafts');
        request.onsuccess = () => resolve(request.result);
      });
      const drafts = db.transaction('drafts', 'readwrite').objectStore('drafts');
      await new Promise<void>((resolve) => {
        drafts.openCursor().onsuccess = (event) => {
          const cursor = (event.target as IDBRequest<IDBCursorWithValue | null>).result;
          if (!cursor) return resolve();
          const draft = cursor.value as { values: Record<string, unknown> };
          delete draft.values.socialSecurityCardBack;
          cursor.update(draft);
          cursor.continue();
        };
      });
      db.close();
    });

    const drawn = await watchFirstDraw(page, '#root_firstName');
    await page.reload();
    await page.getByRole('heading', { name: 'Update Personal Info' }).waitFor();
    // Drawn once, complete: what the signed-in driver sent (nothing yet) and the draft were read as the page opened.
    expect(await drawn()).toEqual({ stepSpinner: false, value: 'Robin' });
    expect(await page.locator('#root_firstName').inputValue()).toBe('Robin');
    expect(await page.locator('#root_dateOfBirth').inputValue()).toBe('1988-07-21');
    expect(await page.locator('#root_gender option:checked').textContent()).toBe('Male');
    await expect.poll(() => page.locator('#root_city').inputValue()).toBe('Austin');
    expect(await page.locator('#root_zipCode').inputValue()).toBe('73301');
    for (const field of ['profilePicture', 'socialSecurityCardFront', 'socialSecurityCardBack'])
      await page.locator(`.w-photo--filled #root_${field}`).waitFor({ state: 'attached' });
    expect(await page.locator('#root_SSN').inputValue()).toBe('');
    expect(await page.locator('#root_driverLicenseNumber').inputValue()).toBe('');
    await screenshot(page, '17-draft-restored');

    await page.locator('#root_SSN').fill('234567890');
    await page.locator('#root_driverLicenseNumber').fill('H7654321');
    await press(page, 'Next');
    await expectToast(page, 'Personal Profile Completed Successfully.');
    // Sent: nothing of the step stays on the device, and the next step, only opened, keeps nothing either
    // (a draft is written 300 ms after a change: a second is well past it).
    await page.waitForURL('**/upload-vehicle-images');
    await page.waitForTimeout(1_000);
    expect((await kept(page)).drafts).toBe(0);
  });

  it('is in the form at its first draw when the step is opened by its address: no spinner before it', async () => {
    const page = await (await contextForTest(journey)).newPage();
    await page.goto(`${journey.baseUrl}/signup`);
    await page.locator('#root_email').fill('robin@example.com');
    await expect.poll(async () => (await kept(page)).drafts, { timeout: scaled(5_000) }).toBe(1);
    const drawn = await watchFirstDraw(page, '#root_email');
    await page.reload();
    await page.locator('#root_email').waitFor();
    expect(await drawn()).toEqual({ stepSpinner: false, value: 'robin@example.com' });
  });

  it('is forgotten when the driver signs out: the next person on the phone finds nothing', async () => {
    const { page } = await atProfileStep();
    await page.locator('#root_firstName').fill('Robin');
    await expect.poll(async () => (await kept(page)).drafts, { timeout: scaled(5_000) }).toBe(1);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expectToast(page, 'You are signed out.');
    expect(await kept(page)).toEqual({ drafts: 0, text: '[] {}' });
  });
});

describe('every screen', () => {
  it(
    'shows every screen of the journey with no accessibility violation of any impact, at 390 and 1280 px',
    async () => {
      const { driver, page } = await atProfileStep();
      // What the earlier steps would have kept, for the guards of the later ones.
      await page.evaluate(
        ({ email, phone }) => {
          localStorage.setItem('email', email);
          localStorage.setItem('phone', phone);
          localStorage.setItem('vehicle_id', 'a-vehicle');
        },
        { email: driver.email, phone: driver.phone },
      );
      const screens = [
        ['/', 'Drive with us'],
        ['/signup', 'Sign up'],
        ['/sign-in', 'Sign in'],
        ['/verify-otp-email', 'Verify your email'],
        ['/verify-otp-phone', 'Verify your phone'],
        ['/complete-profile', 'Update Personal Info'],
        ['/upload-vehicle-images', 'Upload vehicle images'],
        ['/add-vehicle', 'Add Vehicle'],
        ['/awaiting-approval', 'Awaiting Approval'],
        ['/profile-approved', 'Congrats! Profile Has Been Approved.'],
        ['/summary', 'Administrative Fees'],
        ['/add-card', 'Card details'],
        ['/add-bank', 'Bank details'],
        ['/ride/new-request/info', 'New ride requests'],
      ] as const;
      const found: Record<string, string[]> = {};
      for (const [route, heading] of screens) {
        await page.setViewportSize({ width: 390, height: 844 });
        await page.goto(route);
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
        // The same page at each width: the layout follows the screen (CSS), not a reload.
        for (const width of [390, 1280]) {
          await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
          const violations = await axeViolations(page);
          if (violations.length > 0) found[`${route} at ${width} px`] = violations;
        }
      }
      // And a form refused, each field with its message.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto('/complete-profile');
      await press(page, 'Next');
      await page.getByText('Please enter your first name').first().waitFor();
      await screenshot(page, '18-profile-refused');
      const refused = await axeViolations(page);
      if (refused.length > 0) found['/complete-profile refused'] = refused;
      expect(found).toEqual({});
      // Fifteen pages, each checked by axe at two widths: ~20 s alone, three times that beside two
      // other browser files on two busy cores.
    },
    scaled(180_000),
  );
  it('asks a browser with JavaScript off to turn it on, with no spinner turning for ever above it', async () => {
    const context = await journey.browser.newContext({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false, baseURL: journey.baseUrl });
    onTestFinished(() => context.close());
    const page = await context.newPage();
    await page.goto('/signup');
    // Playwright's text queries pass over <noscript>: its element is read directly.
    const message = page.locator('body > noscript');
    expect(await message.innerText()).toBe('Onramp needs JavaScript to run. Please turn it on and reload the page.');
    expect(await message.isVisible()).toBe(true);
    expect(await page.getByRole('status').isVisible()).toBe(false);
  });
});
