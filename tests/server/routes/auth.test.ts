import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createEmulatorUser, createSocialUser, resetPasswordInEmulator, signInEmulatorUser, uniqueEmail, withClaims } from '../../support/identity.js';
import {
  bearer,
  json,
  latestCode,
  outbox,
  randomPhone,
  verifiedDriver,
  signUp,
  signUpPayload,
  startTestServer,
  statusData,
  validateEmailCode,
  verifyPhone,
  type TestDriver,
  type TestServer,
} from '../../support/server.js';

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

const driverRow = async (driverId: string) => (await server.db.query<Record<string, unknown>>('SELECT * FROM drivers WHERE id = $1', [driverId])).rows[0]!;

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
    expect(body).toEqual({
      success: true,
      message: 'We sent a 4-digit code to your email.',
      driverId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      // The sign-up token: only this sign-up may check (and resend) its code.
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    const row = await driverRow(String(body.driverId));
    expect(row).toMatchObject({
      email: created.email,
      firebase_uid: created.uid,
      provider: 'password',
      phone,
      referral_code: '1234',
      signup_ip: '203.0.113.7',
      status: 'pending',
    });
    expect(row.terms_accepted_at).toBeInstanceOf(Date);
    expect(row.sms_consent_at).toBeInstanceOf(Date);
    expect(row.email_verified_at).toBeNull();
    expect((await outbox(app))[0]).toMatchObject({ channel: 'email', to: created.email, code: expect.stringMatching(/^\d{4}$/) });
  });

  it('lower-cases the email before comparing it with the signed-in account', async () => {
    const created = await createEmulatorUser();
    const response = await app.inject({
      method: 'POST',
      url: '/auth/driverEmailSignUp',
      payload: signUpPayload(created, randomPhone(), { email: created.email.toUpperCase() }),
    });
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
    const again_ = { ...first, signUpToken: String(json(again).token) };
    if (newCode !== oldCode) {
      const replay = await validateEmailCode(app, again_, oldCode);
      expect(replay.statusCode).toBe(400);
    }
    const ok = await validateEmailCode(app, again_, newCode);
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
    const response = await app.inject({
      method: 'POST',
      url: '/auth/driverEmailSignUp',
      payload: signUpPayload(created, randomPhone(), { email: uniqueEmail() }),
    });
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
    const response = await app.inject({
      method: 'POST',
      url: '/auth/driverEmailSignUp',
      payload: signUpPayload({ ...created, idToken: foreign }, randomPhone()),
    });
    expect(response.statusCode).toBe(401);
    expect(json(response).message).toBe(SIGN_IN_NOT_VERIFIED);
  });

  it('refuses with 401 an expired ID token', async () => {
    const created = await createEmulatorUser();
    const past = Math.floor(Date.now() / 1000) - 7200;
    const expired = withClaims(created.idToken, { iat: past, auth_time: past, exp: past + 3600 });
    const response = await app.inject({
      method: 'POST',
      url: '/auth/driverEmailSignUp',
      payload: signUpPayload({ ...created, idToken: expired }, randomPhone()),
    });
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
    const response = await app.inject({
      method: 'POST',
      url: '/auth/driverEmailSignUp',
      headers: { 'content-type': 'application/json' },
      payload: '{"email": ',
    });
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
    const response = await app.inject({
      method: 'POST',
      url: '/auth/driverSocialSignup',
      payload: { email: social.email, idToken: social.idToken, ip: '203.0.113.9' },
    });
    expect(response.statusCode).toBe(200);
    const body = json(response);
    expect(body).toEqual({
      success: true,
      token: expect.any(String),
      driverId: expect.any(String),
      email: social.email,
      phone: null,
      data: statusData({ status: 'pending', isSessionComplete: false, isPhoneVerified: false, isProfileComplete: false, isSocial: true }),
    });
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

  describe('when the provider did not verify the email (Facebook never does)', () => {
    const statusWith = (driverId: unknown, token: unknown) =>
      app.inject({ method: 'GET', url: `/driver/status/${String(driverId)}`, headers: bearer(String(token)) });
    const sendCode = (token: unknown, email: string) =>
      app.inject({ method: 'POST', url: '/auth/sendOTP', headers: bearer(String(token)), payload: { email } });
    const checkCode = (token: unknown, email: string, code: string) =>
      app.inject({ method: 'POST', url: '/auth/validateOTP', headers: bearer(String(token)), payload: { email, code } });

    it.each(['facebook.com', 'google.com'])('%s: sends an email code and answers a sign-up token; the verified code answers the session', async (provider) => {
      const social = await createSocialUser(provider, uniqueEmail('unverified'), { emailVerified: false });
      const response = await socialSignUp(app, social.email, social.idToken);
      expect(response.statusCode).toBe(200);
      const body = json(response);
      expect(body).toMatchObject({ success: true, email: social.email, data: { isEmailVerified: false, isSocial: true } });
      expect((await driverRow(String(body.driverId))).email_verified_at).toBeNull();
      // The sign-up token is good for the email code only, not for the driver's steps.
      expect((await statusWith(body.driverId, body.token)).statusCode).toBe(401);
      const code = await latestCode(app, social.email);

      // Resend with the sign-up token; the first code is replaced by the new one.
      expect((await sendCode(body.token, social.email)).statusCode).toBe(201);
      const newCode = await latestCode(app, social.email);
      const verified = await checkCode(body.token, social.email, newCode);
      expect(verified.statusCode).toBe(200);
      const session = json(verified);
      // With the status, by which the flow goes on to the social profile.
      expect(session).toMatchObject({ success: true, token: expect.any(String), driverId: body.driverId, data: { isEmailVerified: true, isSocial: true } });
      expect((await driverRow(String(body.driverId))).email_verified_at).toBeInstanceOf(Date);
      const status = await statusWith(body.driverId, session.token);
      expect(status.statusCode).toBe(200);
      expect(json(status).data).toMatchObject({ isEmailVerified: true, isSocial: true, status: 'pending' });
      // The spent sign-up token and the replaced code check nothing any more.
      expect((await checkCode(body.token, social.email, code)).statusCode).toBe(401);
    });

    it('signing in again before the code is verified sends a new code and answers a sign-up token again', async () => {
      const social = await createSocialUser('facebook.com', uniqueEmail('unverified'), { emailVerified: false });
      const first = json(await socialSignUp(app, social.email, social.idToken));
      const again = json(await socialSignUp(app, social.email, social.idToken));
      expect(again.driverId).toBe(first.driverId);
      expect((await outbox(app)).filter((entry) => entry.to === social.email)).toHaveLength(2);
      expect((await statusWith(again.driverId, again.token)).statusCode).toBe(401);
      expect((await checkCode(again.token, social.email, await latestCode(app, social.email))).statusCode).toBe(200);
      // Once verified, a sign-in is a session at once, and no code is sent.
      const later = json(await socialSignUp(app, social.email, social.idToken));
      expect((await statusWith(later.driverId, later.token)).statusCode).toBe(200);
      expect((await outbox(app)).filter((entry) => entry.to === social.email)).toHaveLength(2);
    });

    it('a code checks only the sign-up token of that driver, never another driver’s email', async () => {
      const victim = await createSocialUser('facebook.com', uniqueEmail('victim'), { emailVerified: false });
      const attacker = await createSocialUser('facebook.com', uniqueEmail('attacker'), { emailVerified: false });
      json(await socialSignUp(app, victim.email, victim.idToken));
      const attackerBody = json(await socialSignUp(app, attacker.email, attacker.idToken));
      const victimCode = await latestCode(app, victim.email);
      const response = await checkCode(attackerBody.token, victim.email, victimCode);
      expect(response.statusCode).toBe(403);
      expect(json(response)).toEqual({ message: 'This email is not the one you signed up with. Please sign up again.' });
    });
  });

  it('sends email and password accounts to the email sign-up', async () => {
    const created = await createEmulatorUser();
    const response = await app.inject({
      method: 'POST',
      url: '/auth/driverSocialSignup',
      payload: { email: created.email, idToken: created.idToken, ip: null },
    });
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('Please sign up with your email and password.');
  });
});

