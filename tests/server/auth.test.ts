import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createEmulatorUser, createSocialUser, uniqueEmail, withClaims } from '../support/identity.js';
import {
  bearer,
  json,
  latestCode,
  outbox,
  randomPhone,
  signIn,
  signUp,
  signUpPayload,
  startTestServer,
  type TestDriver,
  type TestServer,
} from '../support/server.js';

let server: TestServer;
let app: FastifyInstance;

beforeAll(async () => {
  server = await startTestServer();
  app = server.app;
});
afterAll(() => server.close());
afterEach(() => server.clock.reset());

const MINUTE = 60_000;
const SIGN_IN_NOT_VERIFIED = 'Your sign-in could not be verified. Please try again.';
const WRONG_CODE = 'The code you entered is incorrect.';

interface ErrorBody {
  message: string;
  errors?: Record<string, string[]>;
}

/** A 400 whose errors name `message` for `field`, and whose headline is one of its messages. */
function expectFieldError(response: { statusCode: number; json(): unknown }, field: string, message: string) {
  const body = response.json() as ErrorBody;
  expect(response.statusCode).toBe(400);
  expect(body.errors?.[field]).toContain(message);
  expect(Object.values(body.errors ?? {}).flat()).toContain(body.message);
}

const driverRow = async (driverId: string) =>
  (await server.db.query<Record<string, unknown>>('SELECT * FROM drivers WHERE id = $1', [driverId])).rows[0]!;

