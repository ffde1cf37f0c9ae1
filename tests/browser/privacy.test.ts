// @module-tag chromium
// A privacy officer's request in headless Chromium, on a laptop and on a phone: they find the
// driver by their whole email on the data-requests page, export their data and erase them; the
// lookup, the export and the erasure are each on the audit record, as them.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staffAccount, verifiedDriver } from '../support/server.js';
import { axeViolations, contextForTest, expectToast, PHONE_VIEWPORT, screenshot, signInAsStaff, startJourney, type Journey } from './support.js';

let journey: Journey;
beforeAll(async () => {
  journey = await startJourney();
});
afterAll(() => journey?.close());

const section = (page: Page, name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name, exact: true });

describe.each([
  ['laptop', { width: 1280, height: 900 }],
  ['phone', PHONE_VIEWPORT],
])('a privacy officer on a %s', (device, viewport) => {
  it('finds a driver by email, exports and erases them, each on the record', async () => {
    const { app, db } = journey.server;
    const driver = await verifiedDriver(app);
    const officer = await staffAccount(app, ['privacy-officer']);
    const page = await (await contextForTest(journey, viewport)).newPage();
    await page.goto('/admin');
    await signInAsStaff(page, officer.user);
    await page.getByText(`${officer.email} · Privacy officer`).waitFor();
    await section(page, 'Data requests').click();

    await page.getByLabel('Find the driver by their whole email or phone').fill(driver.email);
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.locator('.admin-privacy-found li', { hasText: driver.email }).waitFor();
    await expect.poll(() => page.getByLabel('Driver id').inputValue()).toBe(driver.driverId);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    expect((await axeViolations(page)).filter((violation) => /^\S+ \((serious|critical)\)/.test(violation))).toEqual([]);
    await screenshot(page, `92-privacy-found-${device}`);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export their data' }).click()]);
    expect(download.suggestedFilename()).toBe(`onramp-driver-${driver.driverId}.zip`);
    await expectToast(page, 'Exported. The file holds the driver’s SSN and documents in clear: hand it to the driver only, then delete it.');

    await page.getByLabel('To erase, type the driver’s email').fill(driver.email);
    await page.getByRole('button', { name: 'Erase the driver' }).click();
    await expectToast(page, `Driver ${driver.driverId} was erased. Payment records are kept without the person.`);
    await screenshot(page, `93-privacy-erased-${device}`);

    // Asked again, nobody has the email any more.
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.getByText('No driver has this email or phone.').waitFor();

    const { rows } = await db.query<{ action: string; driver_id: string | null; ip: string; details: Record<string, unknown> }>(
      'SELECT action, driver_id, ip, details FROM audit_events WHERE actor = $1 AND action <> $2 ORDER BY id',
      [officer.email, 'staff.sign-in'],
    );
    expect(rows.map((row) => [row.action, row.driver_id, row.ip, row.action === 'driver.lookup' ? row.details : undefined])).toEqual([
      ['driver.lookup', null, '127.0.0.1', { by: 'email', found: 1 }],
      ['driver.export', driver.driverId, '127.0.0.1', undefined],
      ['driver.erase', driver.driverId, '127.0.0.1', undefined],
      ['driver.lookup', null, '127.0.0.1', { by: 'email', found: 0 }],
    ]);
    // Nothing of the driver is in the record.
    expect(JSON.stringify(rows)).not.toContain(driver.email);
  });
});