describe('POST /auth/sendOTP', () => {
  const resend = (driver: TestDriver, email = driver.email, token = driver.signUpToken) =>
    app.inject({ method: 'POST', url: '/auth/sendOTP', headers: token ? bearer(token) : {}, payload: { email } });

  it('resends the email code with 201, to the sign-up that asks with its sign-up token', async () => {
    const driver = await signUp(app);
    const response = await resend(driver);
    expect(response.statusCode).toBe(201);
    expect(json(response)).toEqual({ success: true, message: 'We sent a new 4-digit code to your email.' });
    expect((await outbox(app)).filter((entry) => entry.to === driver.email)).toHaveLength(2);
  });

  it('sends nothing to an email for anyone without that sign-up’s token: no token, a session, another sign-up’s token', async () => {
    const victim = await verifiedDriver(app);
    const attacker = await signUp(app);
    const before = (await outbox(app)).filter((entry) => entry.to === victim.email).length;
    const noToken = await resend(victim, victim.email, '');
    expect(noToken.statusCode).toBe(401);
    const session = await resend(victim, victim.email, victim.token);
    expect(session.statusCode).toBe(401);
    expect(json(session)).toEqual({ message: 'Session expired, Please relogin', reason: 'signInAgain' });
    const otherSignUp = await resend(attacker, victim.email);
    expect(otherSignUp.statusCode).toBe(403);
    expect(json(otherSignUp)).toEqual({ message: 'This email is not the one you signed up with. Please sign up again.' });
    expect((await outbox(app)).filter((entry) => entry.to === victim.email)).toHaveLength(before);
  });

  it('refuses a 6th code for one sign-up within an hour with 429', async () => {
    const driver = await signUp(app); // the sign-up sent the 1st
    for (let i = 0; i < 4; i++) expect((await resend(driver)).statusCode).toBe(201);
    const sixth = await resend(driver);
    expect(sixth.statusCode).toBe(429);
    expect(json(sixth)).toEqual({ message: 'Too many codes were requested. Please wait an hour and try again.' });
    server.clock.advance(61 * MINUTE);
    // The sign-up token lives an hour too: a new sign-up asks again.
    const again = await app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', payload: signUpPayload(driver.user, driver.phone) });
    expect(again.statusCode).toBe(200);
    expect((await resend({ ...driver, signUpToken: String(json(again).token) })).statusCode).toBe(201);
  });

  it('asks for the email when it is missing', async () => {
    const driver = await signUp(app);
    const response = await app.inject({ method: 'POST', url: '/auth/sendOTP', headers: bearer(driver.signUpToken), payload: {} });
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('Please enter your email');
  });

  it('rejects an email that is not one', async () => {
    const driver = await signUp(app);
    const response = await resend(driver, 'nope');
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('Email must be valid.');
  });
});