describe('POST /auth/driverEmailSignUp', () => {
  // Validation comes before the token is checked, so these need no real account.
  const user = { email: 'ada@example.com', password: 'Str0ng!Pass', uid: '', idToken: 'not-checked-yet' };
  const signUpWith = (overrides: Record<string, unknown>) =>
    app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', payload: signUpPayload(user, '+12025550143', overrides) });
  const without = (key: string) => {
    const payload: Record<string, unknown> = signUpPayload(user, '+12025550143');
    delete payload[key];
    return app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', payload });
  };

  it('creates the driver, records consent and the reported ip, and emails a code', async () => {
    const created = await createEmulatorUser();
    const phone = randomPhone();
    const response = await app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', payload: signUpPayload(created, phone, { referalCode: '1234' }) });
    expect(response.statusCode).toBe(200);
    const body = json(response);
    expect(body).toEqual({ success: true, message: 'We sent a 4-digit code to your email.', driverId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const row = await driverRow(String(body.driverId));
    expect(row).toMatchObject({ email: created.email, firebase_uid: created.uid, provider: 'password', phone, referral_code: '1234', signup_ip: '203.0.113.7', status: 'pending' });
    expect(row.terms_accepted_at).toBeInstanceOf(Date);
    expect(row.sms_consent_at).toBeInstanceOf(Date);
    expect(row.email_verified_at).toBeNull();
    expect((await outbox(app))[0]).toMatchObject({ channel: 'email', to: created.email, code: expect.stringMatching(/^\d{4}$/) });
  });

  it('lower-cases the email before comparing it with the signed-in account', async () => {
    const created = await createEmulatorUser();
    const response = await app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', payload: signUpPayload(created, randomPhone(), { email: created.email.toUpperCase() }) });
    expect(response.statusCode).toBe(200);
  });

  it('updates phone and referral code and sends a new code when the same account signs up again', async () => {
    const first = await signUp(app);
    const oldCode = await latestCode(app, first.email);
    const newPhone = randomPhone();
    const again = await app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', payload: signUpPayload(first.user, newPhone, { referalCode: '9876' }) });
    expect(again.statusCode).toBe(200);
    expect(json(again).driverId).toBe(first.driverId);
    expect(await driverRow(first.driverId)).toMatchObject({ phone: newPhone, referral_code: '9876' });
    const newCode = await latestCode(app, first.email);
    if (newCode !== oldCode) {
      const replay = await app.inject({ method: 'POST', url: '/auth/validateOTP', payload: { code: oldCode, email: first.email } });
      expect(replay.statusCode).toBe(400);
    }
    const ok = await app.inject({ method: 'POST', url: '/auth/validateOTP', payload: { code: newCode, email: first.email } });
    expect(ok.statusCode).toBe(200);
  });

  it('refuses with 409 an email that belongs to another sign-in account', async () => {
    const created = await createEmulatorUser();
    await server.db.query("INSERT INTO drivers (email, firebase_uid, provider) VALUES ($1, 'someone-else', 'google.com')", [created.email]);
    const response = await app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', payload: signUpPayload(created, randomPhone()) });
    expect(response.statusCode).toBe(409);
    expect(json(response).message).toBe('An account with this email already exists. Please sign in the way you signed up before.');
  });

  it('refuses with 401 a token whose account has another email', async () => {
    const created = await createEmulatorUser();
    const response = await app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', payload: signUpPayload(created, randomPhone(), { email: uniqueEmail() }) });
    expect(response.statusCode).toBe(401);
    expect(json(response).message).toBe('The signed-in account does not match this email. Please sign in again.');
  });

  it('refuses with 401 an ID token that is not a token', async () => {
    const response = await signUpWith({ idToken: 'garbage' });
    expect(response.statusCode).toBe(401);
    expect(json(response)).toEqual({ message: SIGN_IN_NOT_VERIFIED });
  });

  it('refuses with 401 an ID token of another Firebase project', async () => {
    const created = await createEmulatorUser();
    const foreign = withClaims(created.idToken, { aud: 'other-project', iss: 'https://securetoken.google.com/other-project' });
    const response = await app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', payload: signUpPayload({ ...created, idToken: foreign }, randomPhone()) });
    expect(response.statusCode).toBe(401);
    expect(json(response).message).toBe(SIGN_IN_NOT_VERIFIED);
  });

  it('refuses with 401 an expired ID token', async () => {
    const created = await createEmulatorUser();
    const past = Math.floor(Date.now() / 1000) - 7200;
    const expired = withClaims(created.idToken, { iat: past, auth_time: past, exp: past + 3600 });
    const response = await app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', payload: signUpPayload({ ...created, idToken: expired }, randomPhone()) });
    expect(response.statusCode).toBe(401);
  });

  it('asks for the ID token when it is missing', async () => {
    const response = await without('idToken');
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('The sign-in token (idToken) is missing. Please sign in again.');
  });

  it('refuses an ip that is not an IP address', async () => {
    const response = await signUpWith({ ip: '<script>' });
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('ip must be an IP address.');
  });

  it.each([
    ['email', 'Please enter your email'],
    ['phoneNo', 'Please enter your phone number'],
    ['password', 'Please enter your password'],
    ['confirmPassword', 'Please confirm your password'],
    ['accept', 'You must accept the Terms & Conditions'],
    ['twilioCheck', 'You must accept the SMS Notification from the product.'],
  ])('rejects a sign-up without %s with "%s"', async (field, message) => {
    expectFieldError(await without(field), field, message);
  });

  it.each([
    ['email', { email: 'not-an-email' }, 'Email must be valid.'],
    ['phoneNo', { phoneNo: '+11235550143' }, 'Phone number must be valid.'],
    ['phoneNo', { phoneNo: '+1202555' }, 'Phone number must be 10 digits long'],
    ['password', { password: 'Sh0rt!', confirmPassword: 'Sh0rt!' }, 'Password must be at least 8 characters long'],
    [
      'password',
      { password: 'alllowercase1!', confirmPassword: 'alllowercase1!' },
      'Password must contain at least one uppercase letter, one lowercase letter, one number, and one special character',
    ],
    ['confirmPassword', { confirmPassword: 'Str0ng!Pas' }, 'Passwords must match'],
    ['referalCode', { referalCode: '12' }, 'Referral code must be exactly 4 characters.'],
    ['accept', { accept: false }, 'You must accept the Terms & Conditions'],
    ['twilioCheck', { twilioCheck: false }, 'You must accept the SMS Notification from the product.'],
  ])('rejects a bad %s with "%s"', async (field, overrides, message) => {
    expectFieldError(await signUpWith(overrides), field, message);
  });

  it('treats an empty email as missing, as the form does', async () => {
    expectFieldError(await signUpWith({ email: '' }), 'email', 'Please enter your email');
  });

  it('rejects a field of the wrong type with its name', async () => {
    const response = await signUpWith({ email: 42 });
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('email must be string');
  });

  it('rejects an unknown field, such as a server-set status', async () => {
    const response = await signUpWith({ status: 'approved' });
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message: 'Unknown field: status' });
  });

  it('rejects a body that is not JSON with 400', async () => {
    const response = await app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', headers: { 'content-type': 'application/json' }, payload: '{"email": ' });
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message: 'The request body is not valid JSON.' });
  });

  it('rejects a JSON array with 400', async () => {
    const response = await app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', payload: [1, 2] });
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('The request body must be a JSON object.');
  });

  it('rejects an oversize body with 413', async () => {
    const response = await signUpWith({ idToken: 'x'.repeat(100_000) });
    expect(response.statusCode).toBe(413);
    expect(json(response)).toEqual({ message: 'The request is too large.' });
  });

  it('rejects a multipart body with 415', async () => {
    const form = new FormData();
    form.append('email', 'ada@example.com');
    const response = await app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', payload: form as never });
    expect(response.statusCode).toBe(415);
    expect(json(response).message).toBe('This request must be sent as JSON.');
  });
});

