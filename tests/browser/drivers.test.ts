// @module-tag chromium
// An owner follows up stalled drivers in headless Chromium: the insights' stalled count opens the
// list of exactly those drivers; one opens on their timeline, which tells their codes, notices and
// reminders in time order and in plain words; the owner sends them a link back to their step, which
// is in the outbox in the driver's language and on the audit record; then pauses the reminders of
// both at once. Each screen fits a phone and a laptop.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveredBy, staffAccount, verifiedDriver, verifyPhone, type TestDriver } from '../support/server.js';
import { contextForTest, PHONE_VIEWPORT, screenshot, signInAsStaff, startJourney, type Journey } from './support.js';

const HOUR_MS = 3600 * 1000;
const DAY_MS = 24 * HOUR_MS;
const LAPTOP = { width: 1280, height: 900 };
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

let journey: Journey;
let spanish: TestDriver;
let english: TestDriver;
let owner: Awaited<ReturnType<typeof staffAccount>>;
const signedUpOn = day(Date.now());

beforeAll(async () => {
  journey = await startJourney();
  const { app, db, clock } = journey.server;
  // Two drivers stopped at their profile (one reads Spanish), one at their phone.
  spanish = await verifiedDriver(app);
  await verifyPhone(app, spanish);
  await db.query("UPDATE drivers SET locale = 'es' WHERE id = $1", [spanish.driverId]);
  english = await verifiedDriver(app);
  await verifyPhone(app, english);
  await verifiedDriver(app);
  // Three days on, at noon in New York (the reminders keep its quiet hours): their second reminder is due.
  let noon = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate(), 17);
  while (noon < Date.now() + 72 * HOUR_MS + 60_000) noon += DAY_MS;
  clock.offsetMs = noon - Date.now();
  await app.reminders.remindDue();
  await app.messaging.deliverDue();
  owner = await staffAccount(app, ['owner']);
});
afterAll(async () => {
  journey?.server.clock.reset();
  await journey?.close();
});

async function openStalled(page: Page) {
  await page.goto('/admin');
  await signInAsStaff(page, owner.user);
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name: 'Insights' }).click();
  await page.getByLabel('Signed up from').fill(signedUpOn);
  await page.getByLabel('to', { exact: true }).fill(signedUpOn);
  await page.getByLabel('Stalled after (days without progress)').fill('2');
  await page.getByRole('button', { name: 'Show', exact: true }).click();
  await page.getByRole('button', { name: '2 stalled at Complete profile: show them' }).click();
  await page.getByRole('heading', { name: 'Drivers', exact: true }).waitFor();
  await page.locator('.admin-people tbody tr').first().waitFor();
}

const fitsWidth = (page: Page) => page.evaluate(() => document.scrollingElement!.scrollWidth <= window.innerWidth);

