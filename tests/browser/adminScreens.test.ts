// @module-tag chromium
// Every admin screen in headless Chromium, on a phone (390 px) and a laptop (1280 px): a driver
// claimed by a colleague with a long email, another opened for a fix, the expiring documents, the
// insights of seeded drivers, the drivers a stalled count opens and one's timeline, data requests (a driver found by email), staff, the audit record, webhooks and the command-line key.
// Each screen fits its width (nothing wider, nothing scrolling sideways) and axe-core finds no
// serious or critical issue on it; the words are staff's: the flow's step titles, times in
// minutes, hours or days, "Ask for a fix", and an audit record that names the driver and shows one
// opening of a driver's documents as one row.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDuration } from '../../src/client/admin/adminData.js';
import type { Flow } from '../../src/shared/flow.js';
import { FUNNEL, seedDrivers, writeSeed } from '../support/insightsSeed.js';
import { bearer, sendVehicle, staffAccount, staffKey, verifiedDriver, type TestDriver } from '../support/server.js';
import { axeViolations, PHONE_VIEWPORT, screenshot, signInAsStaff, startJourney, type Journey } from './support.js';
import { scaled } from '../support/machineSpeed.js';

const DAY_MS = 24 * 3600 * 1000;
const day = (date: Date) => date.toISOString().slice(0, 10);
const flow = JSON.parse(readFileSync('flows/onboarding.flow.json', 'utf8')) as Flow;

let journey: Journey;
let claimed: TestDriver;
let open: TestDriver;
let base: Date;
let staff: Awaited<ReturnType<typeof staffAccount>>;
const colleague = `acolleaguewitharatherlongaddress${randomBytes(4).toString('hex')}@reviewersofonrampexamplecompany.com`;

beforeAll(async () => {
  journey = await startJourney();
  const { app } = journey.server;
  claimed = await verifiedDriver(app);
  await sendVehicle(app, claimed);
  open = await verifiedDriver(app);
  await sendVehicle(app, open);
  // The colleague opens the first driver, which makes them theirs for now.
  const { key } = await staffKey(app, ['reviewer'], colleague);
  const opened = await app.inject({ method: 'GET', url: `/admin/drivers/${claimed.driverId}`, headers: bearer(key) });
  expect(opened.statusCode).toBe(200);
  base = new Date(Date.parse(`${day(new Date())}T00:00:00Z`) - 20 * DAY_MS);
  await writeSeed(journey.server.db, seedDrivers(base), 'screens');
  staff = await staffAccount(app, ['reviewer', 'privacy-officer', 'owner']);
});
afterAll(() => journey?.close());

/** What makes a screen wider than the window: the page's own width, and each element past its edges or scrolling sideways. */
async function overflow(page: Page) {
  return page.evaluate(() => {
    const width = window.innerWidth;
    const name = (element: Element) =>
      `${element.tagName.toLowerCase()}${element.className && typeof element.className === 'string' ? `.${element.className.split(' ').join('.')}` : ''}`;
    const elements = [...document.querySelectorAll('body *')];
    return {
      pageWider: document.scrollingElement!.scrollWidth > width,
      pastTheEdge: elements
        .filter((element) => {
          const box = element.getBoundingClientRect();
          return box.width > 0 && (box.right > width + 0.5 || box.left < -0.5);
        })
        .map(name),
      scrollingSideways: elements
        .filter((element) => /auto|scroll/.test(getComputedStyle(element).overflowX) && element.scrollWidth > element.clientWidth + 1)
        .map(name),
    };
  });
}

const FITS = { pageWider: false, pastTheEdge: [], scrollingSideways: [] };

/** The serious and critical issues axe-core finds on the page as it is. */
const seriousIssues = async (page: Page) => (await axeViolations(page)).filter((violation) => /^\S+ \((serious|critical)\)/.test(violation));

/** Fits and is accessible, with a screenshot of it. */
async function checkScreen(page: Page, name: string, found: Record<string, unknown>) {
  await screenshot(page, name);
  const fit = await overflow(page);
  if (JSON.stringify(fit) !== JSON.stringify(FITS)) found[`${name} fit`] = fit;
  const issues = await seriousIssues(page);
  if (issues.length > 0) found[`${name} axe`] = issues;
}

const section = (page: Page, name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name, exact: true });
const card = (page: Page, driver: TestDriver) => page.locator('li.admin-driver', { hasText: driver.email });

async function openInsights(page: Page) {
  await section(page, 'Insights').click();
  await page.getByLabel('Signed up from').fill(day(base));
  await page.getByLabel('to', { exact: true }).fill(day(new Date(base.getTime() + 11 * DAY_MS)));
  await page.getByRole('button', { name: 'Show', exact: true }).click();
  await page.locator('.admin-insights-steps tbody tr').first().waitFor();
}

