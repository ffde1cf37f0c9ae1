// @module-tag chromium
// Documents that expire, in headless Chromium at 390×844: an approved driver whose
// proof of insurance expires in 20 days signs in, lands on the vehicle step with that document's
// fields marked and every other field read-only, and sends the new document and its date,
// which takes them to the approval wait; the reviewer sees only that document changed, and the
// review page lists it among the expiring documents.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReviewDriver } from '../../src/shared/review.js';
import { TEST_PASSWORD } from '../support/identity.js';
import { approvedDriver, bearer, json, staffAccount } from '../support/server.js';
import {
  choosePhoto,
  contextForTest,
  PHONE_VIEWPORT,
  expectToast,
  press,
  screenshot,
  signInAsStaff,
  signInWithPassword,
  startJourney,
  type Journey,
} from './support.js';

const DAY_MS = 24 * 3600 * 1000;

let journey: Journey;
beforeAll(async () => {
  journey = await startJourney();
});
afterAll(async () => {
  await journey?.close();
});

const newPage = async (viewport?: { width: number; height: number }): Promise<Page> => (await contextForTest(journey, viewport)).newPage();

describe('an approved driver whose document expires soon', () => {
  it('signs in, replaces only that document and its date, and waits for its review', async () => {
    const { app, db, reviewer } = journey.server;
    const driver = await approvedDriver(journey.server);
    const expiresOn = new Date(Date.now() + 20 * DAY_MS).toISOString().slice(0, 10);
    await db.query(
      `UPDATE step_answers SET answers = jsonb_set(answers, '{proofInsuranceExpiryDate}', to_jsonb($2::text)) WHERE driver_id = $1 AND step = 'addVehicle'`,
      [driver.driverId, expiresOn],
    );
    const words = `This document expires on ${new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' }).format(Date.parse(expiresOn))}. Please send the new one with its expiry date.`;

    const page = await newPage();
    await signInWithPassword(page, driver.email, TEST_PASSWORD);
    await page.waitForURL('**/add-vehicle');
    await page.getByRole('heading', { name: 'Add Vehicle' }).waitFor();
    await expect(page.getByText(words).count()).resolves.toBe(2);
    await expect(page.locator('#root_proofInsuranceExpiryDate').inputValue()).resolves.toBe(expiresOn);
    await screenshot(page, '60-document-expiring');

    // Only that document and its date may change (the server refuses anything else): the rest is read-only.
    await expect(page.locator('#root_proofInsuranceExpiryDate').isEditable()).resolves.toBe(true);
    for (const field of ['plateNumber', 'driverLicenseExpiryDate', 'vehicleRegistrationExpiryDate'])
      await expect(page.locator(`#root_${field}`).isEditable(), field).resolves.toBe(false);

    await choosePhoto(page, 'proofInsurance', 'New insurance');
    await page.locator('#root_proofInsuranceExpiryDate').fill('2099-12-31');
    await press(page, 'Confirm & Send for Approval');
    await expectToast(page, 'Profile & Vehicle sent for approval.');
    await page.waitForURL('**/awaiting-approval');

    const review = json<ReviewDriver>(await app.inject({ method: 'GET', url: `/admin/drivers/${driver.driverId}`, headers: bearer(reviewer.key) }));
    expect(review.status).toBe('pending');
    const changed = review.steps.flatMap((step) => step.fields.filter((field) => field.changed).map((field) => field.field));
    expect(changed).toEqual(['proofInsurance', 'proofInsuranceExpiryDate']);
  });

  it('is listed on the review page among the expiring documents', async () => {
    const driver = await approvedDriver(journey.server);
    const expiresOn = new Date(Date.now() + 5 * DAY_MS).toISOString().slice(0, 10);
    await journey.server.db.query(
      `UPDATE step_answers SET answers = jsonb_set(answers, '{vehicleRegistrationExpiryDate}', to_jsonb($2::text)) WHERE driver_id = $1 AND step = 'addVehicle'`,
      [driver.driverId, expiresOn],
    );
    const staff = await staffAccount(journey.server.app, ['reviewer']);
    const page = await newPage({ width: 1280, height: 900 });
    await page.goto('/admin');
    await signInAsStaff(page, { email: staff.email, password: staff.user.password });
    await page.getByRole('button', { name: 'Expiring documents' }).click();
    const row = page.getByRole('row').filter({ hasText: driver.email });
    await row.waitFor();
    await expect(row.innerText()).resolves.toContain('vehicle registration');
    await expect(row.innerText()).resolves.toContain('in 5 days');
    await screenshot(page, '61-expiring-documents');
    await page.setViewportSize(PHONE_VIEWPORT);
    await screenshot(page, '62-expiring-documents-phone');
  });
});
