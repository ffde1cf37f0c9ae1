// The server answers in the request's language (Accept-Language), with the words of the same
// files the browser shows: flows/onboarding.flow.json's messages and the step schemas', through
// their translations in locales/. Each step's field messages are checked in Spanish by its
// fixtures (fixtures.test.ts); these are the messages of the flow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulatorUser } from '../support/identity.js';
import { json, signUpPayload, startTestServer, type TestServer } from '../support/server.js';

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
