// @module-tag chromium
// A driver whose phone reads Spanish walks the whole journey in Spanish, from the sign-up to the
// bank account, in headless Chromium on a 390×844 phone: every step's toast and at least one of
// its validation messages in Spanish (the words of locales/es/), switching to English in the
// middle of a step and back without losing what was typed.
import { randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide, VEHICLE_IMAGE_FIELDS } from '../support/server.js';
import { choosePhoto, expectToast, latestCode, PHONE_VIEWPORT, press, screenshot, startJourney, type Journey } from './support.js';
import { scaled } from '../support/machineSpeed.js';

let journey: Journey;
let context: BrowserContext;
let page: Page;
const email = `conductora-${randomUUID().slice(0, 8)}@example.com`;
const phoneDigits = '2025550177';

beforeAll(async () => {
  journey = await startJourney();
  // A phone set to Mexican Spanish: navigator.languages and Accept-Language say so.
  context = await journey.browser.newContext({ viewport: PHONE_VIEWPORT, isMobile: true, hasTouch: true, baseURL: journey.baseUrl, locale: 'es-MX' });
  page = await context.newPage();
});
afterAll(async () => {
  await journey?.close();
});

const fieldError = (field: string) => page.locator(`#root_${field}__error`);
const heading = (name: string) => page.getByRole('heading', { name, exact: true }).waitFor();

