// Integrations and launch links: an owner's integration and its keys, a launch link made with a key
// (its return URL on the owner's list, or refused), opened once within 15 minutes, the driver it
// fills the sign-up for bound to the integration's external id, the integration's status read, and
// the signed result the finished driver carries back. A driver with an account is bound only once
// they sign in: opening a link proves nothing of an account.
import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAUNCH_LINK_LIFETIME_MS } from '../../../src/server/routes/integrations.js';
import type { IntegrationList, LaunchOpened, LaunchReturn } from '../../../src/shared/review.js';
import { createEmulatorUser } from '../../support/identity.js';
import {
  bankValues,
  bearer,
  decide,
  integration,
  json,
  latestCode,
  paySubscription,
  post,
  randomPhone,
  sendVehicle,
  signUpPayload,
  staffKey,
  startTestServer,
  verifiedDriver,
  type TestDriver,
  type TestIntegration,
  type TestServer,
} from '../../support/server.js';
import { expectStaffMessagesFromFiles } from '../../support/staffMessages.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());
expectStaffMessagesFromFiles(() => server);

const app = () => server.app;
const call = (method: 'GET' | 'POST', url: string, token?: string, payload?: unknown) =>
  app().inject({ method, url, headers: token ? bearer(token) : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

const RETURN_URL = 'https://partner.example/onramp/done';
const linkBody = (overrides: Record<string, unknown> = {}) => ({
  email: `launch-${randomUUID()}@example.com`,
  phone: '+12025550143',
  externalId: `partner-${randomUUID()}`,
  returnUrl: `${RETURN_URL}?session=42`,
  ...overrides,
});

/** A launch link made with `partner`'s key, and its token (the URL's fragment). */
async function launchLink(partner: TestIntegration, body: Record<string, unknown> = linkBody()) {
  const response = await call('POST', '/integration/launch-links', partner.key, body);
  expect(response.statusCode, response.body).toBe(200);
  const { url, expiresAt } = json<{ url: string; expiresAt: string }>(response);
  return { url, expiresAt, token: new URL(url).hash.slice(1) };
}

const open = (token: string) => call('POST', '/integration/launch', undefined, { token });
/** The cookie an opened link's answer leaves in the browser that opened it, as that browser sends it back. */
const launchCookieOf = (opened: { headers: Record<string, unknown> }) => String(opened.headers['set-cookie']).split(';')[0]!;
/** The driver signing in, as the sign-in page does with their Firebase ID token, from a browser holding `cookie` (or none). */
const signIn = (driver: TestDriver, cookie?: string) =>
  app().inject({ method: 'POST', url: '/auth/signIn', headers: cookie ? { cookie } : {}, payload: { idToken: driver.user.idToken } });

describe('integrations', () => {
  it('an owner makes one: its key and signing secret are answered once, listed never, and on the audit record', async () => {
    const owner = await staffKey(app(), ['owner']);
    const name = `Fleet app ${randomUUID()}`;
    const created = await call('POST', '/admin/integrations', owner.key, { name: ` ${name} `, returnUrls: [RETURN_URL, `${RETURN_URL}`] });
    expect(created.statusCode).toBe(201);
    const partner = json<TestIntegration>(created);
    expect(partner).toEqual({ id: expect.any(String), name, key: expect.stringMatching(/^onramp-integration-/), signingSecret: expect.any(String) });
    const listed = json<IntegrationList>(await call('GET', '/admin/integrations', owner.key)).integrations.find((each) => each.id === partner.id);
    expect(listed).toEqual({
      id: partner.id,
      name,
      returnUrls: [RETURN_URL],
      createdBy: owner.email,
      createdAt: expect.any(String),
      keys: [expect.any(Object)],
    });
    expect(JSON.stringify(listed)).not.toContain(partner.key);
    expect(JSON.stringify(listed)).not.toContain(partner.signingSecret);
    const again = await call('POST', '/admin/integrations', owner.key, { name: name.toUpperCase(), returnUrls: [] });
    expect(again.statusCode).toBe(409);
    expect(json(again)).toEqual({ message: 'An integration already has this name.' });
    const { rows } = await server.db.query<{ action: string; actor: string }>(
      "SELECT action, actor FROM audit_events WHERE details->>'integrationId' = $1 ORDER BY id",
      [partner.id],
    );
    expect(rows).toEqual([{ action: 'integration.create', actor: owner.email }]);
  });

  it('refuses a return URL that is not an http(s) address without query, fragment or password (400)', async () => {
    const owner = await staffKey(app(), ['owner']);
    for (const url of [
      'javascript:alert(1)',
      'https://partner.example/done?x=1',
      'https://partner.example/done#x',
      'https://user:pw@partner.example/',
      '/done',
    ]) {
      const response = await call('POST', '/admin/integrations', owner.key, { name: `Bad ${randomUUID()}`, returnUrls: [url] });
      expect(response.statusCode).toBe(400);
      expect(json(response)).toEqual({ message: `Each return URL must be an http or https address with no query, fragment or password: ${url}` });
    }
  });

  it('a revoked key is refused at once; another key works; the owner edits the return URLs', async () => {
    const owner = await staffKey(app(), ['owner']);
    const partner = await integration(app());
    const keyId = json<IntegrationList>(await call('GET', '/admin/integrations', owner.key)).integrations.find((each) => each.id === partner.id)!.keys[0]!.id;
    const another = await call('POST', `/admin/integrations/${partner.id}/keys`, owner.key, {});
    expect(another.statusCode).toBe(201);
    const { key } = json<{ key: string }>(another);
    expect((await call('POST', `/admin/integrations/${partner.id}/keys/${keyId}/revoke`, owner.key, {})).statusCode).toBe(200);
    const refused = await call('POST', '/integration/launch-links', partner.key, linkBody());
    expect(refused.statusCode).toBe(401);
    expect(json(refused)).toEqual({ message: 'Your staff session has ended. Please sign in again.', reason: 'signInAgain' });
    const revokedAgain = await call('POST', `/admin/integrations/${partner.id}/keys/${keyId}/revoke`, owner.key, {});
    expect(revokedAgain.statusCode).toBe(404);
    expect(json(revokedAgain)).toEqual({ message: 'This integration has no such key, or it was revoked already.' });
    const moved = 'https://partner.example/v2/';
    expect(json(await call('POST', `/admin/integrations/${partner.id}/return-urls`, owner.key, { returnUrls: [moved] }))).toEqual({
      success: true,
      returnUrls: [moved],
    });
    expect((await call('POST', '/integration/launch-links', key, linkBody())).statusCode).toBe(400);
    expect((await call('POST', '/integration/launch-links', key, linkBody({ returnUrl: `${moved}finished` }))).statusCode).toBe(200);
  });
});

describe('launch links', () => {
  let partner: TestIntegration;
  beforeAll(async () => {
    partner = await integration(app(), [RETURN_URL]);
  });

  it('answers a single-use URL valid 15 minutes, its token in the fragment, never in a log line', async () => {
    const before = Date.now();
    const { url, expiresAt, token } = await launchLink(partner);
    expect(url).toMatch(/^http:\/\/[^/]+\/launch#[A-Za-z0-9_-]{43}$/);
    expect(new Date(expiresAt).getTime() - before).toBeGreaterThanOrEqual(LAUNCH_LINK_LIFETIME_MS - 1000);
    expect(new Date(expiresAt).getTime() - before).toBeLessThanOrEqual(LAUNCH_LINK_LIFETIME_MS + 5000);
    expect((await open(token)).statusCode).toBe(200);
    expect(server.logs.join('\n')).not.toContain(token);
    const { rows } = await server.db.query<{ token_hash: string }>('SELECT token_hash FROM launch_links');
    expect(rows.map((row) => row.token_hash)).not.toContain(token);
  });

  it('refuses a return URL not on the owner’s list (400): another origin, a path beside the prefix, a scheme that runs code', async () => {
    for (const returnUrl of [
      'https://evil.example/onramp/done',
      'https://partner.example/onramp/donex',
      'https://partner.example/onramp/done/../../elsewhere',
      'http://partner.example/onramp/done',
      'https://partner.example.evil.example/onramp/done',
      'https://partner.example\\@evil.example/onramp/done',
      'javascript:alert(1)//https://partner.example/onramp/done',
      'not a url',
    ]) {
      const response = await call('POST', '/integration/launch-links', partner.key, linkBody({ returnUrl }));
      expect(response.statusCode, returnUrl).toBe(400);
      expect(json(response)).toEqual({ message: "returnUrl must be one of the integration's return URLs." });
    }
    expect((await call('POST', '/integration/launch-links', partner.key, linkBody({ returnUrl: `${RETURN_URL}/step` }))).statusCode).toBe(200);
  });

  it('refuses bad input with what is wrong (400)', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [linkBody({ email: 'not an email' }), 'email must be an email address.'],
      [linkBody({ phone: '12345' }), 'phone must be a US phone number: 10 digits, with or without +1.'],
      [linkBody({ externalId: '' }), 'externalId must be text of 1 to 200 characters.'],
      [linkBody({ locale: 'fr' }), 'locale must be one of: en, es.'],
      [linkBody({ extra: 1 }), 'Unknown field: extra'],
      [{ email: 'a@example.com', phone: '2025550143' }, "returnUrl must be one of the integration's return URLs."],
    ];
    for (const [body, message] of cases) {
      const response = await call('POST', '/integration/launch-links', partner.key, body);
      expect(response.statusCode).toBe(400);
      expect(json(response)).toEqual({ message });
    }
  });

  it('opens once: the sign-up with email and phone filled in; a second time, or after 15 minutes, 410; an unknown token 404', async () => {
    const body = linkBody({ email: `  Launch-${randomUUID()}@Example.com `, phone: '+12025550143', locale: 'es' });
    const { token } = await launchLink(partner, body);
    const opened = await open(token);
    expect(opened.statusCode).toBe(200);
    expect(json<LaunchOpened>(opened)).toEqual({
      step: 'signup',
      values: { email: String(body.email).trim().toLowerCase(), phoneNo: '2025550143' },
      locale: 'es',
    });
    const reused = await open(token);
    expect(reused.statusCode).toBe(410);
    expect(json(reused)).toEqual({ message: 'This link has expired or was used already. Please ask for a new one.' });

    const expiring = await launchLink(partner);
    server.clock.advance(LAUNCH_LINK_LIFETIME_MS + 1000);
    try {
      const expired = await open(expiring.token);
      expect(expired.statusCode).toBe(410);
      expect(json(expired)).toEqual({ message: 'This link has expired or was used already. Please ask for a new one.' });
    } finally {
      server.clock.reset();
    }
    for (const token of ['A'.repeat(43), '']) {
      const unknown = await open(token);
      expect(unknown.statusCode).toBe(404);
      expect(json(unknown)).toEqual({ message: 'This link is not valid. Please ask for a new one.' });
    }
  });

  it("refuses a link in the driver's language: one that opens nothing, and one spent", async () => {
    const inSpanish = (token: string) => app().inject({ method: 'POST', url: '/integration/launch', headers: { 'accept-language': 'es' }, payload: { token } });
    const unknown = await inSpanish('A'.repeat(43));
    expect(unknown.statusCode).toBe(404);
    expect(json(unknown)).toEqual({ message: 'Este enlace no es válido. Pide uno nuevo, por favor.' });
    const { token } = await launchLink(partner);
    expect((await open(token)).statusCode).toBe(200);
    const spent = await inSpanish(token);
    expect(spent.statusCode).toBe(410);
    expect(json(spent)).toEqual({ message: 'Este enlace ha caducado o ya se usó. Pide uno nuevo, por favor.' });
  });

  it('sends a driver who has an account to the sign-in with their email, and binds them once they sign in from the browser that opened it', async () => {
    const driver = await verifiedDriver(app());
    const externalId = `partner-${randomUUID()}`;
    const { token } = await launchLink(partner, linkBody({ email: driver.email, externalId }));
    const opened = await open(token);
    expect(json<LaunchOpened>(opened)).toEqual({ step: 'signIn', values: { email: driver.email } });
    // For the sign-up and sign-in calls of that browser only, and no script's to read.
    expect(String(opened.headers['set-cookie'])).toMatch(/^launch=[\w-]+; Path=\/auth; Max-Age=86400; HttpOnly; SameSite=Strict$/);
    const lookUp = () => call('GET', `/integration/drivers?externalId=${encodeURIComponent(externalId)}`, partner.key);
    // Whoever made the link holds its token: opening it proves nothing of the account.
    expect((await lookUp()).statusCode).toBe(404);
    // Nor does the driver's sign-in from another browser (their phone's own, the link's maker's).
    expect((await signIn(driver)).statusCode).toBe(200);
    expect((await lookUp()).statusCode).toBe(404);
    expect((await signIn(driver, launchCookieOf(opened))).statusCode).toBe(200);
    expect(json(await lookUp())).toMatchObject({ driverId: driver.driverId, externalId });
  });

  it("takes no driver away from their integration by a link with their email: only the driver's own sign-in, from the browser that opened it, at once, moves them", async () => {
    const driver = await verifiedDriver(app());
    const ours = `partner-${randomUUID()}`;
    const opened = await open((await launchLink(partner, linkBody({ email: driver.email, externalId: ours }))).token);
    expect((await signIn(driver, launchCookieOf(opened))).statusCode).toBe(200);
    const rival = await integration(app(), [RETURN_URL]);
    const theirs = `rival-${randomUUID()}`;
    // The rival opens its own link: it holds the browser cookie, not the driver.
    const rivalOpened = await open((await launchLink(rival, linkBody({ email: driver.email, externalId: theirs }))).token);
    expect(rivalOpened.statusCode).toBe(200);
    const lookUp = (by: TestIntegration, id: string) => call('GET', `/integration/drivers?externalId=${encodeURIComponent(id)}`, by.key);
    expect((await signIn(driver)).statusCode).toBe(200);
    expect(json(await lookUp(partner, ours))).toMatchObject({ driverId: driver.driverId });
    expect((await lookUp(rival, theirs)).statusCode).toBe(404);
    // A sign-in long after the link was opened is a return of the driver's own, not the link's.
    server.clock.advance(LAUNCH_LINK_LIFETIME_MS + 1000);
    try {
      expect((await signIn(driver, launchCookieOf(rivalOpened))).statusCode).toBe(200);
    } finally {
      server.clock.reset();
    }
    expect(json(await lookUp(partner, ours))).toMatchObject({ driverId: driver.driverId });
    expect((await lookUp(rival, theirs)).statusCode).toBe(404);
  });
});

describe('the driver who came through a launch link', () => {
  let partner: TestIntegration;
  let driver: TestDriver;
  let externalId: string;
  beforeAll(async () => {
    partner = await integration(app(), [RETURN_URL]);
    const user = await createEmulatorUser();
    externalId = `partner-${randomUUID()}`;
    const phone = randomPhone();
    const { token } = await launchLink(partner, linkBody({ email: user.email, phone, externalId }));
    const answer = await open(token);
    const opened = json<LaunchOpened>(answer);
    // The sign-up as the page sends it, with the values the link filled in, from the browser that opened the link.
    const signedUp = await app().inject({
      method: 'POST',
      url: '/auth/driverEmailSignUp',
      headers: { cookie: launchCookieOf(answer) },
      payload: signUpPayload(user, `+1${opened.values.phoneNo}`),
    });
    expect(signedUp.statusCode, signedUp.body).toBe(200);
    const { driverId, token: signUpToken } = json<{ driverId: string; token: string }>(signedUp);
    const verified = await call('POST', '/auth/validateOTP', signUpToken, { code: await latestCode(app(), user.email), email: user.email });
    driver = { user, email: user.email, phone: `+1${opened.values.phoneNo}`, driverId, signUpToken, token: String(json(verified).token) };
  });

  it('is read by the integration: where they stand and which steps they sent, no answer itself', async () => {
    await sendVehicle(app(), driver);
    const byExternalId = await call('GET', `/integration/drivers?externalId=${encodeURIComponent(externalId)}`, partner.key);
    expect(byExternalId.statusCode).toBe(200);
    const read = json<{ steps: { step: string }[] }>(byExternalId);
    expect(read).toEqual({
      driverId: driver.driverId,
      externalId,
      status: 'pending',
      isEmailVerified: true,
      isPhoneVerified: true,
      isSessionComplete: true,
      isSubscriptionPaid: false,
      isBankAccountAdded: false,
      steps: ['completeProfile', 'uploadVehicleImages', 'addVehicle'].map((step) => ({ step, sentAt: expect.any(String) })),
    });
    expect(json(await call('GET', `/integration/drivers?driverId=${driver.driverId}`, partner.key))).toEqual(read);
    // Another integration's driver is nobody to this one; a query without an id is told what to send.
    const other = await integration(app(), [RETURN_URL]);
    const elsewhere = await call('GET', `/integration/drivers?driverId=${driver.driverId}`, other.key);
    expect(elsewhere.statusCode).toBe(404);
    expect(json(elsewhere)).toEqual({ message: 'No driver who came through this integration’s launch links matches.' });
    const nothing = await call('GET', '/integration/drivers', partner.key);
    expect(nothing.statusCode).toBe(400);
    expect(json(nothing)).toEqual({ message: 'Send driverId or externalId.' });
  });

  it('is named by the partner’s own id in every webhook event about them', async () => {
    await sendVehicle(app(), driver);
    const { rows } = await server.db.query<{ type: string; payload: { data: { externalId: unknown } } }>(
      'SELECT type, payload FROM webhook_events WHERE driver_id = $1 ORDER BY sequence',
      [driver.driverId],
    );
    expect(rows.map((row) => row.type)).toContain('driver.signed_up');
    expect(new Set(rows.map((row) => row.payload.data.externalId))).toEqual(new Set([externalId]));
  });

  it('carries back a signed result once the bank is added, and nothing before', async () => {
    expect(json<LaunchReturn>(await call('GET', '/integration/return', driver.token))).toEqual({ url: null, result: null });
    expect((await decide(app(), server.reviewer.key, driver.driverId, 'approve')).statusCode).toBe(200);
    await paySubscription(app(), driver);
    expect((await post(app(), '/finance/banks', driver.token, bankValues())).statusCode).toBe(200);
    const answer = json<LaunchReturn>(await call('GET', '/integration/return', driver.token));
    const result = answer.result!;
    expect(result).toEqual({
      driverId: driver.driverId,
      externalId,
      status: 'completed',
      issuedAt: expect.stringMatching(/^\d+$/),
      signature: expect.any(String),
    });
    const url = new URL(answer.url!);
    expect(`${url.origin}${url.pathname}`).toBe(RETURN_URL);
    expect(Object.fromEntries(url.searchParams)).toEqual({ session: '42', ...result });
    // As docs/launch-links.md tells the integration to check it.
    const expected = createHmac('sha256', partner.signingSecret)
      .update(`${result.driverId}.${result.externalId}.${result.status}.${result.issuedAt}`)
      .digest('hex');
    expect(result.signature).toBe(expected);
    // Its key is not a driver's session, nor the other way round.
    expect((await call('GET', '/integration/return', partner.key)).statusCode).toBe(401);
    const asDriver = await call('GET', `/integration/drivers?driverId=${driver.driverId}`, driver.token);
    expect(asDriver.statusCode).toBe(403);
    expect(json(asDriver)).toEqual({ message: 'Drivers cannot use the admin API.' });
  });
});
