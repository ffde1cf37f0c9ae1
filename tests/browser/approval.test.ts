// @module-tag chromium
// Social sign-up through the Auth emulator up to the approval wait, an administrator approving
// on /admin in a second page while the driver's screen moves on by itself, and the resume links
// of spec §4, in headless Chromium at 390×844.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../support/identity.js';
import { bearer, decide, json, sendVehicle, staffAccount, VEHICLE_IMAGE_FIELDS, verifiedDriver, verifyPhone } from '../support/server.js';
import { choosePhoto, contextForTest, expectToast, latestCode, press, screenshot, signInAsStaff, startJourney, type Journey } from './support.js';
import { scaled } from '../support/machineSpeed.js';

let journey: Journey;
let driverPage: Page;
const socialEmail = uniqueEmail('google');
const phone = '2125550147';

beforeAll(async () => {
  journey = await startJourney();
  driverPage = journey.page;
});
afterAll(async () => {
  await journey?.close();
});

async function newPage(): Promise<Page> {
  const page = await (await contextForTest(journey)).newPage();
  // Every address the app shows, so a test can see where a redirect passed through.
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { addresses: string[] }).addresses = seen;
    for (const method of ['pushState', 'replaceState'] as const) {
      const original = history[method].bind(history);
      history[method] = (state: unknown, unused: string, url?: string | URL | null) => {
        if (url) seen.push(new URL(url, location.href).pathname);
        original(state, unused, url);
      };
    }
  });
  return page;
}

describe('a Google sign-up, approved by an administrator', () => {
  it('signs up with Google through the emulator’s test account and gets the social profile', async () => {
    await driverPage.goto('/signup');
    await driverPage.getByRole('button', { name: 'Continue with Google' }).click();
    const dialog = driverPage.getByRole('dialog', { name: 'Sign in with a test account' });
    await dialog.getByLabel('Email').fill(socialEmail);
    await screenshot(driverPage, '10-social-test-account');
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await driverPage.waitForURL('**/complete-profile');
    await expect(driverPage.evaluate(() => localStorage.getItem('isSocial'))).resolves.toBe('yes');
    await driverPage.locator('#root_phoneNo').waitFor();
  });

  it('completes the social profile, then verifies the phone just entered', async () => {
    await press(driverPage, 'Next');
    await expect(driverPage.locator('#root_phoneNo__error').textContent()).resolves.toBe('Please provide a valid phone number.');
    await choosePhoto(driverPage, 'profilePicture');
    await driverPage.locator('#root_firstName').fill('Sam');
    await driverPage.locator('#root_lastName').fill('Okafor');
    await driverPage.locator('#root_phoneNo').fill(phone);
    await driverPage.locator('#root_referalCode').fill('AB12');
    await driverPage.locator('#root_dateOfBirth').fill('1990-02-03');
    await driverPage.locator('#root_gender').selectOption('Male');
    await driverPage.locator('#root_SSN').fill('987654321');
    await driverPage.locator('#root_driverLicenseNumber').fill('S7654321');
    await driverPage.locator('#root_street').fill('20 W 34th St');
    await driverPage.locator('#root_state').selectOption('NY');
    await driverPage.locator('#root_city option', { hasText: 'New York City' }).first().waitFor({ state: 'attached' });
    await driverPage.locator('#root_city').selectOption('New York City');
    await driverPage.locator('#root_zipCode').fill('10001');
    await choosePhoto(driverPage, 'socialSecurityCardFront');
    await choosePhoto(driverPage, 'socialSecurityCardBack');
    await screenshot(driverPage, '11-social-profile');
    await press(driverPage, 'Next');
    await expectToast(driverPage, 'Personal Profile Completed Successfully.');
    await driverPage.waitForURL('**/verify-otp-phone');
    await driverPage.getByText('(212) 555-0147').waitFor();
    await driverPage.locator('#root_otp').fill(await latestCode(journey.baseUrl, 'sms', `+1${phone}`));
    await press(driverPage, 'Continue');
    await expectToast(driverPage, 'Phone OTP Verified successfully.');
    await driverPage.waitForURL('**/upload-vehicle-images');
  });

  it('uploads the photos, adds the vehicle and waits', async () => {
    for (const field of VEHICLE_IMAGE_FIELDS) {
      await choosePhoto(driverPage, field);
    }
    await press(driverPage, 'Save');
    await driverPage.waitForURL('**/add-vehicle');
    await driverPage.locator('#root_vehicleMake').fill('Honda');
    await driverPage.locator('#root_vehicleName').fill('Accord');
    await driverPage.locator('#root_modelYear').fill('2021');
    await driverPage.locator('#root_plateNumber').fill('NY12345');
    for (const field of ['driverLicenseCardFront', 'driverLicenseCardBack', 'proofInsurance', 'vehicleRegistrationCard']) await choosePhoto(driverPage, field);
    for (const field of ['driverLicenseExpiryDate', 'proofInsuranceExpiryDate', 'vehicleRegistrationExpiryDate']) {
      await driverPage.locator(`#root_${field}`).fill('2099-06-30');
    }
    await press(driverPage, 'Confirm & Send for Approval');
    await expectToast(driverPage, 'Profile & Vehicle sent for approval.');
    await driverPage.waitForURL('**/awaiting-approval');
    await driverPage.getByRole('heading', { name: 'Awaiting Approval' }).waitFor();
    await expect(driverPage.evaluate(() => localStorage.getItem('isSocial'))).resolves.toBeNull();
  });

  it('moves to /profile-approved by itself when an administrator approves on /admin', async () => {
    const admin = await journey.browser.newPage({ baseURL: journey.baseUrl, viewport: { width: 1280, height: 900 } });
    await admin.goto('/admin');
    await signInAsStaff(admin, (await staffAccount(journey.server.app, ['reviewer'])).user);
    const approve = admin.getByRole('button', { name: /^Approve Sam Okafor/ });
    await admin.getByText(socialEmail).first().waitFor();
    await admin.getByRole('button', { name: 'Sam Okafor', exact: true }).click();
    await approve.waitFor();
    await expect(admin.getByText('•••••4321').first().isVisible()).resolves.toBe(true);
    // Each thumbnail is fetched with the reviewer's session and shown once it arrives.
    await expect.poll(() => admin.locator('img').count()).toBeGreaterThanOrEqual(13);
    await screenshot(admin, '12-admin-review');
    await approve.click();
    await expectToast(admin, 'Driver approved.');

    // No reload: the waiting screen asks for the status by itself.
    await driverPage.getByRole('heading', { name: 'Congrats! Profile Has Been Approved.' }).waitFor({ timeout: scaled(20_000) });
    expect(new URL(driverPage.url()).pathname).toBe('/profile-approved');
    await screenshot(driverPage, '13-profile-approved');
    await admin.close();
  });
});

