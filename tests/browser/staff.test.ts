// @module-tag chromium
// Staff on /admin in headless Chromium: an owner adds a reviewer; the reviewer sets a
// password, signs in on a phone, opens a waiting driver (which claims them) and asks for a fix; a
// second reviewer sees who has the driver and can't decide; the owner reads both actions in the
// audit record; a session that idles out asks for a sign-in over the page, and what was typed stays.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAFF_SESSION_IDLE_MS } from '../../src/server/plugins/staffAuth.js';
import { resetPasswordInEmulator, TEST_PASSWORD, uniqueEmail } from '../support/identity.js';
import { sendVehicle, staffAccount, verifiedDriver, type TestDriver, type TestStaff } from '../support/server.js';
import { contextForTest, expectToast, PHONE_VIEWPORT, screenshot, signInAsStaff, startJourney, type Journey } from './support.js';

const DESKTOP = { width: 1280, height: 900 };

let journey: Journey;
let driver: TestDriver;
let owner: TestStaff & { user: { email: string; password: string } };
let ownerPage: Page;
const reviewerEmail = uniqueEmail('reviewer');

beforeAll(async () => {
  journey = await startJourney();
  driver = await verifiedDriver(journey.server.app);
  await sendVehicle(journey.server.app, driver);
  owner = await staffAccount(journey.server.app, ['owner']);
});
afterAll(async () => {
  journey.server.clock.reset();
  await journey?.close();
});

const section = (page: Page, name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name });