describe('the journey in Spanish, on a phone that reads Spanish', () => {
  it('signs up in Spanish, the language taken from the phone', async () => {
    await page.goto('/signup');
    await heading('Registrarse');
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('es');
    for (const stage of ['Registro', 'Completar perfil', 'Agregar vehículo', 'Aprobación', 'Suscripción', 'Agregar banco']) {
      await expect(page.locator('.journey').getByText(stage, { exact: true }).isVisible()).resolves.toBe(true);
    }
    await press(page, 'Registrarse');
    await expect(fieldError('email').textContent()).resolves.toBe('Ingresa tu correo electrónico');
    await expect(fieldError('accept').textContent()).resolves.toBe('Debes aceptar los Términos y condiciones');
    await screenshot(page, '40-es-signup-errors');

    await page.locator('#root_email').fill(email);
    await page.locator('#root_phoneNo').fill(phoneDigits);
    await page.locator('#root_password').fill('Str0ng!Pass');
    await page.locator('#root_confirmPassword').fill('Str0ng!Pass');
    await page.locator('#root_accept').check();
    await page.locator('#root_twilioCheck').check();
    await press(page, 'Registrarse');
    await page.waitForURL('**/verify-otp-email');
  });

  it('verifies the email code', async () => {
    await heading('Verifica tu correo electrónico');
    await press(page, 'Continuar');
    await expect(fieldError('otp').textContent()).resolves.toBe('Ingresa el código de 4 dígitos que recibiste por correo electrónico.');
    await press(page, 'Reenviar');
    await expectToast(page, 'Correo reenviado correctamente.');
    await page.locator('#root_otp').fill(await latestCode(journey.baseUrl, 'email', email));
    await press(page, 'Continuar');
    await expectToast(page, 'Correo electrónico verificado correctamente.');
    await page.waitForURL('**/verify-otp-phone');
  });

  it('verifies the phone code', async () => {
    await heading('Verifica tu teléfono');
    await press(page, 'Continuar');
    await expect(fieldError('otp').textContent()).resolves.toBe('Ingresa el código de 4 dígitos que recibiste por mensaje de texto.');
    await press(page, 'Reenviar');
    await expectToast(page, 'Código reenviado a tu teléfono correctamente.');
    await page.locator('#root_otp').fill(await latestCode(journey.baseUrl, 'sms', `+1${phoneDigits}`));
    await press(page, 'Continuar');
    await expectToast(page, 'Número de teléfono verificado correctamente.');
    await page.waitForURL('**/complete-profile');
  });

  it('completes the profile', async () => {
    await heading('Actualiza tu información personal');
    await press(page, 'Siguiente');
    await expect(fieldError('firstName').textContent()).resolves.toBe('Ingresa tu nombre');
    await choosePhoto(page, 'profilePicture', 'Yo');
    await page.locator('#root_firstName').fill('Lucía');
    await page.locator('#root_lastName').fill('Herrera');
    await page.locator('#root_dateOfBirth').fill('2015-05-05');
    await expect.poll(() => fieldError('dateOfBirth').textContent()).toBe('Debes tener al menos 18 años para usar la app.');
    await page.locator('#root_dateOfBirth').fill('1990-03-08');
    await page.locator('#root_gender').selectOption({ label: 'Mujer' });
    await page.locator('#root_SSN').fill('345-67-8901');
    await page.locator('#root_driverLicenseNumber').fill('L2345678');
    await page.locator('#root_street').fill('12 Calle Sol');
    await page.locator('#root_state').selectOption('TX');
    await page.locator('#root_city option', { hasText: 'Austin' }).first().waitFor({ state: 'attached' });
    await page.locator('#root_city').selectOption('Austin');
    await page.locator('#root_zipCode').fill('73301');
    await choosePhoto(page, 'socialSecurityCardFront');
    await choosePhoto(page, 'socialSecurityCardBack');
    await screenshot(page, '41-es-profile');
    await press(page, 'Siguiente');
    await expectToast(page, 'Perfil personal completado correctamente.');
    await page.waitForURL('**/upload-vehicle-images');
  });

  it('uploads the vehicle photos', async () => {
    await heading('Sube las fotos del vehículo');
    await press(page, 'Guardar');
    await expect(fieldError('vehicleImageFront').textContent()).resolves.toBe('Sube una foto del frente del vehículo');
    for (const field of VEHICLE_IMAGE_FIELDS) await choosePhoto(page, field);
    await press(page, 'Guardar');
    await expectToast(page, 'Fotos del vehículo subidas correctamente.');
    await page.waitForURL('**/add-vehicle');
  });

  it('adds the vehicle, switching to English in the middle and back, with what was typed kept', async () => {
    await heading('Agrega tu vehículo');
    await page.locator('#root_vehicleMake').fill('Nissan');
    await page.locator('#root_vehicleName').fill('Sentra');
    await page.locator('#root_modelYear').fill('20');
    await page.locator('#root_modelYear').blur();
    await expect.poll(() => fieldError('modelYear').textContent()).toBe('Ingresa un año válido en formato AAAA');

    await press(page, 'English');
    await heading('Add Vehicle');
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    await expect(page.locator('#root_vehicleMake').inputValue()).resolves.toBe('Nissan');
    await expect(page.locator('#root_vehicleName').inputValue()).resolves.toBe('Sentra');
    await page.locator('#root_modelYear').fill('19');
    await page.locator('#root_modelYear').blur();
    await expect.poll(() => fieldError('modelYear').textContent()).toBe('Please enter a valid year in YYYY format');
    await screenshot(page, '42-es-switched-to-english');

    await press(page, 'Español');
    await heading('Agrega tu vehículo');
    await expect(page.locator('#root_vehicleMake').inputValue()).resolves.toBe('Nissan');
    await page.locator('#root_modelYear').fill('2021');
    await page.locator('#root_plateNumber').fill('9LMN456');
    for (const field of ['driverLicenseCardFront', 'driverLicenseCardBack', 'proofInsurance', 'vehicleRegistrationCard']) await choosePhoto(page, field);
    for (const field of ['driverLicenseExpiryDate', 'proofInsuranceExpiryDate', 'vehicleRegistrationExpiryDate'])
      await page.locator(`#root_${field}`).fill('2099-12-31');
    await press(page, 'Confirmar y enviar para aprobación');
    await expectToast(page, 'Perfil y vehículo enviados para aprobación.');
    await page.waitForURL('**/awaiting-approval');
    await heading('En espera de aprobación');
  });

  it('is approved, pays in Spanish and adds the bank account', async () => {
    const driverId = await page.evaluate(() => localStorage.getItem('driver_id'));
    expect((await decide(journey.server.app, journey.server.reviewer.key, driverId ?? '', 'approve')).statusCode).toBe(200);
    await page.waitForURL('**/profile-approved', { timeout: scaled(30_000) });
    await heading('¡Felicidades! Tu perfil fue aprobado.');
    await press(page, 'Continuar');
    await heading('Cargos administrativos');
    await page.getByText('$199/semana', { exact: true }).waitFor();
    await press(page, 'Suscríbete ahora');
    await heading('Datos de la tarjeta');
    await page.getByLabel('Número de tarjeta').fill('4242 4242');
    await page.getByLabel('Número de tarjeta').blur();
    await page.locator('.field-error', { hasText: 'El número de tu tarjeta está incompleto.' }).waitFor();
    await page.getByLabel('Número de tarjeta').fill('4242424242424242');
    await page.getByLabel('Fecha de vencimiento').fill('12 / 34');
    await page.getByLabel('Código de seguridad').fill('123');
    await screenshot(page, '43-es-card');
    await press(page, 'Confirmar y continuar');
    await expectToast(page, '¡Felicidades! Tu suscripción ya está activa.');
    await page.waitForURL('**/add-bank');

    await heading('Datos bancarios');
    await page.locator('#root_accountHolderName').fill('Lucía Herrera');
    await page.locator('#root_accountNumber').fill('12345');
    await page.locator('#root_routingNumber').fill('111000026');
    await page.locator('#root_routingNumber').blur();
    await page.locator('.field-error', { hasText: 'El número de cuenta debe tener al menos 12 caracteres.' }).waitFor();
    await page.locator('.field-error', { hasText: 'El número de ruta no es válido.' }).waitFor();
    await page.locator('#root_accountNumber').fill('000123456789');
    await page.locator('#root_routingNumber').fill('111000025');
    await press(page, 'Confirmar y continuar');
    await heading('¡Felicidades!');
    await screenshot(page, '44-es-done');
  });
});