describe('POST /auth/validateOTP', () => {
  const validate = (driver: TestDriver, code: unknown, email = driver.email) => validateEmailCode(app, driver, code as string, email);

  it('verifies the email and returns a session token, and the sign-up token is spent', async () => {
    const driver = await signUp(app);
    const response = await validate(driver, await latestCode(app, driver.email));
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({
      success: true,
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      driverId: driver.driverId,
      email: driver.email,
      phone: driver.phone,
      data: statusData({ status: 'pending', isSessionComplete: false, isPhoneVerified: false, isProfileComplete: false }),
    });
    expect((await driverRow(driver.driverId)).email_verified_at).toBeInstanceOf(Date);
    const again = await app.inject({ method: 'POST', url: '/auth/sendOTP', headers: bearer(driver.signUpToken), payload: { email: driver.email } });
    expect(again.statusCode).toBe(401);
  });

  it('stores only a hash of the session token', async () => {
    const driver = await verifiedDriver(app);
    const { rows } = await server.db.query<{ token_hash: string }>('SELECT token_hash FROM sessions WHERE driver_id = $1', [driver.driverId]);
    expect(rows[0]?.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows.some((row) => row.token_hash.includes(driver.token))).toBe(false);
  });

  it('rejects a wrong code with 400', async () => {
    const driver = await signUp(app);
    const right = await latestCode(app, driver.email);
    const response = await validate(driver, right === '0000' ? '1111' : '0000');
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message: WRONG_CODE });
  });

  it('refuses the 6th attempt with 429 even when the code is right, until a new code is sent', async () => {
    const driver = await signUp(app);
    const right = await latestCode(app, driver.email);
    const wrong = right === '0000' ? '1111' : '0000';
    for (let i = 0; i < 5; i++) expect((await validate(driver, wrong)).statusCode).toBe(400);
    const sixth = await validate(driver, right);
    expect(sixth.statusCode).toBe(429);
    expect(json(sixth)).toEqual({ message: 'Too many wrong codes. Please tap Resend to get a new code.' });

    await app.inject({ method: 'POST', url: '/auth/sendOTP', headers: bearer(driver.signUpToken), payload: { email: driver.email } });
    expect((await validate(driver, await latestCode(app, driver.email))).statusCode).toBe(200);
  });

  it('accepts a code at 9:59 minutes', async () => {
    const driver = await signUp(app);
    server.clock.advance(9 * MINUTE + 59_000);
    expect((await validate(driver, await latestCode(app, driver.email))).statusCode).toBe(200);
  });

  it('refuses an expired code (after 10 minutes) with 400', async () => {
    const driver = await signUp(app);
    server.clock.advance(10 * MINUTE + 1_000);
    const response = await validate(driver, await latestCode(app, driver.email));
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message: 'This code has expired. Please tap Resend to get a new one.' });
  });

  it('refuses a code used once already', async () => {
    const driver = await signUp(app);
    const code = await latestCode(app, driver.email);
    expect((await validate(driver, code)).statusCode).toBe(200);
    const replay = await validate(driver, code);
    // The sign-up token went with the first use: nothing can check a code of this email any more.
    expect(replay.statusCode).toBe(401);
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
    const driver = await signUp(app);
    const response = await app.inject({ method: 'POST', url: '/auth/validateOTP', headers: bearer(driver.signUpToken), payload: { email: driver.email } });
    expectFieldError(response, 'otp', 'Please enter the 4-digit code from your email.');
  });

  it('rejects a code that is not 4 digits with "The code must be exactly 4 digits."', async () => {
    const driver = await signUp(app);
    expectFieldError(await validate(driver, '12a4'), 'otp', 'The code must be exactly 4 digits.');
  });

  it('rejects a number where the code must be text', async () => {
    const driver = await signUp(app);
    const response = await validate(driver, 1234);
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('code must be string');
  });
});

