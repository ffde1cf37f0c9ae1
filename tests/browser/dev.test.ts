// `npm run dev` on a copy of schemas/ and flows/: a saved edit reaches the open page; a broken
// one is shown over the page, and the page and the server keep the last good version.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { msUntilReloadedPageShows, startDevServer, type DevServer } from '../../src/cli/devProcess.js';
import { launchChromium } from '../../src/cli/chromium.js';
import { PHONE_VIEWPORT } from './support.js';
import { authEmulatorReady } from '../support/identity.js';

const FIRST_MESSAGE = 'Please enter your email';
const EDITED_MESSAGE = 'Type the email address you use every day';
const FIXED_MESSAGE = 'Which email address should we use?';
/** Generous for a shared machine; the figure that matters is the latency printed. */
const POLL_TIMEOUT_MS = 10_000;

let dev: DevServer;
let browser: Browser;
let page: Page;
let schemaFile: string;
/** signup.schema.json as last applied, before the broken edits. */
let lastGood: string;

beforeAll(async () => {
  // Else `npm run dev` would start an emulator of its own beside the one still starting.
  await authEmulatorReady();
  dev = await startDevServer();
  schemaFile = join(dev.root, 'schemas', 'signup.schema.json');
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: PHONE_VIEWPORT, isMobile: true, hasTouch: true, baseURL: dev.baseUrl });
  page = await context.newPage();
});
afterAll(async () => {
  await browser?.close();
  await dev?.close();
});

async function replaceInSchema(from: string, to: string): Promise<void> {
  const text = await readFile(schemaFile, 'utf8');
  if (!text.includes(from)) throw new Error(`signup.schema.json has no ${JSON.stringify(from)}`);
  await writeFile(schemaFile, text.replace(from, to));
}

/** The email field's message after pressing Sign Up on an empty form. */
async function emailMessage(): Promise<string> {
  await page.getByRole('button', { name: 'Sign Up', exact: true }).click();
  return (await page.locator('#root_email__error').textContent()) ?? '';
}

