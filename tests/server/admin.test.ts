import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance, InjectOptions } from 'fastify';
import sharp from 'sharp';
import { runAdminCommand, type AdminIo } from '../../src/cli/admin.js';
import {
  bearer,
  completeProfile,
  decide,
  formData,
  JPEG_BYTES,
  json,
  PNG_BYTES,
  post,
  profileValues,
  sendVehicle,
  verifiedDriver,
  startTestServer,
  statusData,
  vehicleImageValues,
  vehicleValues,
  type TestDriver,
  type TestServer,
} from '../support/server.js';

let server: TestServer;
let app: FastifyInstance;
let adminToken: string;

beforeAll(async () => {
  server = await startTestServer();
  app = server.app;
  adminToken = server.config.adminToken;
});
afterAll(() => server.close());
afterEach(() => server.clock.reset());

const MINUTE = 60_000;
const FULL_SSN = '123456789'; // profileValues' SSN
const ADMIN_TOKEN_REQUIRED = { message: 'Admin token required.' };
const DRIVERS_CANNOT = { message: 'Drivers cannot use the admin API.' };
const UNKNOWN_DRIVER = { message: 'There is no driver with this id.' };

const asAdmin = () => bearer(adminToken);

function admin(method: 'GET' | 'POST', url: string, payload?: InjectOptions['payload'], headers: Record<string, string> = asAdmin()) {
  return app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
}

const status = (driver: TestDriver, token = driver.token) =>
  app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(token) });

interface ListedDriver {
  id: string;
  email: string;
  status: string;
  reviewVersion: number;
  rejectionReason: string | null;
  profile: Record<string, unknown> | null;
  vehicle: Record<string, unknown> | null;
  documents: { id: string; field: string; mime: string; size: number; url: string }[];
}

async function list(state?: string): Promise<ListedDriver[]> {
  const response = await admin('GET', state ? `/admin/drivers?status=${state}` : '/admin/drivers');
  expect(response.statusCode, response.body).toBe(200);
  return json<{ drivers: ListedDriver[] }>(response).drivers;
}

/** A driver who sent the vehicle: waiting for review. */
async function waitingDriver(): Promise<TestDriver> {
  const driver = await verifiedDriver(app);
  await sendVehicle(app, driver);
  return driver;
}

const uploadsOf = async (driverId: string) =>
  (await server.db.query<{ id: string; field: string; mime: string }>('SELECT id, field, mime FROM uploads WHERE driver_id = $1', [driverId])).rows;

describe('who may use the admin API', () => {
  let driver: TestDriver;
  beforeAll(async () => {
    driver = await waitingDriver();
  });

  const endpoints = (): [string, 'GET' | 'POST', string, InjectOptions['payload']?][] => [
    ['the list', 'GET', '/admin/drivers'],
    ['approve', 'POST', `/admin/drivers/${driver.driverId}/approve`],
    ['reject', 'POST', `/admin/drivers/${driver.driverId}/reject`, { reason: 'Blurry photos' }],
    ['a resume link', 'POST', `/admin/drivers/${driver.driverId}/resume-link`],
    ['an upload', 'GET', `/admin/uploads/${randomUUID()}`],
  ];

  it('answers 401 "Admin token required." without an Authorization header', async () => {
    for (const [name, method, url, payload] of endpoints()) {
      const response = await admin(method, url, payload, {});
      expect(response.statusCode, name).toBe(401);
      expect(json(response), name).toEqual(ADMIN_TOKEN_REQUIRED);
    }
  });

  it('answers 401 to a wrong admin token, a token of the right length, and a non-Bearer header', async () => {
    const wrong = [bearer('not-the-admin-token'), bearer(`${adminToken.slice(0, -1)}x`), { authorization: `Basic ${adminToken}` }];
    for (const [name, method, url, payload] of endpoints()) {
      for (const headers of wrong) {
        const response = await admin(method, url, payload, headers);
        expect(response.statusCode, name).toBe(401);
        expect(json(response), name).toEqual(ADMIN_TOKEN_REQUIRED);
      }
    }
  });

  it('answers 403 "Drivers cannot use the admin API." to a driver’s session token', async () => {
    for (const [name, method, url, payload] of endpoints()) {
      const response = await admin(method, url, payload, bearer(driver.token));
      expect(response.statusCode, name).toBe(403);
      expect(json(response), name).toEqual(DRIVERS_CANNOT);
    }
    // And nothing happened.
    expect(json(await status(driver)).data).toMatchObject({ status: 'pending' });
  });

  it('ignores the admin token in a cookie', async () => {
    const response = await admin('GET', '/admin/drivers', undefined, { cookie: `token=${adminToken}` });
    expect(response.statusCode).toBe(401);
  });

  it('marks its answers no-store', async () => {
    const response = await admin('GET', '/admin/drivers');
    expect(response.headers['cache-control']).toBe('no-store');
  });
});