describe('a code proves an address; it never signs anyone in', () => {
  it('gives nobody a session for a verified driver’s email: no code is sent, none is checked', async () => {
    const victim = await verifiedDriver(app);
    const attacker = await signUp(app);
    // The attacker's own sign-up token, with the victim's email: refused before any code is looked at.
    for (const code of ['0000', '1234', '9999']) {
      const response = await validateEmailCode(app, attacker, code, victim.email);
      expect(response.statusCode).toBe(403);
      expect(json(response)).not.toHaveProperty('token');
    }
    // The victim's account signing up again (its password known) takes no code either.
    const again = await app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', payload: signUpPayload(victim.user, victim.phone) });
    expect(again.statusCode).toBe(409);
    expect(json(again)).toEqual({ message: 'Your email is already verified. Please sign in.' });
    expect(json(again)).not.toHaveProperty('token');
    // And the victim's session (not a sign-up token) checks nothing.
    const withSession = await app.inject({
      method: 'POST',
      url: '/auth/validateOTP',
      headers: bearer(victim.token),
      payload: { code: '1234', email: victim.email },
    });
    expect(withSession.statusCode).toBe(401);
  });

  it('cannot replace the payout account with anything a code gave', async () => {
    // The whole chain of the old attack: codes for an existing driver never reach a session.
    const victim = await verifiedDriver(app);
    const tries = [
      await app.inject({ method: 'POST', url: '/auth/sendOTP', payload: { email: victim.email } }),
      await app.inject({ method: 'POST', url: '/auth/validateOTP', payload: { code: '1234', email: victim.email } }),
    ];
    for (const response of tries) expect(response.statusCode).toBe(401);
  });
});

