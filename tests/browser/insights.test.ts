// @module-tag chromium
// The insights tab in headless Chromium: a reviewer opens it for a range of seeded
// drivers whose figures tests/support/insightsSeed.ts computed on its own; the funnel (chart and
// table) and the review figures show them, and the CSV the page downloads holds the same.
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDuration } from '../../src/client/admin/adminData.js';
import { expectedFigures, FUNNEL, seedDrivers, writeSeed, type SeedDriver } from '../support/insightsSeed.js';
import { staffAccount, type TestStaff } from '../support/server.js';
import { contextForTest, screenshot, signInAsStaff, startJourney, type Journey } from './support.js';

const DAY_MS = 24 * 3600 * 1000;
const day = (date: Date) => date.toISOString().slice(0, 10);
const DESKTOP = { width: 1280, height: 900 };

let journey: Journey;
let drivers: SeedDriver[];
let base: Date;
let reviewer: TestStaff & { user: { email: string; password: string } };

beforeAll(async () => {
  journey = await startJourney();
  base = new Date(Date.parse(`${day(new Date())}T00:00:00Z`) - 20 * DAY_MS);
  drivers = seedDrivers(base);
  await writeSeed(journey.server.db, drivers, 'browser');
  reviewer = await staffAccount(journey.server.app, ['reviewer']);
});
afterAll(() => journey?.close());

const percent = (share: number | null) => (share === null ? '—' : `${(share * 100).toFixed(1)}%`);

async function openInsights(page: Page) {
  await page.goto('/admin');
  await signInAsStaff(page, reviewer.user);
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name: 'Insights' }).click();
  await page.getByLabel('Signed up from').fill(day(base));
  await page.getByLabel('to', { exact: true }).fill(day(new Date(base.getTime() + 11 * DAY_MS)));
  await page.getByLabel('Stalled after (days without progress)').fill('17');
  await page.getByRole('button', { name: 'Show', exact: true }).click();
}

describe('the insights tab', () => {
  it('shows the funnel and the review figures of the seeded drivers, and downloads them as CSV', async () => {
    const page = await (await contextForTest(journey, DESKTOP)).newPage();
    await openInsights(page);
    const expected = expectedFigures(drivers, {
      from: base,
      until: new Date(base.getTime() + 12 * DAY_MS),
      method: null,
      language: null,
      stalledDays: 17,
      now: new Date(),
    });
    await page.locator('[data-figure="drivers"]', { hasText: String(expected.drivers) }).waitFor();
    const rows = await page
      .locator('.admin-insights-steps tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent)));
    expect(rows).toEqual(
      expected.steps.map((step) => [
        String(step.completed),
        percent(step.conversion),
        formatDuration(step.medianHours),
        formatDuration(step.p90Hours),
        step.stalled === null ? '—' : String(step.stalled),
      ]),
    );
    // The chart: a bar per step, each named by its step, the widest the first.
    const bars = await page.locator('.admin-funnel-row').evaluateAll((rows) =>
      rows.map((row) => ({
        step: row.getAttribute('data-step'),
        width: row.querySelector('.admin-funnel-bar')!.getBoundingClientRect().width,
        value: row.querySelector('.admin-funnel-value')!.textContent,
      })),
    );
    expect(bars.map((bar) => bar.step)).toEqual([...FUNNEL]);
    expect(bars.map((bar) => bar.value)).toEqual(expected.steps.map((step) => String(step.completed)));
    expect(bars.every((bar) => bar.width <= bars[0]!.width)).toBe(true);
    expect(await page.locator('[data-figure="approvalRate"]').textContent()).toBe(percent(expected.review.approvalRate));
    expect(await page.locator('[data-figure="reviewMedian"]').textContent()).toBe(formatDuration(expected.review.medianHours));
    expect(await page.locator('[data-figure="reviewP90"]').textContent()).toBe(formatDuration(expected.review.p90Hours));
    expect(await page.locator('svg.admin-chart circle').count()).toBe(expected.review.byDay.length);
    expect(await page.locator('.admin-insights-reasons li').allTextContents()).toEqual(expected.review.fixReasons.map((fix) => `${fix.reason} (${fix.count})`));
    // Twelve days are read driver by driver: every time exact, nothing said about it.
    expect(await page.locator('[data-figure="timesApproximate"]').count()).toBe(0);
    await screenshot(page, '70-insights-desktop');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    const csv = await readFile((await download.path())!, 'utf8');
    const tables = csv
      .trimEnd()
      .split('\r\n\r\n')
      .map((table) => table.split('\r\n').map((line) => line.split(',')));
    const text = (value: number | null) => (value === null ? '' : String(value));
    expect(tables[0]![1]!.slice(5)).toEqual([String(expected.drivers), 'true']);
    expect(tables[1]!.slice(1).map(([step, _label, ...figures]) => [step, ...figures])).toEqual(
      expected.steps.map((step) => [step.step, ...[step.completed, step.conversion, step.medianHours, step.p90Hours, step.stalled].map(text)]),
    );
    const { review } = expected;
    expect(tables[2]![1]).toEqual([review.decisions, review.approved, review.approvalRate, review.medianHours, review.p90Hours].map(text));
    expect(tables[3]!.slice(1)).toEqual(review.byDay.map((row) => [row.day, text(row.decisions), text(row.medianHours)]));
  });

  it('fits a phone, and says where the times of a long range come from', async () => {
    const page = await (await contextForTest(journey)).newPage();
    await openInsights(page);
    await page.locator('.admin-funnel').waitFor();
    await page.getByLabel('Signed up from').fill(day(new Date(base.getTime() - 365 * DAY_MS)));
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await page
      .getByText(
        'Over a range this long, the medians and 90th percentiles come from running totals: each is within 1 % of the exact time. Counts and rates are exact.',
      )
      .waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, '71-insights-phone');
  });
});
