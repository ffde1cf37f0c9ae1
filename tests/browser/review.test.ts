// @module-tag chromium
// Per-field review in headless Chromium: a reviewer on /admin marks the licence photo and the last
// name as needing a fix; the driver, on the approval wait, reads what to fix, lands on the profile
// with every other answer prefilled, fixes the name, is sent on to the vehicle step (prefilled,
// photos shown as already added), replaces the photo, and is pending again; the reviewer sees
// exactly those two answers marked as changed, and approves.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, json, sendVehicle, staffAccount, verifiedDriver, type TestDriver } from '../support/server.js';
import { choosePhoto, expectToast, press, screenshot, signInAsStaff, startJourney, type Journey } from './support.js';

let journey: Journey;
let driver: TestDriver;
let admin: Page;
const page = () => journey.page;

beforeAll(async () => {
  journey = await startJourney();
  driver = await verifiedDriver(journey.server.app);
  await sendVehicle(journey.server.app, driver);
  const reviewer = await staffAccount(journey.server.app, ['reviewer']);
  admin = await journey.browser.newPage({ baseURL: journey.baseUrl, viewport: { width: 1280, height: 900 } });
  await admin.goto('/admin');
  await signInAsStaff(admin, reviewer.user);
});
afterAll(async () => {
  await journey?.close();
});

/** Opens the driver's card on the review page (the queue lists the profile's name). */
async function openDriver(): Promise<void> {
  await admin.getByRole('button', { name: 'Ada Lovelace', exact: true }).click();
  await admin.getByRole('heading', { name: 'Complete profile' }).waitFor();
}

describe('a reviewer asks for two fixes, and only those are sent again', () => {
  it('shows the driver’s answers drawn from the schemas, the SSN masked, documents as thumbnails', async () => {
    await openDriver();
    await admin.getByText('•••••6789').waitFor();
    await expect(admin.getByText('123456789').count()).resolves.toBe(0);
    await expect.poll(() => admin.locator('.admin-thumb-image').count()).toBe(13);
    await screenshot(admin, '30-review-from-schemas');
  });

  it('marks the last name and the licence photo with a reason each and sends the rejection', async () => {
    await admin.getByLabel('Needs a fix: Last Name').check();
    await admin.getByLabel('What to fix in Last Name').fill('Please use the last name on your licence.');
    await admin.getByLabel('Needs a fix: Driver License (front)').check();
    await admin.getByRole('button', { name: /^Ask for 2 fixes/ }).click();
    // Sent with one fix unwritten: that fix's input says so and takes the focus, not the optional note.
    await admin.getByRole('button', { name: /^Ask for 2 fixes of/ }).click();
    const unwritten = admin.getByLabel('What to fix in Driver License (front)');
    await expect.poll(() => unwritten.evaluate((input) => input === document.activeElement)).toBe(true);
    await expect(unwritten.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(admin.getByLabel('A note to Ada Lovelace (optional)').getAttribute('aria-invalid')).resolves.toBeNull();
    await admin.getByRole('alert').filter({ hasText: 'Please say what to fix in each field you marked.' }).waitFor();
    await unwritten.fill('The licence photo is blurry.');
    await expect(unwritten.getAttribute('aria-invalid')).resolves.toBeNull();
    await expect(admin.getByText('Please say what to fix in each field you marked.').count()).resolves.toBe(0);
    await screenshot(admin, '31-review-fixes');
    await admin.getByRole('button', { name: /^Ask for 2 fixes of/ }).click();
    await expectToast(admin, 'Asked Ada Lovelace for 2 fixes.');
  });

  it('tells the driver what to fix and takes them to the profile, prefilled, the name marked', async () => {
    const link = await journey.server.app.inject({
      method: 'POST',
      url: `/admin/drivers/${driver.driverId}/resume-link`,
      headers: bearer(journey.server.reviewer.key),
    });
    await page().goto(new URL(json<{ url: string }>(link).url).pathname);
    await page().waitForURL('**/awaiting-approval');
    await page().getByText('The reviewer asked you to fix:').waitFor();
    await page().getByText('Please use the last name on your licence.').waitFor();
    await page().getByText('The licence photo is blurry.').waitFor();
    await screenshot(page(), '32-driver-fixes');
    await page().getByRole('button', { name: 'Fix these now' }).click();
    await page().waitForURL('**/complete-profile');
    await expect.poll(() => page().locator('#root_firstName').inputValue()).toBe('Ada');
    await expect(page().locator('#root_lastName').inputValue()).resolves.toBe('Lovelace');
    await expect(page().locator('#root_SSN').inputValue()).resolves.toBe('•••••6789');
    await screenshot(page(), '33-profile-to-fix');
    await expect(page().locator('#root_lastName__error').textContent()).resolves.toBe('Please use the last name on your licence.');
    await expect(page().locator('#root_lastName').getAttribute('aria-invalid')).resolves.toBe('true');
  });

  it('sends the fixed name with everything else kept, and goes on to the vehicle step', async () => {
    await page().locator('#root_lastName').fill('King');
    await press(page(), 'Next');
    await expectToast(page(), 'Personal Profile Completed Successfully.');
    await page().waitForURL('**/add-vehicle');
    await expect.poll(() => page().locator('#root_vehicleMake').inputValue()).toBe('Toyota');
    await screenshot(page(), '35-vehicle-to-fix');
    await expect(page().locator('#root_driverLicenseCardFront__error').textContent()).resolves.toBe('The licence photo is blurry.');
  });

  it('replaces only the licence photo and is pending again: the waiting page never shows the fixes just sent', async () => {
    // Every heading the waiting page shows, from its first draw (the page read the rejection before).
    await page().evaluate(() => {
      const shown: string[] = [];
      (window as unknown as { waitingHeadings: string[] }).waitingHeadings = shown;
      new MutationObserver(() => {
        const heading = document.querySelector('h1')?.textContent;
        if (location.pathname === '/awaiting-approval' && heading && shown.at(-1) !== heading) shown.push(heading);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await choosePhoto(page(), 'driverLicenseCardFront', 'Sharp licence');
    await press(page(), 'Confirm & Send for Approval');
    await expectToast(page(), 'Profile & Vehicle sent for approval.');
    await page().waitForURL('**/awaiting-approval');
    await page().getByRole('heading', { name: 'Awaiting Approval' }).waitFor();
    await expect(page().getByText('The reviewer asked you to fix:').count()).resolves.toBe(0);
    expect(await page().evaluate(() => (window as unknown as { waitingHeadings: string[] }).waitingHeadings)).toEqual(['Awaiting Approval']);
    const { rows } = await journey.server.db.query<{ status: string }>('SELECT status FROM drivers WHERE id = $1', [driver.driverId]);
    expect(rows[0]?.status).toBe('pending');
  });

  it('shows the reviewer what changed since, and nothing else, and approves', async () => {
    await admin.reload();
    await admin.getByRole('button', { name: 'Ada King', exact: true }).click();
    await admin.getByRole('heading', { name: 'Complete profile' }).waitFor();
    await admin.getByText('Changed since the last review: was Lovelace').waitFor();
    await expect(admin.locator('.admin-answer.is-changed dt').allTextContents()).resolves.toEqual(['Last Name', 'Driver License (front)']);
    await screenshot(admin, '34-review-changed');
    await admin.getByRole('button', { name: /^Approve Ada King/ }).click();
    await expectToast(admin, 'Driver approved.');
  });
});