describe('locking codes after repeated wrong ones', () => {
  const LOCKED = { message: 'Too many wrong codes. For your security, code verification is locked for 24 hours.' };
  const wrongFor = (right: string) => (right === '0000' ? '1111' : '0000');

  it('locks an account’s email code for 24 hours after 20 consecutive wrong codes, right code or not', async () => {
    const driver = await signUp(app);
    const resend = () => app.inject({ method: 'POST', url: '/auth/sendOTP', headers: bearer(driver.signUpToken), payload: { email: driver.email } });
    for (let code = 0; code < 4; code++) {
      if (code > 0) expect((await resend()).statusCode).toBe(201);
      const right = await latestCode(app, driver.email);
      for (let i = 0; i < 5; i++) expect((await validateEmailCode(app, driver, wrongFor(right))).statusCode).toBe(400);
    }
    const locked = await validateEmailCode(app, driver, await latestCode(app, driver.email));
    expect(locked.statusCode).toBe(429);
    expect(json(locked)).toEqual(LOCKED);
    expect(json(await resend())).toEqual(LOCKED);
    // A day later the sign-up starts again and its code works.
    server.clock.advance(24 * 60 * MINUTE + MINUTE);
    const again = await app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', payload: signUpPayload(driver.user, driver.phone) });
    expect(again.statusCode).toBe(200);
    const fresh = { ...driver, signUpToken: String(json(again).token) };
    expect((await validateEmailCode(app, fresh, await latestCode(app, driver.email))).statusCode).toBe(200);
  });

  it('locks a phone number after 20 consecutive wrong codes, whichever accounts they came from', async () => {
    const phone = randomPhone();
    const a = await verifiedDriverWithPhone(phone);
    const b = await verifiedDriverWithPhone(phone);
    const send = (driver: TestDriver) => app.inject({ method: 'POST', url: '/auth/sendPhoneOTP', headers: bearer(driver.token), payload: { phoneNo: phone } });
    const check = (driver: TestDriver, code: string) =>
      app.inject({ method: 'POST', url: '/auth/validatePhoneOTP', headers: bearer(driver.token), payload: { code, phoneNo: phone } });
    // Ten wrong codes from each account: neither account reached 20, the phone did.
    for (const driver of [a, b]) {
      for (let round = 0; round < 2; round++) {
        expect((await send(driver)).statusCode).toBeLessThan(300);
        const right = await latestCode(app, phone);
        for (let i = 0; i < 5; i++) expect((await check(driver, wrongFor(right))).statusCode).toBe(400);
      }
    }
    expect(json(await send(a))).toEqual(LOCKED);
    expect(json(await check(b, '1234'))).toEqual(LOCKED);
  });

  it('counts consecutive failures only: a right code starts again from zero', async () => {
    const driver = await verifiedDriver(app);
    const send = () => app.inject({ method: 'POST', url: '/auth/sendPhoneOTP', headers: bearer(driver.token), payload: { phoneNo: driver.phone } });
    const check = (code: string) =>
      app.inject({ method: 'POST', url: '/auth/validatePhoneOTP', headers: bearer(driver.token), payload: { code, phoneNo: driver.phone } });
    for (let round = 0; round < 5; round++) {
      await send();
      const right = await latestCode(app, driver.phone);
      for (let i = 0; i < 4; i++) expect((await check(wrongFor(right))).statusCode).toBe(400);
      expect((await check(right)).statusCode).toBe(200);
      server.clock.advance(13 * MINUTE); // keeps the sends under 5 an hour
    }
    const { rows } = await server.db.query('SELECT 1 FROM code_lockouts WHERE subject LIKE $1', [`driver:${driver.driverId}:%`]);
    expect(rows).toEqual([]);
  });

  /** A driver with a session whose stored (unverified) phone is `phone`. */
  async function verifiedDriverWithPhone(phone: string): Promise<TestDriver> {
    const driver = await signUp(app, { phoneNo: phone });
    const response = await validateEmailCode(app, driver, await latestCode(app, driver.email));
    return { ...driver, token: String(json(response).token) };
  }
});

