// @module-tag chromium
// A new driver signs up with email and password and walks every step up to the approval wait,
// in headless Chromium on a phone-sized screen, reading the codes from the local outbox.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusData } from '../support/server.js';
import { choosePhoto, expectToast, latestCode, press, screenshot, startJourney, type Journey } from './support.js';

let journey: Journey;
let page: Page;
const email = `driver-${randomUUID().slice(0, 8)}@example.com`;
const phoneDigits = '2025550143';

beforeAll(async () => {
  journey = await startJourney();
  page = journey.page;
});
afterAll(async () => {
  await journey?.close();
});

const fieldError = (field: string) => page.locator(`#root_${field}__error`);
const submit = (label: string) => press(page, label);
const photo = (field: string, label: string) => choosePhoto(page, field, label);

describe('email sign-up to awaiting approval, on a 390×844 phone', () => {
  it('signs up, showing the journey and the sign-up messages', async () => {
    await page.goto('/signup');
    await page.getByRole('heading', { name: 'Sign up' }).waitFor();
    for (const step of ['Sign up', 'Complete Profile', 'Add Vehicle', 'Admin Approval', 'Buy Subscription', 'Add Bank']) {
      await expect(page.locator('.journey').getByText(step, { exact: true }).isVisible()).resolves.toBe(true);
    }
    await screenshot(page, '01-signup');

    await submit('Sign Up');
    await expect(fieldError('email').textContent()).resolves.toBe('Please enter your email');
    await expect(fieldError('accept').textContent()).resolves.toBe('You must accept the Terms & Conditions');
    await expect(fieldError('twilioCheck').textContent()).resolves.toBe('You must accept the SMS Notification from the product.');
    await screenshot(page, '01-signup-errors');

    await page.locator('#root_email').fill(email.toUpperCase());
    await page.locator('#root_phoneNo').fill('(202) 555-01');
    // Typing shows at once; the form judges it in a transition (widgets/echoFirst.tsx).
    await expect.poll(() => fieldError('phoneNo').textContent()).toBe('Phone number must be valid.');
    await page.locator('#root_phoneNo').fill(phoneDigits);
    await page.locator('#root_password').fill('Str0ng!Pass');
    await page.locator('#root_confirmPassword').fill('Str0ng!Pas');
    await expect.poll(() => fieldError('confirmPassword').textContent()).toBe('Passwords must match');
    await page.locator('#root_confirmPassword').fill('Str0ng!Pass');
    await page.locator('#root_accept').check();
    await page.locator('#root_twilioCheck').check();
    await submit('Sign Up');
    await page.waitForURL('**/verify-otp-email');
  });

  it('verifies the email code', async () => {
    await page.getByText(email).waitFor();
    await page.locator('#root_otp').fill('12');
    await page.locator('#root_otp').blur();
    await expect(fieldError('otp').textContent()).resolves.toBe('The code must be exactly 4 digits.');
    await page.getByRole('button', { name: 'Resend' }).click();
    await expectToast(page, 'Email Resent Sent Successfully.');
    await screenshot(page, '02-verify-email');
    await page.locator('#root_otp').fill(await latestCode(journey.baseUrl, 'email', email));
    await submit('Continue');
    await expectToast(page, 'Email OTP Verified Successfully.');
    await page.waitForURL('**/verify-otp-phone');
  });

  it('verifies the phone code', async () => {
    await page.getByText('(202) 555-0143').waitFor();
    await page.getByRole('button', { name: 'Resend' }).click();
    await expectToast(page, 'Phone OTP Resent Sent Successfully.');
    await screenshot(page, '03-verify-phone');
    await page.locator('#root_otp').fill(await latestCode(journey.baseUrl, 'sms', `+1${phoneDigits}`));
    await submit('Continue');
    await expectToast(page, 'Phone OTP Verified successfully.');
    await page.waitForURL('**/complete-profile');
  });

  it('completes the profile', async () => {
    await page.getByRole('heading', { name: 'Update Personal Info' }).waitFor();
    await submit('Next');
    await expect(fieldError('firstName').textContent()).resolves.toBe('Please enter your first name');
    await expect(fieldError('profilePicture').textContent()).resolves.toBe('An image is required');
    await expect(fieldError('socialSecurityCardFront').textContent()).resolves.toBe("Provide Social Security Card's Front Image.");

    await photo('profilePicture', 'Me');
    await page.locator('#root_firstName').fill('Dana');
    await page.locator('#root_lastName').fill('Rivers');
    await page.locator('#root_dateOfBirth').fill('2015-05-05');
    await expect(fieldError('dateOfBirth').textContent()).resolves.toBe('You must be at least 18 years old to access the app.');
    await page.locator('#root_dateOfBirth').fill('1985-04-12');
    await page.locator('#root_gender').selectOption('Female');
    await page.locator('#root_SSN').fill('123-45-6789');
    await page.locator('#root_driverLicenseNumber').fill('D1234567');
    await page.locator('#root_street').fill('1 Main St');
    await page.locator('#root_state').selectOption('CA');
    await page.locator('#root_city option', { hasText: 'Los Angeles' }).first().waitFor({ state: 'attached' });
    await page.locator('#root_city').selectOption('Los Angeles');
    await page.locator('#root_zipCode').fill('90001');
    await photo('socialSecurityCardFront', 'SSN front');
    await photo('socialSecurityCardBack', 'SSN back');
    await screenshot(page, '04-profile');
    await submit('Next');
    await expectToast(page, 'Personal Profile Completed Successfully.');
    await page.waitForURL('**/upload-vehicle-images');
  });

  it('uploads the six vehicle photos', async () => {
    await page.getByRole('heading', { name: 'Upload vehicle images' }).waitFor();
    await submit('Save');
    await expect(fieldError('vehicleImageFront').textContent()).resolves.toBe('Provide Front Image of the vehicle');
    for (const [field, label] of [
      ['vehicleImageFront', 'Front'],
      ['vehicleImageRear', 'Rear'],
      ['vehicleImagePassengerSide', 'Passenger'],
      ['vehicleImageDriverSide', 'Driver'],
      ['vehicleImageInteriorFront', 'Inside front'],
      ['vehicleImageInteriorBack', 'Inside back'],
    ] as const) {
      await photo(field, label);
    }
    await screenshot(page, '05-vehicle-images');

    // The network drops: nothing is sent, the driver reads why, and every photo is still there.
    await page.context().setOffline(true);
    await submit('Save');
    await expectToast(page, 'The connection dropped and nothing was sent. What you entered is kept: check your connection, then try again.');
    expect(await page.locator('.w-photo--filled').count()).toBe(6);
    await page.context().setOffline(false);

    // The connection drops after three photos arrived: the fourth says so on its slot, and the retry sends only what is left.
    const connectionLost = 'The connection dropped and nothing was sent. What you entered is kept: check your connection, then try again.';
    const sentAhead: string[] = [];
    await page.route('**/driver/uploads/uploadVehicleImages/*', async (route) => {
      const field = new URL(route.request().url()).pathname.split('/').pop()!;
      sentAhead.push(field);
      await (sentAhead.length === 4 ? route.abort('connectionreset') : route.continue());
    });
    await submit('Save');
    await expect.poll(() => sentAhead.length).toBe(4);
    await expectToast(page, connectionLost);
    const [arrived, failed] = [sentAhead.slice(0, 3), sentAhead[3]!];
    await expect(fieldError(failed).textContent()).resolves.toBe(connectionLost);
    expect(await page.locator('.w-photo--filled').count()).toBe(6);
    await page.unroute('**/driver/uploads/uploadVehicleImages/*');
    const retried: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/driver/uploads/uploadVehicleImages/')) retried.push(new URL(request.url()).pathname.split('/').pop()!);
    });

    // Back, on a slow uplink: each slot shows how much of its photo has gone out until the step is sent.
    const network = await page.context().newCDPSession(page);
    await network.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 256 * 1024 });
    await submit('Save');
    await page.waitForFunction(() => [...document.querySelectorAll('.w-photo progress')].some((bar) => (bar as HTMLProgressElement).value > 0));
    // The photos that arrived before say so; the one that failed goes again.
    const action = (field: string) => page.locator('.w-photo', { has: page.locator(`#root_${field}`) }).locator('.w-photo__action');
    await expect(action(arrived[0]!).textContent()).resolves.toBe('Sent');
    await expect(action(failed).textContent()).resolves.toMatch(/^(Sending… \d+%|Sent)$/);
    await expect(page.getByRole('progressbar').first().getAttribute('aria-label')).resolves.toMatch(/: (Sending… \d+%|Sent)$/);
    await screenshot(page, '05-vehicle-images-sending');
    await expectToast(page, 'Vehicle Images Uploaded Successfully.');
    await network.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await page.waitForURL('**/add-vehicle');
    expect(retried).toContain(failed);
    expect(retried).toHaveLength(3);
    for (const field of arrived) expect(retried).not.toContain(field);
    await expect(page.evaluate(() => localStorage.getItem('vehicle_id'))).resolves.toMatch(/^[0-9a-f-]{36}$/);
  });

  it('adds the vehicle and waits for approval', async () => {
    await page.getByRole('heading', { name: 'Add Vehicle' }).waitFor();
    await page.locator('#root_vehicleMake').fill('Toyota');
    await page.locator('#root_vehicleName').fill('Camry');
    await page.locator('#root_modelYear').fill('20');
    await page.locator('#root_modelYear').blur();
    await expect(fieldError('modelYear').textContent()).resolves.toBe('Please enter a valid year in YYYY format');
    await page.locator('#root_modelYear').fill('2020');
    await page.locator('#root_plateNumber').fill('7ABC123');
    await page.getByLabel('Is this Wheel Chair Accessible ?').check();
    await photo('driverLicenseCardFront', 'Licence front');
    await photo('driverLicenseCardBack', 'Licence back');
    await page.locator('#root_driverLicenseExpiryDate').fill('2021-01-01');
    await expect(fieldError('driverLicenseExpiryDate').textContent()).resolves.toBe('You can only select a date that is 6 months ahead.');
    await page.locator('#root_driverLicenseExpiryDate').fill('2099-12-31');
    await photo('proofInsurance', 'Insurance');
    await page.locator('#root_proofInsuranceExpiryDate').fill('2099-12-31');
    await photo('vehicleRegistrationCard', 'Registration');
    await page.locator('#root_vehicleRegistrationExpiryDate').fill('2099-12-31');
    await screenshot(page, '06-add-vehicle');
    await submit('Confirm & Send for Approval');
    await expectToast(page, 'Profile & Vehicle sent for approval.');
    await page.waitForURL('**/awaiting-approval');
    await page.getByRole('heading', { name: 'Awaiting Approval' }).waitFor();
    await screenshot(page, '07-awaiting-approval');
  });

  it('has recorded the driver as pending with a complete session', async () => {
    const token = (await page.context().cookies()).find((c) => c.name === 'token')?.value;
    const rows = await journey.server.db.query<{ id: string }>('select id from drivers where email = $1', [email]);
    const id = rows.rows[0]?.id;
    const response = await fetch(`${journey.baseUrl}/driver/status/${id}`, { headers: { Authorization: `Bearer ${decodeURIComponent(token ?? '')}` } });
    await expect(response.json()).resolves.toEqual({ data: { ...statusData({ status: 'pending', isSessionComplete: true }), vehicleId: expect.any(String) } });
  });
});

describe('guards', () => {
  it('sends a driver without a stored email from /verify-otp-email to /signup', async () => {
    const fresh = await journey.browser.newPage({ baseURL: journey.baseUrl, viewport: { width: 390, height: 844 } });
    await fresh.goto('/verify-otp-email');
    await fresh.waitForURL('**/signup');
    await fresh.close();
  });

  it('sends a driver without the token cookie from /add-vehicle to /signup with "Session expired, Please relogin"', async () => {
    const fresh = await journey.browser.newPage({ baseURL: journey.baseUrl, viewport: { width: 390, height: 844 } });
    await fresh.goto('/add-vehicle');
    await fresh.locator('[role="status"]', { hasText: 'Session expired, Please relogin' }).first().waitFor();
    await fresh.waitForURL('**/signup');
    await fresh.close();
  });
});