describe.each([
  ['phone', PHONE_VIEWPORT],
  ['laptop', { width: 1280, height: 800 }],
])('every admin screen on a %s', (device, viewport) => {
  let page: Page;
  // One page for the walk and the checks of its words, as a member of staff goes through them.
  beforeAll(async () => {
    const context = await journey.browser.newContext({ viewport, isMobile: viewport === PHONE_VIEWPORT, hasTouch: true, baseURL: journey.baseUrl });
    page = await context.newPage();
  });
  afterAll(() => page.context().close());

  // Every admin screen in turn, each checked by axe: about 30 s alone, three times that beside other browser files on two cores.
  it(
    'fits the width, with no serious accessibility issue, on every screen',
    async () => {
      const found: Record<string, unknown> = {};
      await page.goto('/admin');
      await page.getByRole('heading', { name: 'Staff sign-in' }).waitFor();
      await checkScreen(page, `80-admin-sign-in-${device}`, found);
      await signInAsStaff(page, staff.user);

      // The queue, both drivers opened: one the colleague has, one to ask a fix of.
      await page.getByLabel('Search by name, email or phone').fill('Lovelace');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      for (const driver of [claimed, open]) {
        await card(page, driver).getByRole('button', { name: 'Ada Lovelace', exact: true }).click();
        await expect.poll(() => card(page, driver).locator('.admin-thumb-image').count()).toBe(13);
      }
      await card(page, claimed).getByText(`Being reviewed by ${colleague}`).first().waitFor();
      await card(page, open).getByLabel('Needs a fix: Last Name').check();
      await card(page, open).getByLabel('What to fix in Last Name').fill('Please use the last name on your licence.');
      await card(page, open)
        .getByRole('button', { name: /^Ask for / })
        .click();
      await checkScreen(page, `81-admin-review-${device}`, found);
      for (const tab of ['Approved', 'Rejected']) {
        await page.getByRole('tab', { name: tab }).click();
        await page.getByRole('heading', { name: `${tab} drivers` }).waitFor();
        await checkScreen(page, `82-admin-review-${tab.toLowerCase()}-${device}`, found);
      }

      await section(page, 'Expiring documents').click();
      await page.getByLabel('Expiring within (days)').fill('365');
      await page.getByRole('button', { name: 'Show', exact: true }).click();
      await page.locator('.admin-expiring tbody tr, .admin-empty').first().waitFor();
      await checkScreen(page, `83-admin-expiring-${device}`, found);

      await openInsights(page);
      await checkScreen(page, `84-admin-insights-${device}`, found);

      // A stalled count opens exactly the drivers it counts; one of them opens on their timeline.
      const stalled = page.locator('.admin-insights-steps td[data-label="Stalled"] button').first();
      const count = Number(await stalled.textContent());
      await stalled.click();
      await page.getByRole('heading', { name: 'Drivers', exact: true }).waitFor();
      await page.locator('.admin-people tbody tr').first().waitFor();
      expect(await page.locator('.admin-people-total').textContent()).toBe(`${count} ${count === 1 ? 'driver' : 'drivers'}`);
      expect(await page.locator('.admin-people tbody tr').count()).toBe(count);
      await checkScreen(page, `90-admin-drivers-${device}`, found);
      await page.locator('.admin-people tbody tr button').first().click();
      await page.getByRole('heading', { name: 'Timeline' }).waitFor();
      await checkScreen(page, `91-admin-driver-timeline-${device}`, found);

      // A privacy officer finds the driver by their whole email: the one found is the one exported or erased.
      await section(page, 'Data requests').click();
      await page.getByLabel('Find the driver by their whole email or phone').fill(claimed.email);
      await page.getByRole('button', { name: 'Find', exact: true }).click();
      await expect.poll(() => page.getByLabel('Driver id').inputValue()).toBe(claimed.driverId);
      await checkScreen(page, `85-admin-data-requests-${device}`, found);

      await section(page, 'Staff').click();
      await page.getByText(colleague, { exact: true }).waitFor();
      await checkScreen(page, `86-admin-staff-${device}`, found);

      await section(page, 'Audit record').click();
      await page.locator('table.admin-audit tbody tr').first().waitFor();
      await checkScreen(page, `87-admin-audit-${device}`, found);

      // An endpoint with a long description, its secret just made, and a test event delivered to the app's own receiver.
      await section(page, 'Webhooks').click();
      const add = page.getByRole('form', { name: 'Add an endpoint' });
      await add.getByLabel('URL').fill(`${journey.baseUrl}/dev/webhooks`);
      await add.getByLabel('Description (optional)').fill(`The dispatch system (${device}), which assigns approved drivers to their first shifts`);
      await add.getByRole('button', { name: 'Add endpoint' }).click();
      await page.getByText('Copy it now: you won’t see it again.').waitFor();
      const hook = page.locator('li.admin-webhook', { hasText: `The dispatch system (${device})` });
      await hook.getByRole('button', { name: 'Send test event' }).click();
      await hook.getByRole('cell', { name: 'Delivered' }).waitFor();
      await checkScreen(page, `89-admin-webhooks-${device}`, found);
      await page.getByRole('button', { name: 'Done' }).click();

      await section(page, 'Command line').click();
      await page.getByLabel('What it is for').fill(`A nightly export script on the reporting server (${device})`);
      await page.getByRole('button', { name: 'Make a key' }).click();
      await page.getByText('Your key, shown this once:').waitFor();
      await checkScreen(page, `88-admin-key-${device}`, found);

      expect(found).toEqual({});
    },
    scaled(180_000),
  );

  it('names the funnel’s steps by the flow’s titles and its times in minutes, hours or days', async () => {
    await openInsights(page);
    const titles = FUNNEL.map((step) => flow.steps[step]!.title);
    expect(titles).toEqual([
      'Sign up',
      'Verify email',
      'Verify phone',
      'Complete profile',
      'Upload vehicle images',
      'Add vehicle',
      'Approved',
      'Subscription paid',
      'Add bank',
    ]);
    expect(await page.locator('.admin-funnel-label').allTextContents()).toEqual(titles);
    const rows = page.locator('.admin-insights-steps tbody tr');
    expect(await rows.locator('td:first-child').allTextContents()).toEqual(titles);
    const times = await rows.evaluateAll((trs) => trs.flatMap((tr) => [...tr.querySelectorAll('td')].slice(3, 5).map((td) => td.textContent)));
    expect(times.filter((time) => !/^(—|less than a minute|\d+ minutes?|\d+(\.\d)? hours?|\d+(\.\d)? days?)$/.test(time ?? ''))).toEqual([]);
    // Seeded steps an hour or so apart: some take hours, none is shown as "0 h".
    expect(times.some((time) => time?.endsWith('hours'))).toBe(true);
    const median = await page.locator('[data-figure="reviewMedian"]').textContent();
    expect(median).toMatch(/^\d+(\.\d)? (hours|days)$/);
    expect(formatDuration(0.25)).toBe('15 minutes');
  });

  it('titles a driver’s sections in one case, and a fix form “Ask for a fix”', async () => {
    await section(page, 'Review').click();
    await page.getByLabel('Search by name, email or phone').fill('Lovelace');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await card(page, open).getByRole('button', { name: 'Ada Lovelace', exact: true }).click();
    expect(await card(page, open).locator('.admin-section h4').allTextContents()).toEqual([
      'Account',
      'Complete profile',
      'Upload vehicle images',
      'Add vehicle',
    ]);
    await card(page, open).getByLabel('Needs a fix: Last Name').check();
    await card(page, open).getByLabel('What to fix in Last Name').fill('Please use the last name on your licence.');
    await card(page, open).getByRole('button', { name: 'Ask for a fix Ada Lovelace' }).click();
    const form = card(page, open).getByRole('form', { name: 'Ask for a fix' });
    await form.getByLabel('A note to Ada Lovelace (optional)').waitFor();
    expect(await form.getByRole('button').allTextContents()).toEqual(['Ask for a fix of Ada Lovelace', 'Cancel']);
    await form.getByRole('button', { name: 'Cancel' }).click();
  });

  it('shows one row for one opening of a driver’s documents, and names the driver', async () => {
    await section(page, 'Audit record').click();
    await page.getByLabel('Driver id').fill(claimed.driverId);
    await page.getByLabel('Who (email)').fill(staff.email);
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    const rows = page.locator('table.admin-audit tbody tr');
    // Each laptop and phone walk opened the driver once: each opening is two rows, the newest first.
    await expect.poll(() => rows.count()).toBe(device === 'phone' ? 2 : 4);
    const cells = await rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(1, 4).map((td) => (td as HTMLElement).innerText)));
    expect(cells.slice(0, 2)).toEqual([
      [staff.email, 'document.open · 13 documents', `Ada Lovelace\n${claimed.driverId}`],
      [staff.email, 'driver.open', `Ada Lovelace\n${claimed.driverId}`],
    ]);
  });
});