describe('POST /auth/driverSocialSignup', () => {
  it('creates a social driver and returns a session token at once', async () => {
    const social = await createSocialUser('google.com');
    const response = await app.inject({ method: 'POST', url: '/auth/driverSocialSignup', payload: { email: social.email, idToken: social.idToken, ip: '203.0.113.9' } });
    expect(response.statusCode).toBe(200);
    const body = json(response);
    expect(body).toEqual({ success: true, token: expect.any(String), driverId: expect.any(String) });
    expect(await driverRow(String(body.driverId))).toMatchObject({ provider: 'google.com', phone: null });
    const status = await app.inject({ method: 'GET', url: `/driver/status/${body.driverId}`, headers: bearer(String(body.token)) });
    expect(status.statusCode).toBe(200);
  });

  const socialSignUp = (target: FastifyInstance, email: string, idToken: string) =>
    target.inject({ method: 'POST', url: '/auth/driverSocialSignup', payload: { email, idToken, ip: '203.0.113.9' } });
  const driversWithEmail = async (email: string) => (await server.db.query('SELECT 1 FROM drivers WHERE email = $1', [email])).rows.length;

  it.each(['google.com', 'apple.com', 'facebook.com'])('records the provider of a %s sign-up and marks its verified email verified', async (provider) => {
    const social = await createSocialUser(provider);
    const response = await socialSignUp(app, social.email, social.idToken);
    expect(response.statusCode).toBe(200);
    const row = await driverRow(String(json(response).driverId));
    expect(row).toMatchObject({ provider, firebase_uid: social.uid, email: social.email, signup_ip: '203.0.113.9' });
    expect(row.email_verified_at).toBeInstanceOf(Date);
  });

  it('answers the same driver again when the account signs in a second time', async () => {
    const social = await createSocialUser('google.com');
    const first = json(await socialSignUp(app, social.email, social.idToken));
    const again = json(await socialSignUp(app, social.email, social.idToken));
    expect(again.driverId).toBe(first.driverId);
    expect(again.token).not.toBe(first.token);
  });

  it('refuses with 401 an expired ID token', async () => {
    const social = await createSocialUser('google.com');
    const past = Math.floor(Date.now() / 1000) - 7200;
    const response = await socialSignUp(app, social.email, withClaims(social.idToken, { iat: past, auth_time: past, exp: past + 3600 }));
    expect(response.statusCode).toBe(401);
    expect(json(response)).toEqual({ message: SIGN_IN_NOT_VERIFIED });
    expect(await driversWithEmail(social.email)).toBe(0);
  });

  it('refuses with 401 an ID token of another Firebase project', async () => {
    const social = await createSocialUser('google.com');
    const foreign = withClaims(social.idToken, { aud: 'other-project', iss: 'https://securetoken.google.com/other-project' });
    const response = await socialSignUp(app, social.email, foreign);
    expect(response.statusCode).toBe(401);
    expect(json(response)).toEqual({ message: SIGN_IN_NOT_VERIFIED });
    expect(await driversWithEmail(social.email)).toBe(0);
  });

  it('refuses with 401 the token of another account than the email sent', async () => {
    const social = await createSocialUser('google.com');
    const response = await socialSignUp(app, uniqueEmail(), social.idToken);
    expect(response.statusCode).toBe(401);
    expect(json(response).message).toBe('The signed-in account does not match this email. Please sign in again.');
  });

  describe('on a production server (no emulator)', () => {
    let production: FastifyInstance;
    beforeAll(async () => {
      production = await server.buildAnother({ production: true, firebaseAuthEmulatorHost: null });
    });

    it('refuses with 401 an unsigned token, even one the emulator would take', async () => {
      const social = await createSocialUser('google.com');
      // The very token the local server accepts (the emulator's tokens carry alg "none").
      expect(JSON.parse(Buffer.from(social.idToken.split('.')[0]!, 'base64url').toString())).toMatchObject({ alg: 'none' });
      const response = await socialSignUp(production, social.email, social.idToken);
      expect(response.statusCode).toBe(401);
      expect(json(response)).toEqual({ message: SIGN_IN_NOT_VERIFIED });
      expect(await driversWithEmail(social.email)).toBe(0);
    });

    it('refuses with 401 a token that is not a JWT', async () => {
      const response = await socialSignUp(production, uniqueEmail(), 'garbage');
      expect(response.statusCode).toBe(401);
      expect(json(response)).toEqual({ message: SIGN_IN_NOT_VERIFIED });
    });

    it('fails closed (503) rather than skip the signature check if the emulator variable appears at run time', async () => {
      // This test process has FIREBASE_AUTH_EMULATOR_HOST set (by the local server); firebase-admin
      // would then accept any signature. A token that claims RS256 must not get through.
      expect(process.env.FIREBASE_AUTH_EMULATOR_HOST).toBeTruthy();
      const social = await createSocialUser('google.com');
      const [, payload = ''] = social.idToken.split('.');
      const forged = `${Buffer.from(JSON.stringify({ alg: 'RS256', kid: 'made-up', typ: 'JWT' })).toString('base64url')}.${payload}.c2lnbmF0dXJl`;
      const response = await socialSignUp(production, social.email, forged);
      expect(response.statusCode).toBe(503);
      expect(json(response).message).toBe('Sign-in is unavailable right now. Please try again in a moment.');
      expect(await driversWithEmail(social.email)).toBe(0);
    });
  });

  it('sends email and password accounts to the email sign-up', async () => {
    const created = await createEmulatorUser();
    const response = await app.inject({ method: 'POST', url: '/auth/driverSocialSignup', payload: { email: created.email, idToken: created.idToken, ip: null } });
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('Please sign up with your email and password.');
  });
});