describe('one verified phone per account', () => {
  it('refuses a second account’s sign-up with a phone another account verified (409), and sends it nothing', async () => {
    const owner = await verifiedDriver(app);
    await verifyPhone(app, owner);
    const before = (await outbox(app)).filter((entry) => entry.to === owner.phone).length;
    const created = await createEmulatorUser();
    const response = await app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', payload: signUpPayload(created, owner.phone) });
    expect(response.statusCode).toBe(409);
    expect(json(response)).toEqual({ message: 'This phone number is already verified on another account. Please use another number.' });
    expect((await outbox(app)).filter((entry) => entry.to === owner.phone)).toHaveLength(before);
  });

  it('refuses the code of a second account that had entered the phone before the first verified it (409)', async () => {
    const phone = randomPhone();
    const first = await signUp(app, { phoneNo: phone });
    const second = await signUp(app, { phoneNo: phone });
    const sessions = await Promise.all(
      [first, second].map(async (driver) => ({
        ...driver,
        token: String(json(await validateEmailCode(app, driver, await latestCode(app, driver.email))).token),
      })),
    );
    const [a, b] = sessions as [TestDriver, TestDriver];
    await app.inject({ method: 'POST', url: '/auth/sendPhoneOTP', headers: bearer(a.token), payload: { phoneNo: phone } });
    const codeForA = await latestCode(app, phone);
    await app.inject({ method: 'POST', url: '/auth/sendPhoneOTP', headers: bearer(b.token), payload: { phoneNo: phone } });
    const codeForB = await latestCode(app, phone);
    // B's code did not cancel A's: each account's code stands on its own.
    const okA = await app.inject({ method: 'POST', url: '/auth/validatePhoneOTP', headers: bearer(a.token), payload: { code: codeForA, phoneNo: phone } });
    expect(okA.statusCode).toBe(200);
    const lateB = await app.inject({ method: 'POST', url: '/auth/validatePhoneOTP', headers: bearer(b.token), payload: { code: codeForB, phoneNo: phone } });
    expect(lateB.statusCode).toBe(409);
    expect(json(lateB).message).toBe('This phone number is already verified on another account. Please use another number.');
    const sendB = await app.inject({ method: 'POST', url: '/auth/sendPhoneOTP', headers: bearer(b.token), payload: { phoneNo: phone } });
    expect(sendB.statusCode).toBe(409);
  });

  it('counts one account’s sends on its own: another account can’t use them up', async () => {
    const phone = randomPhone();
    const [a, b] = await Promise.all([signUp(app, { phoneNo: phone }), signUp(app, { phoneNo: phone })]);
    const sessionOf = async (driver: TestDriver) => ({
      ...driver,
      token: String(json(await validateEmailCode(app, driver, await latestCode(app, driver.email))).token),
    });
    const [sa, sb] = [await sessionOf(a!), await sessionOf(b!)];
    const send = (driver: TestDriver) => app.inject({ method: 'POST', url: '/auth/sendPhoneOTP', headers: bearer(driver.token), payload: { phoneNo: phone } });
    for (let i = 0; i < 5; i++) expect((await send(sb)).statusCode).toBeLessThan(300);
    expect((await send(sb)).statusCode).toBe(429);
    expect((await send(sa)).statusCode).toBe(200);
  });
});

describe('POST /auth/signIn (a returning driver)', () => {
  const signInWith = (idToken: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: '/auth/signIn', headers, payload: { idToken } });

  it('exchanges a fresh ID token for a session and says where the driver stands', async () => {
    const driver = await verifiedDriver(app);
    await verifyPhone(app, driver);
    const response = await signInWith(await signInEmulatorUser(driver.email));
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({
      success: true,
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      driverId: driver.driverId,
      email: driver.email,
      phone: driver.phone,
      data: statusData({ status: 'pending', isSessionComplete: false, isProfileComplete: false }),
    });
    const token = String(json(response).token);
    expect((await app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(token) })).statusCode).toBe(200);
  });

  it('sends a sign-up that never verified its email back to its code, with a sign-up token only', async () => {
    const driver = await signUp(app);
    const response = await signInWith(await signInEmulatorUser(driver.email));
    expect(response.statusCode).toBe(200);
    const body = json<{ token: string; data: Record<string, unknown> }>(response);
    expect(body.data).toMatchObject({ isEmailVerified: false });
    // Not a session: the driver routes refuse it, the email code takes it.
    expect((await app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(body.token) })).statusCode).toBe(401);
    const verified = await validateEmailCode(app, { ...driver, signUpToken: body.token }, await latestCode(app, driver.email));
    expect(verified.statusCode).toBe(200);
  });

  it('answers 404 to an account with no driver yet', async () => {
    const created = await createEmulatorUser();
    const response = await signInWith(created.idToken);
    expect(response.statusCode).toBe(404);
    expect(json(response)).toEqual({ message: 'There is no driver account for this sign-in yet. Please sign up first.' });
  });

  it.each([
    ['not a token', () => 'garbage'],
    ['an expired token', (token: string) => withClaims(token, { exp: Math.floor(Date.now() / 1000) - 10 })],
    ['another project’s token', (token: string) => withClaims(token, { aud: 'other-project', iss: 'https://securetoken.google.com/other-project' })],
  ])('refuses %s with 401', async (_name, change) => {
    const driver = await verifiedDriver(app);
    const response = await signInWith(change(await signInEmulatorUser(driver.email)));
    expect(response.statusCode).toBe(401);
    expect(json(response)).toEqual({ message: SIGN_IN_NOT_VERIFIED });
  });

  it('ends the session the browser sent along, and every session older than a new password', async () => {
    const driver = await verifiedDriver(app);
    const other = json<{ token: string }>(await signInWith(await signInEmulatorUser(driver.email))).token;
    const replaced = json<{ token: string }>(await signInWith(await signInEmulatorUser(driver.email), bearer(other))).token;
    const status = (token: string) => app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(token) });
    expect((await status(other)).statusCode).toBe(401);
    expect((await status(replaced)).statusCode).toBe(200);
    expect((await status(driver.token)).statusCode).toBe(200);

    // A new password (Firebase's reset email), then a sign-in with it: the sessions from before end.
    await new Promise((resolve) => setTimeout(resolve, 1100)); // Firebase counts "valid since" in whole seconds
    await resetPasswordInEmulator(driver.email, 'N3w!Passw0rd');
    const after = await signInWith(await signInEmulatorUser(driver.email, 'N3w!Passw0rd'));
    expect(after.statusCode).toBe(200);
    expect((await status(replaced)).statusCode).toBe(401);
    expect((await status(driver.token)).statusCode).toBe(401);
    expect((await status(json<{ token: string }>(after).token)).statusCode).toBe(200);
  });
});

