// @module-tag chromium
// Webhooks on /admin in headless Chromium: an owner adds an endpoint pointed at a receiver this
// test runs, sees its signing secret once and copies it, sends a test event the receiver verifies
// with that secret, sees the delivery listed as delivered with the receiver's answer, and sends it
// again; a refused address is told in the server's words and what was typed stays; a reviewer has
// no Webhooks section.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staffAccount } from '../support/server.js';
import { expectToast, signInAsStaff, startJourney, type Journey } from './support.js';
import { scaled } from '../support/machineSpeed.js';

let journey: Journey;
let receiverUrl: string;
const received: { headers: IncomingHttpHeaders; body: string }[] = [];
const receiver = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => (body += chunk));
  request.on('end', () => {
    received.push({ headers: request.headers, body });
    response.writeHead(202, { 'content-type': 'text/plain' }).end('thanks, got it');
  });
});

beforeAll(async () => {
  journey = await startJourney();
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
afterAll(async () => {
  await journey?.close();
  receiver.close();
});

const sections = (page: Page) => page.getByRole('navigation', { name: 'Sections' }).getByRole('button');

async function signedIn(roles: Parameters<typeof staffAccount>[1]) {
  const staff = await staffAccount(journey.server.app, roles);
  const context = await journey.browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: journey.baseUrl });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await context.newPage();
  await page.goto('/admin');
  await signInAsStaff(page, staff.user);
  await page.getByText(staff.email, { exact: false }).first().waitFor();
  return page;
}

describe('webhooks on the admin page', () => {
  it('lets an owner add an endpoint, see its secret once, send a test event and send it again', async () => {
    const page = await signedIn(['owner']);
    await sections(page).getByText('Webhooks', { exact: true }).click();
    await page.getByText('No endpoints yet.').waitFor();
    const form = page.getByRole('form', { name: 'Add an endpoint' });

    // A refusal is told in the server's words; what was typed stays.
    await form.getByLabel('URL').fill('ftp://example.com/hooks');
    await form.getByLabel('Description (optional)').fill('The dispatch system');
    await form.getByLabel('driver.approved').check();
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await expectToast(page, 'url must be an http or https address of at most 2,000 characters.');
    expect(await form.getByLabel('URL').inputValue()).toBe('ftp://example.com/hooks');
    expect(await form.getByLabel('Description (optional)').inputValue()).toBe('The dispatch system');
    expect(await form.getByLabel('driver.approved').isChecked()).toBe(true);

    await form.getByLabel('URL').fill(receiverUrl);
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await expectToast(page, 'Endpoint added.');
    const note = page.locator('.admin-webhook-secret');
    await note.getByText('Copy it now: you won’t see it again.').waitFor();
    const secret = (await note.locator('pre').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await note.getByRole('button', { name: 'Copy the secret' }).click();
    await expectToast(page, 'Secret copied.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await note.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.getByText(secret).count()).toBe(0);

    const card = page.locator('li.admin-webhook', { hasText: receiverUrl });
    expect(await card.locator('.admin-driver-meta').innerText()).toBe('driver.approved');
    await card.getByText('The dispatch system').waitFor();
    await card.getByText('On', { exact: true }).waitFor();

    await card.getByRole('button', { name: 'Send test event' }).click();
    await expectToast(page, 'Test event sent.');
    const rows = card.locator('table.admin-webhook-table tbody tr');
    const cells = () => rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(1, 6).map((td) => td.innerText)));
    await expect.poll(cells, { timeout: scaled(15_000) }).toEqual([['webhook.test', 'Delivered', '1', '202\nthanks, got it', '—']]);
    expect(received).toHaveLength(1);
    const test = received[0]!;
    expect(new Webhook(secret).verify(test.body, test.headers as Record<string, string>)).toMatchObject({ type: 'webhook.test' });

    await rows
      .first()
      .getByRole('button', { name: /^Resend webhook\.test/ })
      .click();
    await expectToast(page, 'Sent again.');
    await expect.poll(() => received.length, { timeout: scaled(15_000) }).toBe(2);
    expect(received[1]!.headers['webhook-id']).toBe(test.headers['webhook-id']);
    await expect.poll(cells, { timeout: scaled(15_000) }).toEqual([['webhook.test', 'Delivered', '1', '202\nthanks, got it', '—']]);
    await page.context().close();
  });

  it('shows a reviewer no Webhooks section', async () => {
    const page = await signedIn(['reviewer']);
    expect(await sections(page).allTextContents()).toEqual(['Review', 'Expiring documents', 'Drivers', 'Insights', 'Command line']);
    await page.context().close();
  });
});