describe('a team of staff, each as themselves', () => {
  it('signs the owner in and shows what an owner may do, and nothing else', async () => {
    ownerPage = await (await journey.browser.newContext({ viewport: DESKTOP, baseURL: journey.baseUrl })).newPage();
    await ownerPage.goto('/admin');
    await ownerPage.getByRole('heading', { name: 'Staff sign-in' }).waitFor();
    await screenshot(ownerPage, '60-staff-sign-in-desktop');
    await signInAsStaff(ownerPage, owner.user);
    await ownerPage.getByText(`${owner.email} · Owner`).waitFor();
    const sections = await ownerPage.getByRole('navigation', { name: 'Sections' }).getByRole('button').allTextContents();
    expect(sections).toEqual(['Drivers', 'Insights', 'Staff', 'Integrations', 'Webhooks', 'Audit record', 'Command line']);
  });

  it('lets the owner add a reviewer', async () => {
    await section(ownerPage, 'Staff').click();
    await ownerPage.getByLabel('Email').fill(reviewerEmail);
    await ownerPage.getByRole('button', { name: 'Add' }).click();
    await expectToast(ownerPage, `${reviewerEmail} was added and emailed an invitation to choose a password.`);
    await ownerPage.getByText(reviewerEmail, { exact: true }).waitFor();
    await screenshot(ownerPage, '61-staff-desktop');
  });

  it('signs the new reviewer in on a phone; opening the waiting driver claims them, and they ask for a fix', async () => {
    // The link "Forgot password?" sends, followed as the reviewer would.
    await resetPasswordInEmulator(reviewerEmail, TEST_PASSWORD);
    const reviewer = await (await contextForTest(journey)).newPage();
    await reviewer.goto('/admin');
    await screenshot(reviewer, '62-staff-sign-in-phone');
    await signInAsStaff(reviewer, { email: reviewerEmail, password: TEST_PASSWORD });
    await reviewer.getByText(`${reviewerEmail} · Reviewer`).waitFor();
    expect(await reviewer.getByRole('navigation', { name: 'Sections' }).getByRole('button').allTextContents()).toEqual([
      'Review',
      'Expiring documents',
      'Drivers',
      'Insights',
      'Command line',
    ]);
    await reviewer.getByRole('button', { name: 'Ada Lovelace', exact: true }).click();
    await reviewer
      .getByText(/^You are reviewing this driver \(until /)
      .first()
      .waitFor();
    await screenshot(reviewer, '63-claimed-phone');

    // A second reviewer, on their own laptop, sees who has the driver and can't decide.
    const second = await staffAccount(journey.server.app, ['reviewer']);
    const secondPage = await (await contextForTest(journey, DESKTOP)).newPage();
    await secondPage.goto('/admin');
    await signInAsStaff(secondPage, second.user);
    await secondPage.getByText(new RegExp(`^Being reviewed by ${reviewerEmail.replace(/[.]/g, '\\.')} \\(until `)).waitFor();
    await secondPage.getByRole('button', { name: 'Ada Lovelace', exact: true }).click();
    await secondPage.getByText('You can decide on this driver once they are released or the claim lapses.').waitFor();
    await expect(secondPage.getByRole('button', { name: /^Approve/ }).count()).resolves.toBe(0);
    await screenshot(secondPage, '64-claimed-by-another-desktop');

    await reviewer.getByLabel('Needs a fix: Last Name').check();
    await reviewer.getByLabel('What to fix in Last Name').fill('Please use the last name on your licence.');
    await reviewer.getByRole('button', { name: /^Ask for a fix/ }).click();
    await reviewer.getByRole('button', { name: /^Ask for a fix of/ }).click();
    await expectToast(reviewer, 'Asked Ada Lovelace for a fix.');
  });

  it('shows the owner both actions in the audit record, with who, which driver and from where', async () => {
    await section(ownerPage, 'Audit record').click();
    await ownerPage.getByLabel('Driver id').fill(driver.driverId);
    await ownerPage.getByLabel('Who (email)').fill(reviewerEmail);
    await ownerPage.getByRole('button', { name: 'Show', exact: true }).click();
    const rows = ownerPage.locator('table.admin-audit tbody tr');
    // Newest first: the fix asked, the 13 documents the card showed (one row), the opening (the claim).
    await expect.poll(() => rows.count()).toBe(3);
    const cells = await rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent)));
    // The owner reads no driver's data otherwise: the driver is named in part.
    const named = `Ada L.${driver.driverId}`;
    expect(cells).toEqual([
      [reviewerEmail, 'driver.reject', named, '127.0.0.1'],
      [reviewerEmail, 'document.open · 13 documents', named, '127.0.0.1'],
      [reviewerEmail, 'driver.open', named, '127.0.0.1'],
    ]);
    await screenshot(ownerPage, '65-audit-desktop');
  });

  it('asks for a sign-in over the page when the session idles out, and keeps what was typed', async () => {
    await ownerPage.getByLabel('What').selectOption('driver.reject');
    journey.server.clock.advance(STAFF_SESSION_IDLE_MS + 60_000);
    await ownerPage.getByRole('button', { name: 'Show', exact: true }).click();
    const dialog = ownerPage.getByRole('dialog', { name: 'Please sign in again' });
    await dialog.getByText('Your staff session has ended. Please sign in again.').waitFor();
    await screenshot(ownerPage, '66-sign-in-again-desktop');
    await dialog.getByLabel('Password').fill(owner.user.password);
    await dialog.getByRole('button', { name: 'Sign in again' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect(ownerPage.getByLabel('Who (email)').inputValue()).resolves.toBe(reviewerEmail);
    await expect(ownerPage.getByLabel('Driver id').inputValue()).resolves.toBe(driver.driverId);
    await expect(ownerPage.getByLabel('What').inputValue()).resolves.toBe('driver.reject');
    // Signed in again, the page asks again: only the fix asked is left.
    await ownerPage.getByRole('button', { name: 'Show', exact: true }).click();
    await expect.poll(() => ownerPage.locator('table.admin-audit tbody tr').count()).toBe(1);
  });

  it('lays the audit record out on a phone too', async () => {
    const phone = await (await contextForTest(journey, PHONE_VIEWPORT)).newPage();
    await phone.goto('/admin');
    await signInAsStaff(phone, owner.user);
    await section(phone, 'Audit record').click();
    await phone.locator('table.admin-audit tbody tr').first().waitFor();
    // Nothing wider than the screen but the table's own scrolling box.
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE_VIEWPORT.width);
    await screenshot(phone, '67-audit-phone');
  });
});