describe('GET /admin/drivers', () => {
  let first: TestDriver;
  let second: TestDriver;
  let unfinished: TestDriver;
  let vehicleId: string;

  beforeAll(async () => {
    first = await verifiedDriver(app);
    vehicleId = await sendVehicle(app, first);
    server.clock.advance(MINUTE);
    second = await waitingDriver();
    server.clock.reset();
    unfinished = await verifiedDriver(app);
    await completeProfile(app, unfinished);
  });

  it('lists a driver who sent the vehicle, with profile, vehicle and documents, and SSN masked', async () => {
    const listed = (await list('pending')).find((driver) => driver.id === first.driverId);
    expect(listed).toEqual({
      id: first.driverId,
      email: first.email,
      phone: first.phone,
      provider: 'password',
      status: 'pending',
      rejectionReason: null,
      reviewVersion: expect.any(Number),
      isSessionComplete: true,
      isSubscriptionPaid: false,
      createdAt: expect.any(String),
      profile: {
        firstName: 'Ada',
        lastName: 'Lovelace',
        MI: 'B',
        suffix: null,
        dateOfBirth: '1990-04-12',
        gender: 'Female',
        ssnMasked: '***-**-6789',
        driverLicenseNumber: 'D1234567',
        street: '1 Main Street',
        city: 'Austin',
        state: 'TX',
        zipCode: '73301',
      },
      vehicle: {
        id: vehicleId,
        make: 'Toyota',
        model: 'Prius',
        year: 2020,
        plate: 'ABC1234',
        wheelchair: false,
        driverLicenseExpiry: vehicleValues(vehicleId).driverLicenseExpiryDate,
        registrationExpiry: vehicleValues(vehicleId).vehicleRegistrationExpiryDate,
        insuranceExpiry: vehicleValues(vehicleId).proofInsuranceExpiryDate,
        submittedAt: expect.any(String),
      },
      bank: null,
      documents: expect.any(Array),
    });
    // 3 from the profile, 6 photos, 4 from the vehicle form: every one, each at its admin address.
    const stored = await uploadsOf(first.driverId);
    expect(listed!.documents).toHaveLength(13);
    expect(listed!.documents.map((doc) => doc.id).sort()).toEqual(stored.map((row) => row.id).sort());
    expect(new Set(listed!.documents.map((doc) => doc.field)).size).toBe(13);
    for (const doc of listed!.documents) {
      expect(doc).toEqual({ id: doc.id, field: expect.any(String), mime: expect.stringMatching(/^image\//), size: expect.any(Number), url: `/admin/uploads/${doc.id}` });
    }
  });

  it('never sends the full SSN', async () => {
    const response = await admin('GET', '/admin/drivers?status=pending');
    expect(response.body).toContain('***-**-6789');
    expect(response.body).not.toContain(FULL_SSN);
    expect(response.body).not.toMatch(/ssn_?ciphertext/i);
  });

  it('queues only drivers who sent their vehicle, oldest submission first', async () => {
    const ids = (await list('pending')).map((driver) => driver.id);
    expect(ids).not.toContain(unfinished.driverId);
    expect(ids.indexOf(first.driverId)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(first.driverId)).toBeLessThan(ids.indexOf(second.driverId));
  });

  it('lists pending drivers by default', async () => {
    expect((await list()).map((driver) => driver.id)).toEqual((await list('pending')).map((driver) => driver.id));
  });

  it('leaves out photos of a vehicle that was never sent', async () => {
    const driver = await waitingDriver();
    // Photos uploaded again (a new vehicle) but not sent: the sent vehicle stays under review.
    await post(app, '/driver/completeVehicleDocs', driver.token, formData(Object.fromEntries(['vehicleImageFront', 'vehicleImageRear', 'vehicleImagePassengerSide', 'vehicleImageDriverSide', 'vehicleImageInteriorFront', 'vehicleImageInteriorBack'].map((field) => [field, { bytes: JPEG_BYTES, name: 'x.jpg', type: 'image/jpeg' }]))));
    const listed = (await list()).find((each) => each.id === driver.driverId)!;
    expect(listed.documents).toHaveLength(13);
    expect((await uploadsOf(driver.driverId)).length).toBe(19);
  });

  it.each([['status=approve'], ['status='], ['status=pending&status=approved'], ['status=PENDING']])('refuses ?%s with 400', async (query) => {
    const response = await admin('GET', `/admin/drivers?${query}`);
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message: 'status must be one of: pending, approved, rejected.' });
  });

  it('refuses an unknown query parameter with 400', async () => {
    const response = await admin('GET', '/admin/drivers?state=pending');
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message: 'Unknown query parameter: state' });
  });
});