describe('POST /auth/sendOTP', () => {
  it('resends the email code with 201', async () => {
    const driver = await signUp(app);
    const response = await app.inject({ method: 'POST', url: '/auth/sendOTP', payload: { email: driver.email } });
    expect(response.statusCode).toBe(201);
    expect(json(response)).toEqual({ success: true, message: 'If an account uses this email, a new code is on its way.' });
    expect((await outbox(app)).filter((entry) => entry.to === driver.email)).toHaveLength(2);
  });

  it('answers an unknown email exactly like a known one, and sends nothing', async () => {
    const known = await signUp(app);
    const unknown = uniqueEmail('nobody');
    const a = await app.inject({ method: 'POST', url: '/auth/sendOTP', payload: { email: known.email } });
    const b = await app.inject({ method: 'POST', url: '/auth/sendOTP', payload: { email: unknown } });
    expect(b.statusCode).toBe(a.statusCode);
    expect(b.body).toBe(a.body);
    expect((await outbox(app)).some((entry) => entry.to === unknown)).toBe(false);
  });

  it('refuses a 6th code for one email within an hour with 429, for known and unknown emails alike', async () => {
    const driver = await signUp(app); // the sign-up sent the 1st
    for (let i = 0; i < 4; i++) expect((await app.inject({ method: 'POST', url: '/auth/sendOTP', payload: { email: driver.email } })).statusCode).toBe(201);
    const sixth = await app.inject({ method: 'POST', url: '/auth/sendOTP', payload: { email: driver.email } });
    expect(sixth.statusCode).toBe(429);
    expect(json(sixth)).toEqual({ message: 'Too many codes were requested. Please wait an hour and try again.' });

    const unknown = uniqueEmail('nobody');
    for (let i = 0; i < 5; i++) await app.inject({ method: 'POST', url: '/auth/sendOTP', payload: { email: unknown } });
    expect((await app.inject({ method: 'POST', url: '/auth/sendOTP', payload: { email: unknown } })).statusCode).toBe(429);

    server.clock.advance(61 * MINUTE);
    expect((await app.inject({ method: 'POST', url: '/auth/sendOTP', payload: { email: driver.email } })).statusCode).toBe(201);
  });

  it('asks for the email when it is missing', async () => {
    const response = await app.inject({ method: 'POST', url: '/auth/sendOTP', payload: {} });
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('Please enter your email');
  });

  it('rejects an email that is not one', async () => {
    const response = await app.inject({ method: 'POST', url: '/auth/sendOTP', payload: { email: 'nope' } });
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('Email must be valid.');
  });
});