describe('the Drivers section', () => {
  it('takes an owner from a stalled count to a driver’s timeline, and sends them a link back to their step', async () => {
    const page = await (await contextForTest(journey, LAPTOP)).newPage();
    await openStalled(page);
    expect(await page.locator('.admin-people-total').textContent()).toBe('2 drivers');
    const emails = await page.locator('.admin-people tbody td[data-label="Driver"] button').allTextContents();
    expect(emails.sort()).toEqual([spanish.email, english.email].sort());
    await screenshot(page, '92-drivers-list-desktop');

    await page.getByRole('button', { name: spanish.email, exact: true }).click();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    const told = async () =>
      page
        .locator('.admin-timeline')
        .first()
        .locator('li')
        .evaluateAll((items) => items.map((item) => [item.getAttribute('data-kind'), item.textContent!.replace(/^.*? — /, '')]));
    const events = await told();
    const of = (kinds: string[]) => events.filter(([kind]) => kinds.includes(kind!)).map(([, words]) => words);
    expect(of(['codeSent', 'codeVerified', 'reminder'])).toEqual([
      'Code sent for: Verify email (by email)',
      'Code verified for: Verify email (by email)',
      'Code sent for: Verify phone (by text message)',
      'Code verified for: Verify phone (by text message)',
      'Reminder sent about: Complete profile (by email, delivered)',
      'Reminder sent about: Complete profile (by text message, delivered)',
    ]);
    // No raw names (a notice's key, an action's id): words only.
    expect(events.map(([, words]) => words).join('\n')).not.toMatch(/\b[a-z]+\.[a-z-]+\b|[a-z][A-Z]/);
    expect(await page.locator('.admin-timeline time').first().getAttribute('datetime')).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    await page.getByRole('button', { name: 'Email a link back to their step' }).click();
    await page.getByRole('status').getByText('A link back to their step was emailed.').waitFor();
    await page.locator('.admin-timeline li', { hasText: `Staff: Sent them a link back to their step by ${owner.email}` }).waitFor();
    await screenshot(page, '93-driver-timeline-desktop');

    const sent = (await deliveredBy(journey.server.db, journey.server.app)).find(
      (entry) => entry.to === spanish.email && 'notice' in entry && entry.notice === 'resumeLink',
    );
    expect(sent?.subject).toBe('Sigue con tu registro en Onramp');
    const link = new URL(/justo donde lo dejaste: (\S+)\n/.exec(sent!.text)![1]!);
    expect(link.pathname).toMatch(new RegExp(`^/${spanish.driverId}/[^/]+$`));
    // The driver opens it: signed in, at the step they stopped at.
    const driverPage = await (await contextForTest(journey)).newPage();
    await driverPage.goto(link.pathname);
    await driverPage.waitForURL('**/complete-profile');
    const { rows } = await journey.server.db.query<{ actor: string; details: { channel: string } }>(
      "SELECT actor, details FROM audit_events WHERE action = 'driver.resume-link-sent' AND driver_id = $1",
      [spanish.driverId],
    );
    expect(rows).toEqual([{ actor: owner.email, details: expect.objectContaining({ channel: 'email' }) }]);
    await page.locator('.admin-timeline li[data-kind="notice"]', { hasText: 'Notice sent: Link back to their step (by email, delivered)' }).waitFor();

    // Both at once: a count to confirm, then what came of it.
    await page.getByRole('button', { name: 'Back to the list' }).click();
    await page.locator('.admin-people tbody tr').first().waitFor();
    await page.getByLabel('With all 2 drivers listed').selectOption({ label: 'Pause reminders' });
    await page.getByRole('button', { name: 'Apply…' }).click();
    await page.getByText('Pause reminders for 2 drivers?').waitFor();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').getByText('Reminders were paused for 2 of 2 drivers.').waitFor();
    const { rows: paused } = await journey.server.db.query('SELECT id FROM drivers WHERE reminders_paused_at IS NOT NULL');
    expect(paused.map((row) => row.id).sort()).toEqual([spanish.driverId, english.driverId].sort());
  });

  it('fits a phone, the list and a driver’s page', async () => {
    const page = await (await contextForTest(journey, PHONE_VIEWPORT)).newPage();
    await openStalled(page);
    // A row's box shows and takes a tap, and the driver's name or email stays beside the cell's label, not under it.
    const row = page.locator('.admin-people tbody tr').first();
    const tick = row.getByRole('checkbox');
    expect((await tick.boundingBox())?.width).toBeGreaterThan(10);
    await tick.check();
    await expect(tick.isChecked()).resolves.toBe(true);
    await page.getByLabel('With the driver ticked', { exact: true }).waitFor();
    const cell = await row.locator('td').nth(1).boundingBox();
    const driver = await row.locator('td').nth(1).getByRole('button').boundingBox();
    expect(driver!.x).toBeGreaterThanOrEqual(cell!.x + 88);
    await page.locator('.admin-row-actions summary').first().click();
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, '94-drivers-list-phone');
    await page.getByRole('button', { name: english.email, exact: true }).click();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, '95-driver-timeline-phone');
  });
});