describe('POST /admin/drivers/:id/approve and /reject', () => {
  it('approves: GET /driver/status says approved, and the driver moves from the queue to the approved list', async () => {
    const driver = await waitingDriver();
    const response = await decide(app, adminToken, driver.driverId, 'approve');
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ success: true, status: 'approved' });
    expect(json(await status(driver))).toEqual({ data: statusData({ status: 'approved', isSessionComplete: true }) });
    expect((await list('pending')).map((each) => each.id)).not.toContain(driver.driverId);
    expect((await list('approved')).find((each) => each.id === driver.driverId)).toMatchObject({ status: 'approved', rejectionReason: null });
  });

  it('records when and with which admin token, never the token itself', async () => {
    const driver = await waitingDriver();
    await decide(app, adminToken, driver.driverId, 'approve');
    const { rows } = await server.db.query<{ reviewed_at: Date; reviewed_by: string }>('SELECT reviewed_at, reviewed_by FROM drivers WHERE id = $1', [driver.driverId]);
    expect(rows[0]!.reviewed_at).toBeInstanceOf(Date);
    expect(rows[0]!.reviewed_by).toMatch(/^admin-token:[0-9a-f]{12}$/);
    expect(rows[0]!.reviewed_by).not.toContain(adminToken);
    const history = await server.db.query('SELECT decision, reason FROM driver_reviews WHERE driver_id = $1', [driver.driverId]);
    expect(history.rows).toEqual([{ decision: 'approved', reason: null }]);
  });

  it('rejects with a reason: GET /driver/status says rejected and gives the reason', async () => {
    const driver = await waitingDriver();
    const response = await decide(app, adminToken, driver.driverId, 'reject', '  The licence photo is blurry.  ');
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ success: true, status: 'rejected' });
    expect(json(await status(driver))).toEqual({
      data: statusData({ status: 'rejected', isSessionComplete: true, rejectionReason: 'The licence photo is blurry.' }),
    });
    expect((await list('rejected')).find((each) => each.id === driver.driverId)).toMatchObject({ rejectionReason: 'The licence photo is blurry.' });
  });

  describe('a rejected driver', () => {
    let driver: TestDriver;
    beforeAll(async () => {
      driver = await waitingDriver();
      await decide(app, adminToken, driver.driverId, 'reject', 'Insurance card unreadable');
    });

    it('can still change the profile, and stays rejected until the vehicle is sent again', async () => {
      await completeProfile(app, driver, { street: '2 Main Street' });
      expect(json(await status(driver)).data).toMatchObject({ status: 'rejected', rejectionReason: 'Insurance card unreadable' });
    });

    it('is pending again, without the reason, after sending the vehicle again, and back in the queue', async () => {
      const { rows } = await server.db.query<{ id: string }>('SELECT id FROM vehicles WHERE driver_id = $1 AND submitted_at IS NOT NULL', [driver.driverId]);
      const response = await post(app, '/driver/completeVehicle', driver.token, formData(vehicleValues(rows[0]!.id)));
      expect(response.statusCode).toBe(200);
      expect(json(await status(driver))).toEqual({ data: statusData({ status: 'pending', isSessionComplete: true }) });
      expect((await list('pending')).find((each) => each.id === driver.driverId)).toMatchObject({ status: 'pending', rejectionReason: null });
      expect((await list('rejected')).map((each) => each.id)).not.toContain(driver.driverId);
    });
  });

  describe('review that can’t be bypassed', () => {
    it('refuses every change to what was approved with 409, and the driver stays approved with the data approved', async () => {
      const driver = await verifiedDriver(app);
      const vehicleId = await sendVehicle(app, driver);
      await decide(app, adminToken, driver.driverId, 'approve');
      const before = await list('approved');
      const attempts = [
        post(app, '/driver/completeProfile', driver.token, formData(profileValues({ firstName: 'Mallory', SSN: '987654320' }))),
        post(app, '/driver/completeVehicleDocs', driver.token, formData(vehicleImageValues())),
        post(app, '/driver/completeVehicle', driver.token, formData(vehicleValues(vehicleId, { plateNumber: 'STOLEN1' }))),
      ];
      for (const response of await Promise.all(attempts)) {
        expect(response.statusCode).toBe(409);
        expect(json(response)).toEqual({
          message: 'Your profile and vehicle are approved, so they can no longer be changed here. Please contact support to change them.',
        });
      }
      expect(json(await status(driver)).data).toMatchObject({ status: 'approved' });
      expect((await list('approved')).find((each) => each.id === driver.driverId)).toEqual(before.find((each) => each.id === driver.driverId));
    });

    it('refuses a decision made on data the driver changed since it was listed (409), and decides nothing', async () => {
      const driver = await waitingDriver();
      const listed = (await list('pending')).find((each) => each.id === driver.driverId)!;
      await completeProfile(app, driver, { lastName: 'Changed' });
      for (const [action, extra] of [['approve', {}], ['reject', { reason: 'Blurry' }]] as const) {
        const response = await admin('POST', `/admin/drivers/${driver.driverId}/${action}`, { reviewVersion: listed.reviewVersion, ...extra });
        expect(response.statusCode).toBe(409);
        expect(json(response)).toEqual({ message: 'This driver changed their details after you opened them. Reload the list to review what they sent.' });
      }
      expect(json(await status(driver)).data).toMatchObject({ status: 'pending' });
      const again = (await list('pending')).find((each) => each.id === driver.driverId)!;
      expect(again.reviewVersion).toBeGreaterThan(listed.reviewVersion);
      expect((await admin('POST', `/admin/drivers/${driver.driverId}/approve`, { reviewVersion: again.reviewVersion })).statusCode).toBe(200);
    });

    it.each([
      ['no body', undefined],
      ['no version', {}],
      ['a version that is text', { reviewVersion: '1' }],
      ['a negative version', { reviewVersion: -1 }],
      ['a fraction', { reviewVersion: 1.5 }],
    ])('refuses an approval with %s (400)', async (_name, payload) => {
      const driver = await waitingDriver();
      const response = await admin('POST', `/admin/drivers/${driver.driverId}/approve`, payload as InjectOptions['payload']);
      expect(response.statusCode).toBe(400);
      expect(json(response)).toEqual({ message: 'reviewVersion must be the reviewVersion of the driver as listed (a whole number).' });
    });

    it('shows one driver, whatever their state, as the list does (GET /admin/drivers/:id)', async () => {
      const driver = await waitingDriver();
      const one = await admin('GET', `/admin/drivers/${driver.driverId}`);
      expect(one.statusCode).toBe(200);
      expect(json(one)).toEqual((await list('pending')).find((each) => each.id === driver.driverId));
      expect((await admin('GET', `/admin/drivers/${randomUUID()}`)).statusCode).toBe(404);
    });
  });

  it.each([
    ['no body', undefined, 'Please give a reason for the rejection.'],
    ['no reason', {}, 'Please give a reason for the rejection.'],
    ['an empty reason', { reason: '' }, 'Please give a reason for the rejection.'],
    ['a blank reason', { reason: '   ' }, 'Please give a reason for the rejection.'],
    ['a null reason', { reason: null }, 'Please give a reason for the rejection.'],
    ['a reason that is not text', { reason: 42 }, 'The reason must be text.'],
    ['a reason of 501 characters', { reason: 'x'.repeat(501) }, 'The reason must be at most 500 characters.'],
    ['a reason with control characters', { reason: 'bad\u0000reason' }, 'The reason must be plain text.'],
    ['an unknown field', { reason: 'ok', status: 'approved' }, 'Unknown field: status'],
    ['an array', [1], 'The request body must be a JSON object.'],
  ])('refuses a rejection with %s (400), and changes nothing', async (_name, payload, message) => {
    const driver = await waitingDriver();
    const response = await admin('POST', `/admin/drivers/${driver.driverId}/reject`, payload as InjectOptions['payload']);
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message });
    expect(json(await status(driver)).data).toMatchObject({ status: 'pending' });
  });

  it('takes a reason of exactly 500 characters, counting characters rather than UTF-16 units', async () => {
    const driver = await waitingDriver();
    const reason = '🚗'.repeat(500);
    const response = await decide(app, adminToken, driver.driverId, 'reject', reason);
    expect(response.statusCode).toBe(200);
    expect(json(await status(driver)).data).toMatchObject({ rejectionReason: reason });
  });

  it.each(['approve', 'reject', 'resume-link'])('answers 404 to %s for an unknown id or one that is not a uuid', async (action) => {
    for (const id of [randomUUID(), 'not-a-uuid', "1' OR '1'='1"]) {
      const response = await admin('POST', `/admin/drivers/${encodeURIComponent(id)}/${action}`, action === 'reject' ? { reason: 'x', reviewVersion: 0 } : action === 'approve' ? { reviewVersion: 0 } : undefined);
      expect(response.statusCode, id).toBe(404);
      expect(json(response)).toEqual(UNKNOWN_DRIVER);
    }
  });

  it('answers 409 to a decision on a driver who has not sent the vehicle yet', async () => {
    const driver = await verifiedDriver(app);
    await completeProfile(app, driver);
    for (const [action, payload] of [['approve', { reviewVersion: 0 }], ['reject', { reason: 'Too early', reviewVersion: 0 }]] as const) {
      const response = await admin('POST', `/admin/drivers/${driver.driverId}/${action}`, payload);
      expect(response.statusCode).toBe(409);
      expect(json(response)).toEqual({ message: 'This driver has not sent their vehicle for approval yet.' });
    }
    expect(json(await status(driver)).data).toMatchObject({ status: 'pending', isSessionComplete: false });
  });
});

