// The server answers in the request's language (Accept-Language), with the words of the same
// files the browser shows: flows/onboarding.flow.json's messages, flows/server-messages.json and
// the step schemas', through their translations in locales/. Each step's field messages are
// checked in Spanish by its fixtures (fixtures.test.ts). A driver's notices go out in the
// language they last used the app in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulatorUser } from '../support/identity.js';
import {
  bearer,
  decide,
  file,
  formData,
  json,
  outbox,
  PNG_BYTES,
  profileValues,
  sendVehicle,
  signUpPayload,
  startTestServer,
  verifiedDriver,
  verifyPhone,
  type TestServer,
} from '../support/server.js';
import { messageIn } from '../../src/server/serverMessages.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const status = (language?: string) =>
  server.app.inject({ method: 'GET', url: '/driver/status/someone', headers: language === undefined ? {} : { 'accept-language': language } });

describe('the language of an answer', () => {
  it('is Spanish for a browser that prefers it, in any of its regional forms', async () => {
    for (const language of ['es', 'es-MX,es;q=0.9,en;q=0.8', 'fr-FR, es;q=0.5']) {
      const response = await status(language);
      expect(response.statusCode).toBe(401);
      expect(json(response)).toMatchObject({ message: 'No se encontró el token.' });
    }
  });

  it('is English for a browser that asks for none Onramp speaks, or for English first', async () => {
    for (const language of [undefined, 'fr', 'en-US,es;q=0.9', 'es;q=0, en']) {
      expect(json(await status(language))).toMatchObject({ message: 'Token not found' });
    }
  });

  it('is English, never a fault, for a header that is junk', async () => {
    for (const language of ['es;q=abc, ;;;', 'q=1', '\u0001es', `${'x-'.repeat(3000)}es`, 'es;q=-1', ',,,,']) {
      const response = await status(language);
      expect(response.statusCode).toBe(401);
      expect(json(response)).toMatchObject({ message: expect.any(String) });
    }
    // A weight that is no number from 0 to 1 leaves its language out.
    expect(json(await status('es;q=abc, en;q=0.5'))).toMatchObject({ message: 'Token not found' });
    expect(json(await status('es;q=-1, en'))).toMatchObject({ message: 'Token not found' });
    expect(json(await status('fr, es;q=0.5'))).toMatchObject({ message: 'No se encontró el token.' });
  });

  it('carries a step’s field messages in the same language', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/auth/driverEmailSignUp',
      headers: { 'accept-language': 'es-US' },
      payload: signUpPayload(await createEmulatorUser(), '12'),
    });
    expect(response.statusCode).toBe(400);
    expect(json(response)).toMatchObject({
      message: 'El número de teléfono debe ser válido.',
      errors: { phoneNo: ['El número de teléfono debe ser válido.', 'El número de teléfono debe tener 10 dígitos'] },
    });
  });
});

describe('the server’s own answers', () => {
  it('are in the request’s language, a refusal as a confirmation', async () => {
    const user = await createEmulatorUser();
    const headers = { 'accept-language': 'es' };
    const signedUp = await server.app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', headers, payload: signUpPayload(user, '2025550188') });
    expect(json(signedUp)).toMatchObject({ message: 'Enviamos un código de 4 dígitos a tu correo electrónico.' });
    const code = (await outbox(server.app)).find((entry) => entry.to === user.email && 'code' in entry);
    expect(code?.subject).toMatch(/^Tu código de Onramp es \d{4}$/);
    const { token } = json<{ token: string }>(signedUp);
    const wrong = await server.app.inject({
      method: 'POST',
      url: '/auth/validateOTP',
      headers: { ...headers, ...bearer(token) },
      payload: { code: '0000', email: user.email },
    });
    expect(wrong.statusCode).toBe(400);
    expect(json(wrong)).toEqual({ message: 'El código que ingresaste es incorrecto.' });
  });

  it('keep the values of their placeholders in the translation', () => {
    expect(messageIn('es', 'codes.locked', { hours: 24 })).toBe(
      'Demasiados códigos incorrectos. Por tu seguridad, la verificación de códigos está bloqueada durante 24 horas.',
    );
    expect(messageIn('en', 'request.unknownField', { field: 'nickname' })).toBe('Unknown field: nickname');
  });
});

