// @module-tag chromium
// The API's reference page in headless Chromium: it shows the document under the pages'
// Content-Security-Policy, every script and style the server's own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextForTest, startJourney, type Journey } from './support.js';
import { scaled } from '../support/machineSpeed.js';

let journey: Journey;
beforeAll(async () => {
  journey = await startJourney();
});
afterAll(async () => {
  await journey?.close();
});

describe('GET /api-docs', () => {
  it(
    'shows the API’s routes, with nothing refused by the Content-Security-Policy and nothing fetched from elsewhere',
    async () => {
      const page = await (await contextForTest(journey, { width: 1280, height: 900 })).newPage();
      const refused: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') refused.push(message.text());
      });
      const elsewhere: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(journey.baseUrl) && !request.url().startsWith('data:')) elsewhere.push(request.url());
      });
      await page.goto('/api-docs');
      await page.getByRole('heading', { name: /Onramp API/ }).waitFor({ timeout: scaled(30_000) });
      await page
        .locator('[data-path="/driver/status/{id}"]')
        .first()
        .waitFor({ timeout: scaled(30_000) });
      expect(refused).toEqual([]);
      expect(elsewhere).toEqual([]);
    },
    scaled(90_000),
  );
});