describe('POST /admin/drivers/:id/resume-link', () => {
  let driver: TestDriver;
  let other: TestDriver;
  beforeAll(async () => {
    driver = await verifiedDriver(app);
    other = await verifiedDriver(app);
  });

  const resumeLink = async (target = app, headers: Record<string, string> = {}) => {
    const response = await target.inject({ method: 'POST', url: `/admin/drivers/${driver.driverId}/resume-link`, headers: { ...asAdmin(), ...headers } });
    expect(response.statusCode, response.body).toBe(200);
    return json<{ url: string; expiresAt: string }>(response);
  };
  const tokenOf = (url: string) => decodeURIComponent(url.split('/').pop()!);

  it('answers a link to /:id/:token on the address the request came to, valid 15 minutes', async () => {
    const before = server.clock.now().getTime();
    const { url, expiresAt } = await resumeLink(app, { host: 'onramp.test:3000' });
    expect(url).toMatch(new RegExp(`^http://onramp\\.test:3000/${driver.driverId}/[A-Za-z0-9_%-]+$`));
    const lifetime = Date.parse(expiresAt) - before;
    expect(lifetime).toBeGreaterThanOrEqual(15 * MINUTE - 1000);
    expect(lifetime).toBeLessThanOrEqual(15 * MINUTE + 1000);
  });

  it('uses PUBLIC_URL when it is set', async () => {
    const configured = await server.buildAnother({ publicUrl: 'https://onramp.example.com' });
    const { url } = await resumeLink(configured, { host: 'internal:8080' });
    expect(url.startsWith(`https://onramp.example.com/${driver.driverId}/`)).toBe(true);
  });

  it('refuses a Host header that could not be part of a link', async () => {
    const response = await app.inject({ method: 'POST', url: `/admin/drivers/${driver.driverId}/resume-link`, headers: { ...asAdmin(), host: 'evil.test/phish?' } });
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toContain('PUBLIC_URL');
  });

  const SESSION_EXPIRED = { message: 'Session expired, Please relogin', reason: 'signInAgain' };
  const TOKEN = /^[A-Za-z0-9_-]{43}$/;
  const newLink = async () => tokenOf((await resumeLink()).url);
  const resumeRows = async () =>
    (await server.db.query<{ n: number }>("SELECT count(*)::int AS n FROM sessions WHERE driver_id = $1 AND kind = 'resume'", [driver.driverId])).rows[0]!.n;

  it('gives a new token each time, none of them the driver’s session', async () => {
    const a = await newLink();
    const b = await newLink();
    expect(a).not.toBe(b);
    expect(a).not.toBe(driver.token);
    expect(a).toMatch(TOKEN);
  });

  it('is exchanged by its first GET /driver/status for the status and a new session token, which works on the other driver routes', async () => {
    const link = await newLink();
    const first = await status(driver, link);
    expect(first.statusCode, first.body).toBe(200);
    const body = json<{ data: unknown; token: string }>(first);
    // As a sign-in answers: the status, the new session, and who the driver is (for the resume table's rows).
    expect(body).toEqual({
      data: statusData({ status: 'pending', isSessionComplete: false, isPhoneVerified: false, isProfileComplete: false }),
      token: expect.stringMatching(TOKEN),
      driverId: driver.driverId,
      email: driver.email,
      phone: driver.phone,
    });
    expect(body.token).not.toBe(link);
    expect(body.token).not.toBe(driver.token);
    expect(first.headers['cache-control']).toBe('no-store');

    // A normal session: no `token` beside the data, and every driver route takes it.
    const again = await status(driver, body.token);
    expect(again.statusCode).toBe(200);
    expect(json(again)).toEqual({ data: body.data });
    await completeProfile(app, { ...driver, token: body.token });
    const { rows } = await server.db.query<{ id: string }>("SELECT id FROM uploads WHERE driver_id = $1 AND field = 'profilePicture'", [driver.driverId]);
    const picture = await app.inject({ method: 'GET', url: `/driver/uploads/${rows[0]!.id}`, headers: bearer(body.token) });
    expect(picture.statusCode).toBe(200);
    // A day-long session, like one from the email code.
    const { rows: session } = await server.db.query<{ kind: string; life: number }>(
      'SELECT kind, extract(epoch FROM expires_at - created_at)::int AS life FROM sessions WHERE driver_id = $1 AND kind = $2 ORDER BY created_at DESC LIMIT 1',
      [driver.driverId, 'session'],
    );
    expect(session[0]).toEqual({ kind: 'session', life: 24 * 60 * 60 });
  });

  it('is single-use: the second GET /driver/status answers 401, and the token is deleted', async () => {
    const before = await resumeRows();
    const link = await newLink();
    expect(await resumeRows()).toBe(before + 1);
    expect((await status(driver, link)).statusCode).toBe(200);
    expect(await resumeRows()).toBe(before);
    const second = await status(driver, link);
    expect(second.statusCode).toBe(401);
    expect(json(second)).toEqual(SESSION_EXPIRED);
    // The driver's own session is untouched.
    expect((await status(driver)).statusCode).toBe(200);
  });

  it('is no session: every other driver route answers 401, without using it up', async () => {
    const link = await newLink();
    const refused = [
      await post(app, '/driver/completeProfile', link, formData(profileValues())),
      await post(app, '/driver/completeVehicleDocs', link, formData(vehicleImageValues())),
      await post(app, '/driver/completeVehicle', link, formData(vehicleValues(randomUUID()))),
      await app.inject({ method: 'GET', url: `/driver/uploads/${randomUUID()}`, headers: bearer(link) }),
      await app.inject({ method: 'POST', url: '/auth/sendPhoneOTP', headers: bearer(link), payload: { phoneNo: driver.phone } }),
      await app.inject({ method: 'POST', url: '/auth/validatePhoneOTP', headers: bearer(link), payload: { code: '1234', phoneNo: driver.phone } }),
    ];
    for (const response of refused) {
      expect(response.statusCode, response.body).toBe(401);
      expect(json(response)).toEqual(SESSION_EXPIRED);
    }
    // Nor is it an admin's token (nor a driver session, which would be told 403).
    const asAdmin = await admin('GET', '/admin/drivers', undefined, bearer(link));
    expect(asAdmin.statusCode).toBe(401);
    expect(json(asAdmin)).toEqual(ADMIN_TOKEN_REQUIRED);
    // Still good for the one route that takes it.
    expect((await status(driver, link)).statusCode).toBe(200);
  });

  it('answers 403 for another driver’s status, without using it up', async () => {
    const link = await newLink();
    const elsewhere = await status(other, link);
    expect(elsewhere.statusCode).toBe(403);
    expect(json(elsewhere)).toEqual({ message: 'You can only see your own status.' });
    expect((await status(driver, link)).statusCode).toBe(200);
  });

  it('works for 15 minutes and answers 401 after', async () => {
    const early = await newLink();
    const late = await newLink();
    server.clock.advance(14 * MINUTE);
    const ok = await status(driver, early);
    expect(ok.statusCode).toBe(200);
    server.clock.advance(MINUTE + 1000);
    const expired = await status(driver, late);
    expect(expired.statusCode).toBe(401);
    expect(json(expired)).toEqual(SESSION_EXPIRED);
    // The session it was exchanged for lives on, as does the driver's own.
    expect((await status(driver, json<{ token: string }>(ok).token)).statusCode).toBe(200);
    expect((await status(driver)).statusCode).toBe(200);
  });

  it('gives one of two concurrent uses the new session and the other 401, on one server or two', async () => {
    const another = await server.buildAnother();
    for (const [first, second] of [
      [app, app],
      [app, another],
    ] as const) {
      const link = await newLink();
      const call = (target: FastifyInstance) => target.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(link) });
      // Both servers have the driver's routes warm: the race is between the two exchanges.
      const responses = await Promise.all([call(first), call(second), call(first), call(second)]);
      const codes = responses.map((response) => response.statusCode).sort();
      expect(codes).toEqual([200, 401, 401, 401]);
      const winner = responses.find((response) => response.statusCode === 200)!;
      expect(json(winner)).toMatchObject({ data: expect.any(Object), token: expect.stringMatching(TOKEN) });
      for (const loser of responses.filter((response) => response.statusCode === 401)) expect(json(loser)).toEqual(SESSION_EXPIRED);
      expect((await status(driver, json<{ token: string }>(winner).token)).statusCode).toBe(200);
    }
  });
});