describe('the request reader’s refusals', () => {
  const spanish = { 'accept-language': 'es-MX' };

  it('name an unknown field in Spanish', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/auth/driverEmailSignUp',
      headers: spanish,
      payload: { ...signUpPayload(await createEmulatorUser(), '2025550143'), nickname: 'Ada' },
    });
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message: 'Campo desconocido: nickname' });
  });

  it('refuse a body that is no JSON object in Spanish', async () => {
    for (const payload of ['[]', '"text"', '42']) {
      const response = await server.app.inject({
        method: 'POST',
        url: '/auth/driverEmailSignUp',
        headers: { ...spanish, 'content-type': 'application/json' },
        payload,
      });
      expect(response.statusCode).toBe(400);
      expect(json(response)).toEqual({ message: 'El cuerpo de la solicitud debe ser un objeto JSON.' });
    }
  });

  it('refuse a bad multipart form in Spanish', async () => {
    const driver = await verifiedDriver(server.app);
    await verifyPhone(server.app, driver);
    const headers = { ...bearer(driver.token), ...spanish };
    const cutShort = await server.app.inject({
      method: 'POST',
      url: '/driver/completeProfile',
      headers: { ...headers, 'content-type': 'multipart/form-data; boundary=onramp' },
      payload: '--onramp\r\ncontent-disposition: form-data; name="firstName"\r\n\r\nAda',
    });
    expect(cutShort.statusCode).toBe(400);
    expect(json(cutShort)).toEqual({
      message: 'No se pudo leer el formulario: llegó incompleto o no es un formulario multipart. Envíalo de nuevo, por favor.',
    });

    const fileAsText = await server.app.inject({
      method: 'POST',
      url: '/driver/completeProfile',
      headers,
      payload: formData(profileValues({ firstName: file(PNG_BYTES) })) as never,
    });
    expect(fileAsText.statusCode).toBe(400);
    expect(json(fileAsText)).toEqual({ message: 'firstName debe ser texto, no un archivo.' });

    const asJson = await server.app.inject({ method: 'POST', url: '/driver/completeProfile', headers, payload: { firstName: 'Ada' } });
    expect(asJson.statusCode).toBe(415);
    expect(json(asJson)).toEqual({ message: 'Esta solicitud debe enviarse como un formulario multipart.' });
  });
});

describe('a driver’s notices', () => {
  it('go out in the language of the driver’s last change sent from the app', async () => {
    const driver = await verifiedDriver(server.app);
    await sendVehicle(server.app, driver);
    const languageOf = async () => (await server.db.query<{ locale: string }>('SELECT locale FROM drivers WHERE id = $1', [driver.driverId])).rows[0]?.locale;
    expect(await languageOf()).toBe('en');
    // The driver switched the app to Spanish, then signed out.
    const signedOut = await server.app.inject({
      method: 'POST',
      url: '/auth/signOut',
      headers: { ...bearer(driver.token), 'accept-language': 'es-MX' },
      payload: {},
    });
    expect(json(signedOut)).toMatchObject({ message: 'Cerraste sesión.' });
    expect(await languageOf()).toBe('es');
    expect((await decide(server.app, server.reviewer.key, driver.driverId, 'approve')).statusCode).toBe(200);
    await server.app.messaging.deliverDue();
    const approval = (await outbox(server.app)).find((entry) => entry.to === driver.email && 'notice' in entry && entry.notice === 'approved');
    expect(approval).toMatchObject({ subject: 'Te aprobamos para manejar con Onramp' });
  });
});