describe('sessions that end', () => {
  const status = (driver: TestDriver, token = driver.token) => app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(token) });

  it('end within a minute of a new password set through Firebase’s reset email, with no new sign-in, on every instance', async () => {
    const driver = await verifiedDriver(app);
    const another = await server.buildAnother();
    // Two live sessions from before the reset: the sign-up's, and a sign-in's on another device.
    const phone = driver.token;
    const laptop = json<{ token: string }>(
      await app.inject({ method: 'POST', url: '/auth/signIn', payload: { idToken: await signInEmulatorUser(driver.email) } }),
    ).token;
    const statusOn = (target: FastifyInstance, token: string) =>
      target.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(token) });
    expect((await status(driver, phone)).statusCode).toBe(200);
    expect((await statusOn(another, laptop)).statusCode).toBe(200);

    await new Promise((resolve) => setTimeout(resolve, 1100)); // Firebase counts "valid since" in whole seconds
    await resetPasswordInEmulator(driver.email, 'N3w!Passw0rd');
    // Firebase is asked again at most every VALID_SINCE_TTL_MS (30 s) per user: a poll every 5 s does not wait on it.
    server.clock.advance(30_001);
    const ended = await status(driver, phone);
    expect(ended.statusCode).toBe(401);
    expect(json(ended)).toEqual({ message: 'Session expired, Please relogin', reason: 'signInAgain' });
    expect((await statusOn(another, laptop)).statusCode).toBe(401);
    // Gone from the database, not just refused.
    expect((await server.db.query('SELECT 1 FROM sessions WHERE driver_id = $1', [driver.driverId])).rows).toEqual([]);
    // A sign-in with the new password is a session that lives.
    const fresh = json<{ token: string }>(
      await app.inject({ method: 'POST', url: '/auth/signIn', payload: { idToken: await signInEmulatorUser(driver.email, 'N3w!Passw0rd') } }),
    ).token;
    expect((await status(driver, fresh)).statusCode).toBe(200);
  });

  it('asks Firebase for a user’s “valid since” at most once per 30 s, whatever the number of requests', async () => {
    const driver = await verifiedDriver(app);
    const asked: string[] = [];
    const original = app.identity.tokensValidSince;
    app.identity.tokensValidSince = (uid) => {
      asked.push(uid);
      return original(uid);
    };
    try {
      await Promise.all(Array.from({ length: 5 }, () => status(driver)));
      for (let i = 0; i < 5; i++) expect((await status(driver)).statusCode).toBe(200);
      expect(asked.length).toBeLessThanOrEqual(1);
      server.clock.advance(30_001);
      expect((await status(driver)).statusCode).toBe(200);
      expect(asked.length).toBeLessThanOrEqual(2);
      expect(asked.length).toBeGreaterThanOrEqual(1);
    } finally {
      app.identity.tokensValidSince = original;
    }
  });

  it('keeps working when Firebase can’t be reached: the last time known is used', async () => {
    const driver = await verifiedDriver(app);
    expect((await status(driver)).statusCode).toBe(200);
    const original = app.identity.tokensValidSince;
    app.identity.tokensValidSince = () => Promise.reject(app.httpErrors.serviceUnavailable('unreachable'));
    try {
      server.clock.advance(30_001);
      expect((await status(driver)).statusCode).toBe(200);
    } finally {
      app.identity.tokensValidSince = original;
    }
  });

  it('ends with POST /auth/signOut, on this server and every other', async () => {
    const driver = await verifiedDriver(app);
    const another = await server.buildAnother();
    expect((await another.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(driver.token) })).statusCode).toBe(200);
    const out = await app.inject({ method: 'POST', url: '/auth/signOut', headers: bearer(driver.token), payload: {} });
    expect(out.statusCode).toBe(200);
    expect(json(out)).toEqual({ success: true, message: 'You are signed out.' });
    expect((await status(driver)).statusCode).toBe(401);
    expect((await another.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(driver.token) })).statusCode).toBe(401);
  });

  it('expires after 30 idle minutes, and not while it is used', async () => {
    const driver = await verifiedDriver(app);
    for (let i = 0; i < 4; i++) {
      server.clock.advance(20 * MINUTE);
      expect((await status(driver)).statusCode).toBe(200);
    }
    server.clock.advance(31 * MINUTE);
    const idle = await status(driver);
    expect(idle.statusCode).toBe(401);
    expect(json(idle)).toEqual({ message: 'Session expired, Please relogin', reason: 'signInAgain' });
  });
});