describe('uploaded images', () => {
  let owner: TestDriver;
  let stranger: TestDriver;
  let front: { id: string; mime: string };
  let picture: { id: string; mime: string };

  beforeAll(async () => {
    owner = await waitingDriver();
    stranger = await verifiedDriver(app);
    const uploads = await uploadsOf(owner.driverId);
    front = uploads.find((row) => row.field === 'socialSecurityCardFront')!;
    picture = uploads.find((row) => row.field === 'profilePicture')!;
  });

  /** The uploaded image as the server re-encoded it: same type and size, new bytes (no metadata kept). */
  async function expectImage(response: Awaited<ReturnType<FastifyInstance['inject']>>, uploaded: Buffer, type: string) {
    expect(response.statusCode, response.body).toBe(200);
    const sent = await sharp(response.rawPayload).metadata();
    const original = await sharp(uploaded).metadata();
    expect([`image/${sent.format}`, sent.width, sent.height]).toEqual([type, original.width, original.height]);
    expect(response.headers['content-type']).toBe(type);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['content-disposition']).toBe('inline');
    expect(response.headers['cache-control']).toBe('private, no-store');
  }

  it('shows a driver their own image: the re-encoded image with its type', async () => {
    await expectImage(await app.inject({ method: 'GET', url: `/driver/uploads/${front.id}`, headers: bearer(owner.token) }), JPEG_BYTES, 'image/jpeg');
    await expectImage(await app.inject({ method: 'GET', url: `/driver/uploads/${picture.id}`, headers: bearer(owner.token) }), PNG_BYTES, 'image/png');
  });

  it('refuses another driver’s image with 403', async () => {
    const response = await app.inject({ method: 'GET', url: `/driver/uploads/${front.id}`, headers: bearer(stranger.token) });
    expect(response.statusCode).toBe(403);
    expect(json(response)).toEqual({ message: 'You can only see your own photos and documents.' });
    expect(response.rawPayload.includes(JPEG_BYTES)).toBe(false);
  });

  it('answers 401 to a driver request without a token', async () => {
    const response = await app.inject({ method: 'GET', url: `/driver/uploads/${front.id}` });
    expect(response.statusCode).toBe(401);
    expect(json(response)).toEqual({ message: 'Token not found', reason: 'signInAgain' });
  });

  it('shows an admin any driver’s image, at the address the list gives', async () => {
    const listed = (await list()).find((each) => each.id === owner.driverId)!;
    const doc = listed.documents.find((each) => each.id === front.id)!;
    await expectImage(await admin('GET', doc.url), JPEG_BYTES, 'image/jpeg');
  });

  it('answers 404 to an unknown upload, or an id that is not a uuid', async () => {
    for (const id of [randomUUID(), 'nope', '..%2F..%2Fdata-key']) {
      const asDriver = await app.inject({ method: 'GET', url: `/driver/uploads/${id}`, headers: bearer(owner.token) });
      expect(asDriver.statusCode, id).toBe(404);
      expect(json(asDriver)).toEqual({ message: 'This file does not exist.' });
      const asAdmin = await admin('GET', `/admin/uploads/${id}`);
      expect(asAdmin.statusCode, id).toBe(404);
      expect(json(asAdmin)).toEqual({ message: 'This file does not exist.' });
    }
  });
});