const emptySignUp = (path: string) => fetch(`${dev.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });

/** The lint's lines the dev server printed for a broken edit, after `from`. */
async function problemsPrintedAfter(from: number): Promise<string[]> {
  const printed = await dev.waitForOutput(/✗ \d+ problem\(s\) in schemas\/ and flows\/; the app keeps the last good version:\n((?: {2}✗ .*\n)+)/, from);
  return (printed[1] ?? '')
    .trimEnd()
    .split('\n')
    .map((line) => line.replace(/^ {2}✗ /, ''));
}

/** What the server answers to an empty sign-up: the email's messages from the schema it validates with. */
async function serverEmailMessages(path = '/auth/driverEmailSignUp'): Promise<string[]> {
  const response = await emptySignUp(path);
  expect(response.status).toBe(400);
  return ((await response.json()) as { errors: Record<string, string[]> }).errors.email ?? [];
}

describe('npm run dev', () => {
  it('shows an edited message in the open page, and the server validates with it', async () => {
    await page.goto('/signup');
    expect(await emailMessage()).toBe(FIRST_MESSAGE);

    const printedBefore = dev.output().length;
    const latency = await msUntilReloadedPageShows(page, EDITED_MESSAGE, () => replaceInSchema(FIRST_MESSAGE, EDITED_MESSAGE));
    const applied = await dev.waitForOutput(/✓ schemas\/signup\.schema\.json: applied in (\d+) ms; open pages reload/, printedBefore);
    console.log(`edit saved → new message in the browser: ${latency} ms (checked, built and applied in ${applied[1]} ms)`);
    expect(await serverEmailMessages()).toEqual([EDITED_MESSAGE]);
    lastGood = await readFile(schemaFile, 'utf8');
  });

  it('shows a broken edit’s problems over the page and in the terminal, and keeps serving the last good version', async () => {
    const printedBefore = dev.output().length;
    await replaceInSchema('"required": [', '"requird": [');

    const lines = await problemsPrintedAfter(printedBefore);
    expect(lines.some((line) => line.startsWith('schemas/signup.schema.json') && line.includes('requird'))).toBe(true);

    const overlay = page.getByRole('alertdialog');
    await overlay.waitFor({ timeout: POLL_TIMEOUT_MS });
    const heading = lines.length === 1 ? 'This edit has a problem' : `This edit has ${lines.length} problems`;
    expect(await overlay.getByRole('heading').textContent()).toBe(heading);
    expect(await overlay.getByRole('listitem').allTextContents()).toEqual(lines);
    expect(await overlay.getAttribute('aria-labelledby')).toBe('dev-overlay-title');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Dismiss');

    await page.keyboard.press('Escape');
    await overlay.waitFor({ state: 'detached' });
    expect(await emailMessage()).toBe(EDITED_MESSAGE);
    expect(await serverEmailMessages()).toEqual([EDITED_MESSAGE]);

    // A page opened now is the last good version too, with the problems shown over it.
    await page.reload();
    await overlay.waitFor();
    await overlay.getByRole('button', { name: 'Dismiss' }).click();
    await overlay.waitFor({ state: 'detached' });
    expect(await emailMessage()).toBe(EDITED_MESSAGE);
  });

  it('shows an edit that leaves the file no longer JSON the same way', async () => {
    const printedBefore = dev.output().length;
    await replaceInSchema('"maxLength": 254,', '"maxLength": 254');

    const lines = await problemsPrintedAfter(printedBefore);
    expect(lines[0]?.startsWith('schemas/signup.schema.json')).toBe(true);
    expect(lines[0]).toContain('JSON');
    const overlay = page.getByRole('alertdialog');
    await overlay.waitFor({ timeout: POLL_TIMEOUT_MS });
    expect(await overlay.getByRole('listitem').allTextContents()).toEqual(lines);

    await overlay.getByRole('button', { name: 'Dismiss' }).click();
    expect(await emailMessage()).toBe(EDITED_MESSAGE);
    expect(await serverEmailMessages()).toEqual([EDITED_MESSAGE]);
  });

  it('reloads the page without the problems once the file is fixed', async () => {
    const printedBefore = dev.output().length;
    const latency = await msUntilReloadedPageShows(page, FIXED_MESSAGE, () => writeFile(schemaFile, lastGood.replace(EDITED_MESSAGE, FIXED_MESSAGE)));
    const applied = await dev.waitForOutput(/✓ schemas\/signup\.schema\.json: applied in (\d+) ms; open pages reload/, printedBefore);
    console.log(`fix saved → new message in the browser: ${latency} ms (checked, built and applied in ${applied[1]} ms)`);
    expect(await page.getByRole('alertdialog').count()).toBe(0);
    expect(await serverEmailMessages()).toEqual([FIXED_MESSAGE]);
  });

  it('serves a call at its new path once the flow file moves it, and the open page follows', async () => {
    const flowFile = join(dev.root, 'flows', 'onboarding.flow.json');
    const flow = await readFile(flowFile, 'utf8');
    await page.evaluate(() => Object.assign(window, { beforeEdit: true }));
    const printedBefore = dev.output().length;
    await writeFile(flowFile, flow.replace('"path": "/auth/driverEmailSignUp"', '"path": "/auth/emailSignUp"'));

    await dev.waitForOutput(/✓ flows\/onboarding\.flow\.json: applied in \d+ ms; open pages reload/, printedBefore, POLL_TIMEOUT_MS);
    expect(await serverEmailMessages('/auth/emailSignUp')).toEqual([FIXED_MESSAGE]);
    expect((await emptySignUp('/auth/driverEmailSignUp')).status).toBe(404);
    // The page reconnects to the restarted server and reloads.
    const started = performance.now();
    while (await page.evaluate(() => 'beforeEdit' in window).catch(() => true)) {
      if (performance.now() - started > POLL_TIMEOUT_MS) throw new Error('The page did not reload after the restart');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await emailMessage()).toBe(FIXED_MESSAGE);
  });
});