describe('a rejected driver on /awaiting-approval', () => {
  it('reads the administrator’s reason and how to fix it', async () => {
    const app = journey.server.app;
    const driver = await verifiedDriver(app);
    await verifyPhone(app, driver);
    await sendVehicle(app, driver);
    await decide(app, journey.server.reviewer.key, driver.driverId, 'reject', 'The insurance card photo is blurry.');
    const page = await newPage();
    await page.context().addCookies([{ name: 'token', value: encodeURIComponent(driver.token), url: journey.baseUrl }]);
    await page.goto('/signup');
    await page.evaluate((id) => localStorage.setItem('driver_id', id), driver.driverId);
    await page.goto('/awaiting-approval');
    await page.getByRole('heading', { name: 'Changes needed' }).waitFor();
    await page.getByText('The insurance card photo is blurry.').waitFor();
    await screenshot(page, '16-rejected');
    await page.getByRole('button', { name: 'Update my profile' }).click();
    await page.waitForURL('**/complete-profile');
  });
});

describe('resume links (/:id/:token)', () => {
  const app = () => journey.server.app;
  async function resumeLink(driverId: string): Promise<string> {
    const response = await app().inject({ method: 'POST', url: `/admin/drivers/${driverId}/resume-link`, headers: bearer(journey.server.reviewer.key) });
    return new URL(json<{ url: string }>(response).url).pathname;
  }
  async function open(link: string) {
    const page = await newPage();
    await page.goto(link);
    return page;
  }
  const addresses = (page: Page) => page.evaluate(() => (window as unknown as { addresses: string[] }).addresses);
  const tokenCookie = async (page: Page) => (await page.context().cookies()).find((cookie) => cookie.name === 'token')?.value;

  it('takes a pending driver who sent everything to /awaiting-approval', async () => {
    const driver = await verifiedDriver(app());
    await verifyPhone(app(), driver);
    await sendVehicle(app(), driver);
    const page = await open(await resumeLink(driver.driverId));
    await page.waitForURL('**/awaiting-approval');
    await page.getByRole('heading', { name: 'Awaiting Approval' }).waitFor();
    expect(page.url()).not.toContain(encodeURIComponent(driver.token).slice(0, 12));
  });

  it('takes a pending driver who has not finished to /complete-profile with a session token in the cookie', async () => {
    const driver = await verifiedDriver(app());
    await verifyPhone(app(), driver);
    const link = await resumeLink(driver.driverId);
    const page = await open(link);
    await page.waitForURL('**/complete-profile');
    const linkToken = decodeURIComponent(link.split('/')[2] ?? '');
    const sessionToken = decodeURIComponent((await tokenCookie(page)) ?? '');
    // The link is single-use: it was exchanged for a session, which the next steps use.
    expect(sessionToken).not.toBe(linkToken);
    const status = await app().inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(sessionToken) });
    expect(status.statusCode).toBe(200);
    expect(await addresses(page)).not.toContain(link);
  });

  it('takes an email driver whose phone is not verified yet to /verify-otp-phone, with a code sent there', async () => {
    const driver = await verifiedDriver(app());
    const page = await open(await resumeLink(driver.driverId));
    await page.waitForURL('**/verify-otp-phone');
    // The number as a driver reads it: "+12125550147" shows "(212) 555-0147".
    const [, area, exchange, line] = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(driver.phone) ?? [];
    await page.getByText(`(${area}) ${exchange}-${line}`).waitFor();
    await page.locator('#root_otp').fill(await latestCode(journey.baseUrl, 'sms', driver.phone));
    await press(page, 'Continue');
    await expectToast(page, 'Phone OTP Verified successfully.');
    await page.waitForURL('**/complete-profile');
  });

  it('works once: the same link again leads to /signup with "Session expired, Please relogin"', async () => {
    const driver = await verifiedDriver(app());
    await verifyPhone(app(), driver);
    const link = await resumeLink(driver.driverId);
    await (await open(link)).waitForURL('**/complete-profile');
    const again = await open(link);
    await expectToast(again, 'Session expired, Please relogin');
    await again.waitForURL('**/signup');
  });

  it('takes an approved driver who has not paid to /add-card with the token in the cookie', async () => {
    const driver = await verifiedDriver(app());
    await verifyPhone(app(), driver);
    await sendVehicle(app(), driver);
    await decide(app(), journey.server.reviewer.key, driver.driverId, 'approve');
    const page = await open(await resumeLink(driver.driverId));
    await page.waitForURL('**/add-card');
    await page.getByRole('button', { name: 'Confirm & Continue' }).waitFor();
    expect(await tokenCookie(page)).toBeTruthy();
  });

  it('takes a rejected driver to /awaiting-approval, which says why', async () => {
    const driver = await verifiedDriver(app());
    await verifyPhone(app(), driver);
    await sendVehicle(app(), driver);
    await decide(app(), journey.server.reviewer.key, driver.driverId, 'reject', 'The plate is unreadable.');
    const page = await open(await resumeLink(driver.driverId));
    await page.waitForURL('**/awaiting-approval');
    await page.getByText('The plate is unreadable.').waitFor();
  });

  it('shows the server’s message and goes to /signup when the link’s token is not valid', async () => {
    const driver = await verifiedDriver(app());
    const page = await open(`/${driver.driverId}/not-a-real-token`);
    await expectToast(page, 'Session expired, Please relogin');
    await page.waitForURL('**/signup');
  });

  it('shows "Fetching your profile progress." while it loads', async () => {
    const driver = await verifiedDriver(app());
    await verifyPhone(app(), driver);
    const page = await newPage();
    // The status is held until the message was seen, however slow the machine.
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    await page.route('**/driver/status/**', async (route) => {
      await answered;
      await route.continue();
    });
    await page.goto(await resumeLink(driver.driverId));
    await page.getByText('Fetching your profile progress.').waitFor();
    await screenshot(page, '14-resume-loading');
    answer();
    await page.waitForURL('**/complete-profile');
  });

  it('sends a link without a token to /signup', async () => {
    const page = await open('/some-driver-id');
    await page.waitForURL('**/signup');
  });

  it('offers a get-started button at / without id and token', async () => {
    const page = await open('/');
    await page.getByRole('button', { name: 'Get started' }).click();
    await page.waitForURL('**/signup');
  });
});

describe('/ride/new-request/info', () => {
  it('closes the ride-request panel on navigation to another route', async () => {
    const page = await newPage();
    await page.goto('/ride/new-request/info');
    await page.getByRole('button', { name: 'See an example request' }).click();
    await page.getByRole('dialog', { name: 'Example ride request' }).waitFor();
    await screenshot(page, '15-ride-request');
    await page.evaluate(() => history.pushState(null, '', '/signup'));
    await page.waitForURL('**/signup');
    await page.goBack();
    await page.getByRole('button', { name: 'See an example request' }).waitFor();
    await expect(page.getByRole('dialog', { name: 'Example ride request' }).count()).resolves.toBe(0);
  });
});
