// @module-tag chromium
// A file that needs Chromium as a browser journey does: tagged as a whole, Chromium launched before its tests.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchTestChromium } from '../../../tools/chromium.js';

let browser: Browser | undefined;
beforeAll(async () => {
  browser = await launchTestChromium();
});
afterAll(() => browser?.close());

it('opens a page in Chromium', async () => {
  const page = await browser!.newPage();
  await page.setContent('<h1>Onramp</h1>');
  expect(await page.locator('h1').textContent()).toBe('Onramp');
});