describe('POST /auth/validateOTP', () => {
  const validate = (email: string, code: unknown) => app.inject({ method: 'POST', url: '/auth/validateOTP', payload: { code, email } });

  it('verifies the email and returns a session token', async () => {
    const driver = await signUp(app);
    const response = await validate(driver.email, await latestCode(app, driver.email));
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ success: true, token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), driverId: driver.driverId });
    expect((await driverRow(driver.driverId)).email_verified_at).toBeInstanceOf(Date);
  });

  it('stores only a hash of the session token', async () => {
    const driver = await signIn(app);
    const { rows } = await server.db.query<{ token_hash: string }>('SELECT token_hash FROM sessions WHERE driver_id = $1', [driver.driverId]);
    expect(rows[0]?.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows.some((row) => row.token_hash.includes(driver.token))).toBe(false);
  });

  it('rejects a wrong code with 400', async () => {
    const driver = await signUp(app);
    const right = await latestCode(app, driver.email);
    const response = await validate(driver.email, right === '0000' ? '1111' : '0000');
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message: WRONG_CODE });
  });

  it('refuses the 6th attempt with 429 even when the code is right, until a new code is sent', async () => {
    const driver = await signUp(app);
    const right = await latestCode(app, driver.email);
    const wrong = right === '0000' ? '1111' : '0000';
    for (let i = 0; i < 5; i++) expect((await validate(driver.email, wrong)).statusCode).toBe(400);
    const sixth = await validate(driver.email, right);
    expect(sixth.statusCode).toBe(429);
    expect(json(sixth)).toEqual({ message: 'Too many wrong codes. Please tap Resend to get a new code.' });

    await app.inject({ method: 'POST', url: '/auth/sendOTP', payload: { email: driver.email } });
    expect((await validate(driver.email, await latestCode(app, driver.email))).statusCode).toBe(200);
  });

  it('accepts a code at 9:59 minutes', async () => {
    const driver = await signUp(app);
    server.clock.advance(9 * MINUTE + 59_000);
    expect((await validate(driver.email, await latestCode(app, driver.email))).statusCode).toBe(200);
  });

  it('refuses an expired code (after 10 minutes) with 400', async () => {
    const driver = await signUp(app);
    server.clock.advance(10 * MINUTE + 1_000);
    const response = await validate(driver.email, await latestCode(app, driver.email));
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message: 'This code has expired. Please tap Resend to get a new one.' });
  });

  it('refuses a code used once already', async () => {
    const driver = await signUp(app);
    const code = await latestCode(app, driver.email);
    expect((await validate(driver.email, code)).statusCode).toBe(200);
    const replay = await validate(driver.email, code);
    expect(replay.statusCode).toBe(400);
    expect(json(replay).message).toBe('There is no code waiting for you. Please tap Resend to get a new one.');
  });

  it('refuses an email that was never sent a code like any other', async () => {
    const response = await validate(uniqueEmail('nobody'), '1234');
    expect(response.statusCode).toBe(400);
  });

  it('stores no code in clear', async () => {
    const driver = await signUp(app);
    const code = await latestCode(app, driver.email);
    const { rows } = await server.db.query<{ code_hash: string }>('SELECT code_hash FROM otp_codes WHERE destination = $1', [driver.email]);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.code_hash).not.toContain(code);
    }
  });

  it('rejects a missing code with "Please enter the 4-digit code from your email."', async () => {
    const response = await app.inject({ method: 'POST', url: '/auth/validateOTP', payload: { email: 'ada@example.com' } });
    expectFieldError(response, 'otp', 'Please enter the 4-digit code from your email.');
  });

  it('rejects a code that is not 4 digits with "The code must be exactly 4 digits."', async () => {
    expectFieldError(await validate('ada@example.com', '12a4'), 'otp', 'The code must be exactly 4 digits.');
  });

  it('rejects a number where the code must be text', async () => {
    const response = await validate('ada@example.com', 1234);
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('code must be string');
  });
});

