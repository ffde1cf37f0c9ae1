/**
 * A real server on a free port (API + the built app, in-memory database) and headless Chromium
 * at a phone's size, for journey tests. Screenshots of each screen go to build/screenshots/.
 */
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { onTestFinished } from 'vitest';
import { launchTestChromium } from '../../tools/chromium.js';
import { BROWSER_ACTION_LIMIT_MS, scaled } from '../support/machineSpeed.js';
import { PROJECT_ROOT } from '../../src/node/projectFiles.js';
import type { OutboxEntry } from '../../src/server/messaging/localOutbox.js';
import { startTestServer, VEHICLE_IMAGE_FIELDS, type TestServer } from '../support/server.js';

export const PHONE_VIEWPORT = { width: 390, height: 844 };
export const SCREENSHOTS_DIR = join(PROJECT_ROOT, 'build', 'screenshots');

export interface Journey {
  server: TestServer;
  baseUrl: string;
  browser: Browser;
  page: Page;
  close(): Promise<void>;
}

let workerChromium: Promise<Browser> | undefined;

/**
 * The worker's Chromium, launched once: the files of a worker run one after another (they share
 * modules, vitest.config.ts), each in contexts of its own that `closeContexts` ends. Playwright
 * ends the browser when the worker exits.
 */
export async function sharedChromium(): Promise<Browser> {
  // Launched again if an earlier file's browser crashed or failed to start.
  const running = await workerChromium?.catch(() => undefined);
  if (running?.isConnected()) return running;
  workerChromium = launchTestChromium().then(withScaledLimits);
  return workerChromium;
}

/**
 * The browser, its every context (and so every page, `newPage` included) waiting for an element or
 * a navigation as long as the load allows (machineSpeed.ts, measured again as each file starts):
 * Playwright's own 30 s, kept on a busy two-core machine, made a click miss it.
 */
function withScaledLimits(browser: Browser): Browser {
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    context.setDefaultTimeout(scaled(BROWSER_ACTION_LIMIT_MS));
    return context;
  };
  return browser;
}

/** Ends every context (and page) a file opened in the worker's Chromium. */
export async function closeContexts(browser: Browser): Promise<void> {
  await Promise.all(browser.contexts().map((context) => context.close()));
}

export async function startJourney(): Promise<Journey> {
  const [server, browser] = await Promise.all([startTestServer({ staticDir: join(PROJECT_ROOT, 'dist') }), sharedChromium()]);
  const baseUrl = await server.app.listen({ host: '127.0.0.1', port: 0 });
  // A phone's layout and touch at 1× pixels: the journeys check behaviour, and software rendering
  // four times the pixels doubled the browser tests' CPU time on a two-core machine.
  const context = await browser.newContext({ viewport: PHONE_VIEWPORT, deviceScaleFactor: 1, isMobile: true, hasTouch: true, baseURL: baseUrl });
  const page = await context.newPage();
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  return {
    server,
    baseUrl,
    browser,
    page,
    async close() {
      await closeContexts(browser);
      await server.close();
    },
  };
}

/**
 * A browser context of its own for one test (a phone's, unless `viewport` says otherwise), closed
 * when the test ends: a page left open goes on polling the server and animating its spinner, and
 * slowed every test after it.
 */
export async function contextForTest(journey: Journey, viewport = PHONE_VIEWPORT): Promise<BrowserContext> {
  const phone = viewport === PHONE_VIEWPORT;
  const context = await journey.browser.newContext({ viewport, isMobile: phone, hasTouch: true, baseURL: journey.baseUrl });
  onTestFinished(() => context.close());
  return context;
}

/** Opens a resume link for the driver (the admin API makes it) in `page`: the driver gets a session, as after signing in. */
export async function openResumeLink(journey: Journey, page: Page, driverId: string): Promise<void> {
  const response = await journey.server.app.inject({
    method: 'POST',
    url: `/admin/drivers/${driverId}/resume-link`,
    headers: { authorization: `Bearer ${journey.server.reviewer.key}` },
  });
  await page.goto(new URL((response.json() as { url: string }).url).pathname);
}

/** Signs a staff member in on /admin (or the studio) with their email and password, as they would. */
export async function signInAsStaff(page: Page, staff: { email: string; password: string }): Promise<void> {
  // Exactly these labels: a section's search ("Name, exact email or phone…") is no sign-in field.
  await page.getByLabel('Email', { exact: true }).fill(staff.email);
  await page.getByLabel('Password', { exact: true }).fill(staff.password);
  await page.getByRole('button', { name: /^(Sign in|Open the studio)$/ }).click();
}

/** The newest code sent to `to` on a channel, as the driver would read it. */
export async function latestCode(baseUrl: string, channel: 'email' | 'sms', to: string): Promise<string> {
  const response = await fetch(`${baseUrl}/dev/outbox`);
  const outbox = (await response.json()) as OutboxEntry[];
  const entry = outbox.find((e) => e.channel === channel && e.to === to && 'code' in e);
  if (!entry || !('code' in entry)) throw new Error(`No ${channel} code for ${to} in the outbox`);
  return entry.code;
}

/** The photos drawn so far, by label: the same label draws the same picture. */
const photos = new Map<string, Promise<Buffer>>();

/**
 * A real JPEG photo, drawn by the browser itself (a 1200×900 gradient with shapes), once per label
 * in the worker: drawing and encoding one cost the page a third of a second of a busy machine's time.
 */
