// @module-tag chromium
// Returning drivers in headless Chromium at 390×844: signing in with a password or with Google
// (through the Auth emulator), landing on the step the resume table names and finishing from
// there; a forgotten password reset by Firebase's email; signing out; and signing in again in a
// dialog when the session ended mid-step, without losing what was typed.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authEmulatorHost } from '../../src/cli/authEmulator.js';
import { latestOobCode, TEST_PASSWORD, uniqueEmail } from '../support/identity.js';
import { bearer, completeProfile, decide, json, sendVehicle, verifiedDriver, verifyPhone } from '../support/server.js';
import {
  addVehicleStep,
  completeProfileStep,
  contextForTest,
  expectToast,
  fillProfileStep,
  press,
  screenshot,
  signInWithPassword,
  startJourney,
  uploadVehicleImagesStep,
  type Journey,
} from './support.js';

let journey: Journey;
beforeAll(async () => {
  journey = await startJourney();
});
afterAll(async () => {
  await journey?.close();
});

const app = () => journey.server.app;

async function newPage(): Promise<Page> {
  return (await contextForTest(journey)).newPage();
}

const statusWith = (driverId: string, token: string) => app().inject({ method: 'GET', url: `/driver/status/${driverId}`, headers: bearer(token) });

describe('signing in', () => {
  it('is linked from / and from /signup', async () => {
    const page = await newPage();
    await page.goto('/');
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.waitForURL('**/sign-in');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await screenshot(page, '30-sign-in');
    await page.goto('/signup');
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.waitForURL('**/sign-in');
  });

  it('takes a driver who verified email and phone to /complete-profile, and every later step works from there', async () => {
    const driver = await verifiedDriver(app());
    await verifyPhone(app(), driver);
    const page = await newPage();
    await signInWithPassword(page, driver.email, TEST_PASSWORD);
    await page.waitForURL('**/complete-profile');
    await completeProfileStep(page);
    await page.waitForURL('**/upload-vehicle-images');
    // The photo step's call takes its token from local storage, the others from the cookie: both are there.
    await uploadVehicleImagesStep(page);
    await page.waitForURL('**/add-vehicle');
    await addVehicleStep(page);
    await page.waitForURL('**/awaiting-approval');
    const stored = await page.evaluate(() => ({ token: localStorage.getItem('token'), driverId: localStorage.getItem('driver_id') }));
    expect(stored.driverId).toBe(driver.driverId);
    expect(json(await statusWith(driver.driverId, stored.token ?? ''))).toMatchObject({ data: { status: 'pending', isSessionComplete: true } });
  });

  it('takes a driver who sent everything to /awaiting-approval', async () => {
    const driver = await verifiedDriver(app());
    await sendVehicle(app(), driver);
    const page = await newPage();
    await signInWithPassword(page, driver.email, TEST_PASSWORD);
    await page.waitForURL('**/awaiting-approval');
    await page.getByRole('heading', { name: 'Awaiting Approval' }).waitFor();
  });

  it('says "The email or password is incorrect." for a wrong password, and stays', async () => {
    const driver = await verifiedDriver(app());
    const page = await newPage();
    await signInWithPassword(page, driver.email, 'Wr0ng!Pass');
    await expectToast(page, 'The email or password is incorrect.');
    expect(new URL(page.url()).pathname).toBe('/sign-in');
  });

  it('signs a Google driver in again through the emulator, back to the social profile', async () => {
    const email = uniqueEmail('google-again');
    const page = await newPage();
    await page.goto('/signup');
    const signInWithGoogle = async () => {
      await page.getByRole('button', { name: 'Continue with Google' }).click();
      const dialog = page.getByRole('dialog', { name: 'Sign in with a test account' });
      await dialog.getByLabel('Email').fill(email);
      await dialog.getByRole('button', { name: 'Continue' }).click();
    };
    await signInWithGoogle();
    await page.waitForURL('**/complete-profile');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expectToast(page, 'You are signed out.');
    await page.waitForURL('**/sign-in');
    await expect(page.evaluate(() => Object.keys(localStorage))).resolves.toEqual([]);

    await signInWithGoogle();
    await page.waitForURL('**/complete-profile');
    // The social variant: the profile asks for the phone.
    await page.locator('#root_phoneNo').waitFor();
    await expect(page.evaluate(() => localStorage.getItem('isSocial'))).resolves.toBe('yes');
  });
});

describe('a forgotten password', () => {
  it('is reset by Firebase’s email; signing in with the new one ends the sessions from before', async () => {
    const driver = await verifiedDriver(app());
    await verifyPhone(app(), driver);
    const page = await newPage();
    await page.goto('/sign-in');
    await page.getByRole('button', { name: 'Forgot your password?' }).click();
    await expectToast(page, 'Please enter your email above first, then tap “Forgot your password?”.');
    await page.locator('#root_email').fill(driver.email);
    await page.getByRole('button', { name: 'Forgot your password?' }).click();
    await expectToast(page, 'If an account uses this email, we sent it a link to choose a new password. Open it, then sign in here with the new password.');
    await screenshot(page, '31-password-reset');

    // The driver follows the emailed link and chooses a new password (the emulator's action page).
    const oobCode = await latestOobCode(driver.email, 'PASSWORD_RESET');
    await new Promise((resolve) => setTimeout(resolve, 1100)); // Firebase keeps "valid since" in whole seconds
    const reset = await fetch(
      `http://${authEmulatorHost()}/emulator/action?mode=resetPassword&oobCode=${oobCode}&apiKey=demo-api-key&newPassword=N3w!Passw0rd`,
    );
    expect(reset.ok).toBe(true);

    await signInWithPassword(page, driver.email, TEST_PASSWORD);
    await expectToast(page, 'The email or password is incorrect.');
    await signInWithPassword(page, driver.email, 'N3w!Passw0rd');
    await page.waitForURL('**/complete-profile');
    expect((await statusWith(driver.driverId, driver.token)).statusCode).toBe(401);
  });
});