describe('POST /auth/sendPhoneOTP', () => {
  let driver: TestDriver;
  beforeAll(async () => {
    driver = await signIn(app);
  });
  const send = (headers: Record<string, string>, phoneNo: unknown) => app.inject({ method: 'POST', url: '/auth/sendPhoneOTP', headers, payload: { phoneNo } });

  it('answers 200 to the first code and 201 to a resend', async () => {
    const first = await send(bearer(driver.token), driver.phone);
    expect(first.statusCode).toBe(200);
    expect(json(first)).toEqual({ success: true, message: 'We sent a 4-digit code to your phone.' });
    expect((await outbox(app))[0]).toMatchObject({ channel: 'sms', to: driver.phone });
    const again = await send(bearer(driver.token), driver.phone);
    expect(again.statusCode).toBe(201);
  });

  it('refuses a phone that is not the driver’s', async () => {
    const response = await send(bearer(driver.token), randomPhone());
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('This phone number does not match your account. Please sign up again.');
  });

  it('refuses a phone that is not a US number', async () => {
    const response = await send(bearer(driver.token), '2025550143');
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('Phone number must be valid.');
  });

  it('answers 401 "Token not found" without an Authorization header', async () => {
    const response = await send({}, driver.phone);
    expect(response.statusCode).toBe(401);
    expect(json(response)).toEqual({ message: 'Token not found' });
  });

  it('ignores a token cookie: without the Authorization header it is 401', async () => {
    const response = await send({ cookie: `token=${driver.token}` }, driver.phone);
    expect(response.statusCode).toBe(401);
    expect(json(response).message).toBe('Token not found');
  });

  it('answers 401 "Session expired, Please relogin" to an unknown token', async () => {
    const response = await send(bearer('A'.repeat(43)), driver.phone);
    expect(response.statusCode).toBe(401);
    expect(json(response)).toEqual({ message: 'Session expired, Please relogin' });
  });

  it('answers 401 "Session expired, Please relogin" after 24 hours', async () => {
    server.clock.advance(24 * 60 * MINUTE + MINUTE);
    const response = await send(bearer(driver.token), driver.phone);
    expect(response.statusCode).toBe(401);
    expect(json(response).message).toBe('Session expired, Please relogin');
  });
});

describe('POST /auth/validatePhoneOTP', () => {
  const validate = (driver: TestDriver, code: unknown, phoneNo: unknown = driver.phone) =>
    app.inject({ method: 'POST', url: '/auth/validatePhoneOTP', headers: bearer(driver.token), payload: { code, phoneNo } });
  const sendCode = (driver: TestDriver) =>
    app.inject({ method: 'POST', url: '/auth/sendPhoneOTP', headers: bearer(driver.token), payload: { phoneNo: driver.phone } });

  it('verifies the phone', async () => {
    const driver = await signIn(app);
    await sendCode(driver);
    const response = await validate(driver, await latestCode(app, driver.phone));
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ success: true, message: 'Your phone number is verified.' });
    expect((await driverRow(driver.driverId)).phone_verified_at).toBeInstanceOf(Date);
  });

  it('rejects a wrong code with 400', async () => {
    const driver = await signIn(app);
    await sendCode(driver);
    const right = await latestCode(app, driver.phone);
    const response = await validate(driver, right === '0000' ? '1111' : '0000');
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe(WRONG_CODE);
  });

  it('does not let one driver use another driver’s code', async () => {
    const a = await signIn(app);
    const b = await signIn(app);
    await sendCode(a);
    await sendCode(b);
    const codeOfA = await latestCode(app, a.phone);
    // B sends A's phone: refused, as the phone is not B's.
    expect((await validate(b, codeOfA, a.phone)).statusCode).toBe(400);
  });

  it('rejects a missing code with "Please enter the 4-digit code from your text message."', async () => {
    const driver = await signIn(app);
    const response = await app.inject({ method: 'POST', url: '/auth/validatePhoneOTP', headers: bearer(driver.token), payload: { phoneNo: driver.phone } });
    expectFieldError(response, 'otp', 'Please enter the 4-digit code from your text message.');
  });

  it('rejects a code that is not 4 digits with "The code must be exactly 4 digits."', async () => {
    const driver = await signIn(app);
    expectFieldError(await validate(driver, '12345'), 'otp', 'The code must be exactly 4 digits.');
  });

  it('answers 401 without a token', async () => {
    const response = await app.inject({ method: 'POST', url: '/auth/validatePhoneOTP', payload: { code: '1234', phoneNo: '+12025550143' } });
    expect(response.statusCode).toBe(401);
    expect(json(response).message).toBe('Token not found');
  });
});