describe('POST /auth/sendPhoneOTP', () => {
  let driver: TestDriver;
  beforeAll(async () => {
    driver = await verifiedDriver(app);
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
    expect(json(response)).toEqual({ message: 'Token not found', reason: 'signInAgain' });
  });

  it('ignores a token cookie: without the Authorization header it is 401', async () => {
    const response = await send({ cookie: `token=${driver.token}` }, driver.phone);
    expect(response.statusCode).toBe(401);
    expect(json(response).message).toBe('Token not found');
  });

  it('answers 401 "Session expired, Please relogin" to an unknown token', async () => {
    const response = await send(bearer('A'.repeat(43)), driver.phone);
    expect(response.statusCode).toBe(401);
    expect(json(response)).toEqual({ message: 'Session expired, Please relogin', reason: 'signInAgain' });
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
    const driver = await verifiedDriver(app);
    await sendCode(driver);
    const response = await validate(driver, await latestCode(app, driver.phone));
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ success: true, message: 'Your phone number is verified.' });
    expect((await driverRow(driver.driverId)).phone_verified_at).toBeInstanceOf(Date);
  });

  it('rejects a wrong code with 400', async () => {
    const driver = await verifiedDriver(app);
    await sendCode(driver);
    const right = await latestCode(app, driver.phone);
    const response = await validate(driver, right === '0000' ? '1111' : '0000');
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe(WRONG_CODE);
  });

  it('does not let one driver use another driver’s code', async () => {
    const a = await verifiedDriver(app);
    const b = await verifiedDriver(app);
    await sendCode(a);
    await sendCode(b);
    const codeOfA = await latestCode(app, a.phone);
    // B sends A's phone: refused, as the phone is not B's.
    expect((await validate(b, codeOfA, a.phone)).statusCode).toBe(400);
  });

  it('rejects a missing code with "Please enter the 4-digit code from your text message."', async () => {
    const driver = await verifiedDriver(app);
    const response = await app.inject({ method: 'POST', url: '/auth/validatePhoneOTP', headers: bearer(driver.token), payload: { phoneNo: driver.phone } });
    expectFieldError(response, 'otp', 'Please enter the 4-digit code from your text message.');
  });

  it('rejects a code that is not 4 digits with "The code must be exactly 4 digits."', async () => {
    const driver = await verifiedDriver(app);
    expectFieldError(await validate(driver, '12345'), 'otp', 'The code must be exactly 4 digits.');
  });

  it('answers 401 without a token', async () => {
    const response = await app.inject({ method: 'POST', url: '/auth/validatePhoneOTP', payload: { code: '1234', phoneNo: '+12025550143' } });
    expect(response.statusCode).toBe(401);
    expect(json(response).message).toBe('Token not found');
  });
});