describe('signing in again without leaving the page', () => {
  it('asks in a dialog when the session ended, then sends what was typed', async () => {
    const driver = await verifiedDriver(app());
    await verifyPhone(app(), driver);
    const page = await newPage();
    await signInWithPassword(page, driver.email, TEST_PASSWORD);
    await page.waitForURL('**/complete-profile');
    // The session ends while the driver types (idle, or signed out on another device).
    const token = await page.evaluate(() => localStorage.getItem('token'));
    await app().inject({ method: 'POST', url: '/auth/signOut', headers: bearer(token ?? ''), payload: {} });
    await fillProfileStep(page);
    await press(page, 'Next');
    const dialog = page.getByRole('dialog', { name: 'Please sign in again' });
    await dialog.getByText('Session expired, Please relogin').waitFor();
    await screenshot(page, '32-sign-in-again');
    await dialog.locator('#root_email').fill(driver.email);
    await dialog.locator('#root_password').fill(TEST_PASSWORD);
    await dialog.getByRole('button', { name: 'Sign In', exact: true }).click();
    await expectToast(page, 'Personal Profile Completed Successfully.');
    await page.waitForURL('**/upload-vehicle-images');
    const { rows } = await journey.server.db.query<{ first_name: string }>(
      "SELECT answers ->> 'firstName' AS first_name FROM step_answers WHERE driver_id = $1 AND step = 'completeProfile'",
      [driver.driverId],
    );
    expect(rows[0]?.first_name).toBe('Robin');
  });

  it('says "Token Not Found" and asks in a dialog when the browser keeps no token, without sending the step', async () => {
    const driver = await verifiedDriver(app());
    await verifyPhone(app(), driver);
    const page = await newPage();
    await signInWithPassword(page, driver.email, TEST_PASSWORD);
    await page.waitForURL('**/complete-profile');
    // The token is gone from this browser (cleared by the driver, or by a privacy setting).
    await page.context().clearCookies();
    await page.evaluate(() => localStorage.removeItem('token'));
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') sent.push(new URL(request.url()).pathname);
    });
    await fillProfileStep(page);
    await press(page, 'Next');
    const dialog = page.getByRole('dialog', { name: 'Please sign in again' });
    await dialog.getByText('Token Not Found').waitFor();
    await screenshot(page, '32-sign-in-again-token-not-found');
    expect(sent).toEqual([]);
    await dialog.locator('#root_email').fill(driver.email);
    await dialog.locator('#root_password').fill(TEST_PASSWORD);
    await dialog.getByRole('button', { name: 'Sign In', exact: true }).click();
    await expectToast(page, 'Personal Profile Completed Successfully.');
    await page.waitForURL('**/upload-vehicle-images');
  });

  it('asks for a recent sign-in before the payout account is replaced', async () => {
    const driver = await verifiedDriver(app());
    await sendVehicle(app(), driver);
    await decide(app(), journey.server.reviewer.key, driver.driverId, 'approve');
    await journey.server.db.query('UPDATE drivers SET is_subscription_paid = true WHERE id = $1', [driver.driverId]);
    await app().inject({
      method: 'POST',
      url: '/finance/banks',
      headers: bearer(driver.token),
      payload: { accountHolderName: 'Robin Hale', accountNumber: '000123456789', routingNumber: '111000025' },
    });

    const page = await newPage();
    await signInWithPassword(page, driver.email, TEST_PASSWORD);
    // A paid driver lands on the payout account, where it can be changed.
    await page.waitForURL('**/add-bank');
    // Minutes later: the sign-in is no longer recent.
    journey.server.clock.advance(6 * 60_000);
    try {
      await page.locator('#root_accountHolderName').fill('Robin Hale');
      await page.locator('#root_accountNumber').fill('99988877766655');
      await page.locator('#root_routingNumber').fill('111000025');
      await press(page, 'Confirm & Continue');
      const dialog = page.getByRole('dialog', { name: 'Please sign in again' });
      await dialog.waitFor();
      journey.server.clock.reset();
      await dialog.locator('#root_email').fill(driver.email);
      await dialog.locator('#root_password').fill(TEST_PASSWORD);
      await dialog.getByRole('button', { name: 'Sign In', exact: true }).click();
      await page.getByRole('heading', { name: 'Congratulations!' }).waitFor();
    } finally {
      journey.server.clock.reset();
    }
    const { rows } = await journey.server.db.query<{ masked: string }>(
      "SELECT answers -> 'accountNumber' ->> '$masked' AS masked FROM step_answers WHERE driver_id = $1 AND step = 'addBank'",
      [driver.driverId],
    );
    expect(rows).toEqual([{ masked: '•••••6655' }]);
  });
});

describe('signing out', () => {
  it('ends the session and forgets the driver on this device', async () => {
    const driver = await verifiedDriver(app());
    await completeProfile(app(), driver);
    const page = await newPage();
    await signInWithPassword(page, driver.email, TEST_PASSWORD);
    await page.waitForURL('**/complete-profile');
    const token = await page.evaluate(() => localStorage.getItem('token'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expectToast(page, 'You are signed out.');
    await page.waitForURL('**/sign-in');
    expect(await page.evaluate(() => Object.keys(localStorage))).toEqual([]);
    expect((await page.context().cookies()).find((cookie) => cookie.name === 'token')).toBeUndefined();
    expect((await statusWith(driver.driverId, token ?? '')).statusCode).toBe(401);
    await expect(page.getByRole('button', { name: 'Sign out' }).count()).resolves.toBe(0);
  });
});