export function makePhoto(page: Page, label: string): Promise<Buffer> {
  let photo = photos.get(label);
  if (!photo) {
    photo = drawPhoto(page, label);
    // A page closed while drawing leaves nothing to reuse.
    photo.catch(() => photos.delete(label));
    photos.set(label, photo);
  }
  return photo;
}

async function drawPhoto(page: Page, label: string): Promise<Buffer> {
  const dataUrl = await page.evaluate((text) => {
    const canvas = document.createElement('canvas');
    canvas.width = 1200;
    canvas.height = 900;
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('no 2d context');
    const gradient = ctx.createLinearGradient(0, 0, 1200, 900);
    gradient.addColorStop(0, '#7aa7ff');
    gradient.addColorStop(1, '#1d2b4f');
    ctx.fillStyle = gradient;
    ctx.fillRect(0, 0, 1200, 900);
    ctx.fillStyle = '#ffd166';
    ctx.fillRect(300, 420, 600, 220);
    ctx.fillStyle = '#ffffff';
    ctx.font = 'bold 80px sans-serif';
    ctx.fillText(text, 80, 140);
    return canvas.toDataURL('image/jpeg', 0.9);
  }, label);
  return Buffer.from(dataUrl.split(',')[1] ?? '', 'base64');
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS_DIR, `${name}.png`), fullPage: true });
}

/** Waits for a toast with this text. */
export async function expectToast(page: Page, text: string): Promise<void> {
  await page.locator('[role="status"]', { hasText: text }).first().waitFor();
}

/** Clicks the button with exactly this name. */
export async function press(page: Page, label: string): Promise<void> {
  await page.getByRole('button', { name: label, exact: true }).click();
}

/** Chooses a photo for a photo slot and waits until the browser has resized it. */
export async function choosePhoto(page: Page, field: string, label: string = field): Promise<void> {
  await page.locator(`#root_${field}`).setInputFiles({ name: `${field}.jpg`, mimeType: 'image/jpeg', buffer: await makePhoto(page, label) });
  await page.locator(`.w-photo--filled:not(.w-photo--busy) #root_${field}`).waitFor({ state: 'attached' });
}

/** Fills and sends the (email driver's) profile step with valid answers. */
export async function completeProfileStep(page: Page): Promise<void> {
  await fillProfileStep(page);
  await press(page, 'Next');
  await expectToast(page, 'Personal Profile Completed Successfully.');
}

/** Fills the (email driver's) profile step with valid answers, without sending it. */
export async function fillProfileStep(page: Page): Promise<void> {
  await page.getByRole('heading', { name: 'Update Personal Info' }).waitFor();
  await choosePhoto(page, 'profilePicture', 'Me');
  await page.locator('#root_firstName').fill('Robin');
  await page.locator('#root_lastName').fill('Hale');
  await page.locator('#root_dateOfBirth').fill('1988-07-21');
  await page.locator('#root_gender').selectOption('Male');
  await page.locator('#root_SSN').fill('234567890');
  await page.locator('#root_driverLicenseNumber').fill('H7654321');
  await page.locator('#root_street').fill('5 Elm St');
  await page.locator('#root_state').selectOption('TX');
  await page.locator('#root_city option', { hasText: 'Austin' }).first().waitFor({ state: 'attached' });
  await page.locator('#root_city').selectOption('Austin');
  await page.locator('#root_zipCode').fill('73301');
  await choosePhoto(page, 'socialSecurityCardFront', 'SSN front');
  await choosePhoto(page, 'socialSecurityCardBack', 'SSN back');
}

/** Chooses the six vehicle photos and saves them. */
export async function uploadVehicleImagesStep(page: Page): Promise<void> {
  await page.getByRole('heading', { name: 'Upload vehicle images' }).waitFor();
  for (const field of VEHICLE_IMAGE_FIELDS) {
    await choosePhoto(page, field);
  }
  await press(page, 'Save');
  await expectToast(page, 'Vehicle Images Uploaded Successfully.');
}

/** Fills and sends the vehicle step. */
export async function addVehicleStep(page: Page): Promise<void> {
  await page.getByRole('heading', { name: 'Add Vehicle' }).waitFor();
  await page.locator('#root_vehicleMake').fill('Honda');
  await page.locator('#root_vehicleName').fill('Civic');
  await page.locator('#root_modelYear').fill('2019');
  await page.locator('#root_plateNumber').fill('8XYZ987');
  for (const field of ['driverLicenseCardFront', 'driverLicenseCardBack', 'proofInsurance', 'vehicleRegistrationCard']) await choosePhoto(page, field);
  for (const field of ['driverLicenseExpiryDate', 'proofInsuranceExpiryDate', 'vehicleRegistrationExpiryDate'])
    await page.locator(`#root_${field}`).fill('2099-12-31');
  await press(page, 'Confirm & Send for Approval');
  await expectToast(page, 'Profile & Vehicle sent for approval.');
}

/** Signs in on /sign-in with an email and password. */
export async function signInWithPassword(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/sign-in');
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.locator('#root_email').fill(email);
  await page.locator('#root_password').fill(password);
  await press(page, 'Sign In');
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * What axe-core finds on the page as it is now, each as "rule (impact): the elements": every
 * violation of any impact. Run through the debugging protocol, so the page's CSP does not apply.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  // Once per document: a page checked at two widths has it already.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(context: Document): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }
    ).axe;
    const { violations } = await axe.run(document);
    return violations.map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
  });
}