describe('the /admin page and the API below it', () => {
  const page = (url: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url, headers: { accept: 'text/html,application/xhtml+xml', ...headers } });

  beforeAll(async () => {
    await mkdir(server.config.staticDir, { recursive: true });
    await writeFile(join(server.config.staticDir, 'index.html'), '<!doctype html><html><head><!--app-config--></head><body>app</body></html>');
  });

  it.each(['/admin', '/admin/', '/admin?from=email'])('serves the web app at %s, without any token', async (url) => {
    const response = await page(url);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body).toContain('id="app-config"');
  });

  it('answers the API, never the page, below /admin/ even for a browser', async () => {
    const api = await page('/admin/drivers');
    expect(api.statusCode).toBe(401);
    expect(json(api)).toEqual(ADMIN_TOKEN_REQUIRED);
    const missing = await page('/admin/nothing');
    expect(missing.statusCode).toBe(404);
    expect(json(missing)).toEqual({ message: 'Not found.' });
  });

  it('answers /admin with 404 JSON to a request that does not want HTML', async () => {
    const response = await app.inject({ method: 'GET', url: '/admin', headers: { accept: 'application/json' } });
    expect(response.statusCode).toBe(404);
  });
});

describe('npm run admin (through the same requests)', () => {
  /** fetch answered by app.inject: the command's HTTP without a socket. */
  const injectFetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    const response = await app.inject({
      method: (init?.method ?? 'GET') as 'GET' | 'POST',
      url: `${url.pathname}${url.search}`,
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
      ...(typeof init?.body === 'string' ? { payload: init.body } : {}),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) headers.set(name, String(value));
    return new Response(new Uint8Array(response.rawPayload), { status: response.statusCode, headers });
  }) as typeof fetch;

  const run = async (command: Parameters<typeof runAdminCommand>[0], token = adminToken) => {
    const out: string[] = [];
    const err: string[] = [];
    const io: AdminIo = { fetch: injectFetch, out: (line) => void out.push(line), err: (line) => void err.push(line) };
    const code = await runAdminCommand(command, { baseUrl: 'http://127.0.0.1:3000', token }, io);
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  it('lists the queue as a table, approves, rejects and makes a resume link', async () => {
    const a = await waitingDriver();
    const b = await waitingDriver();
    const listed = await run({ kind: 'list', status: 'pending' });
    expect(listed.code).toBe(0);
    const lines = listed.out.split('\n');
    expect(lines[0]).toMatch(/^id\s+name\s+email\s+status\s+submitted$/);
    expect(lines.find((line) => line.startsWith(a.driverId))).toMatch(new RegExp(`^${a.driverId}\\s+Ada Lovelace\\s+${a.email.replace(/[.]/g, '\\.')}\\s+pending\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC$`));

    expect(await run({ kind: 'approve', driverId: a.driverId })).toEqual({ code: 0, out: `Approved driver ${a.driverId}.`, err: '' });
    expect(json(await status(a)).data).toMatchObject({ status: 'approved' });

    expect(await run({ kind: 'reject', driverId: b.driverId, reason: 'Plate not readable' })).toEqual({
      code: 0,
      out: `Rejected driver ${b.driverId}: Plate not readable`,
      err: '',
    });
    expect(json(await status(b)).data).toMatchObject({ status: 'rejected', rejectionReason: 'Plate not readable' });

    const link = await run({ kind: 'resume-link', driverId: b.driverId });
    expect(link.code).toBe(0);
    expect(link.out).toMatch(new RegExp(`^Resume link for ${b.driverId} \\(valid until .+ UTC\\): http://localhost(:80)?/${b.driverId}/\\S+$`));
  });

  it('prints the server’s message on one line and exits 1', async () => {
    expect(await run({ kind: 'approve', driverId: randomUUID() })).toEqual({ code: 1, out: '', err: 'Error: There is no driver with this id. (HTTP 404)' });
    expect(await run({ kind: 'list', status: 'pending' }, 'wrong-token')).toEqual({ code: 1, out: '', err: 'Error: Admin token required. (HTTP 401)' });
  });

  it('says so when the server cannot be reached', async () => {
    const io: AdminIo = { fetch: (async () => Promise.reject(new TypeError('fetch failed'))) as typeof fetch, out: () => undefined, err: (line) => void errors.push(line) };
    const errors: string[] = [];
    const code = await runAdminCommand({ kind: 'list', status: 'pending' }, { baseUrl: 'http://127.0.0.1:1', token: adminToken }, io);
    expect(code).toBe(1);
    expect(errors).toEqual(['Error: Cannot reach the server at http://127.0.0.1:1: is it running (npm start)? Set ONRAMP_URL for another address.']);
  });
});

describe('the log', () => {
  it('holds no admin token, session or resume token, and no SSN', async () => {
    const driver = await waitingDriver();
    const linked = json<{ url: string }>(await admin('POST', `/admin/drivers/${driver.driverId}/resume-link`));
    const resumeToken = decodeURIComponent(linked.url.split('/').pop()!);
    // The browser opens the resume link: a page request whose path carries the token.
    await app.inject({ method: 'GET', url: new URL(linked.url).pathname, headers: { accept: 'text/html' } });
    // ...and the page trades it for a session.
    const exchanged = await status(driver, resumeToken);
    expect(exchanged.statusCode).toBe(200);
    const session = json<{ token: string }>(exchanged).token;
    await decide(app, adminToken, driver.driverId, 'reject', 'Secret reason 4711');
    await admin('GET', '/admin/drivers?status=rejected');
    const log = server.logs.join('\n');
    expect(log).toContain(`/${driver.driverId}/[token]`);
    for (const secret of [adminToken, resumeToken, session, driver.token, FULL_SSN]) expect(log).not.toContain(secret);
  });
});
