import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance, InjectOptions } from 'fastify';
import sharp from 'sharp';
import { runAdminCommand } from '../../../src/cli/admin.js';
import type { AdminIo } from '../../../src/cli/adminApi.js';
import { createDataCipher } from '../../../src/server/lib/dataCipher.js';
import type { QueueDriver, QueuePage, ReviewDriver, ReviewedField, StepAnswersAnswer } from '../../../src/shared/review.js';
import { reviewContract } from '../../../src/shared/contracts/index.js';
import {
  bearer,
  completeProfile,
  decide,
  file,
  formData,
  JPEG_BYTES,
  json,
  outbox,
  PNG_BYTES,
  post,
  profileValues,
  reviewVersion,
  sendVehicle,
  staffSession,
  verifiedDriver,
  startTestServer,
  statusData,
  VEHICLE_IMAGE_FIELDS,
  vehicleImageValues,
  vehicleValues,
  type TestDriver,
  type TestServer,
} from '../../support/server.js';
import { expectStaffMessagesFromFiles } from '../../support/staffMessages.js';

let server: TestServer;
let app: FastifyInstance;
/** A reviewer's key (the test server's reviewer), as a script acts. */
let adminToken: string;

beforeAll(async () => {
  server = await startTestServer();
  app = server.app;
  adminToken = server.reviewer.key;
});
afterAll(() => server.close());
afterEach(() => server.clock.reset());
expectStaffMessagesFromFiles(() => server);

const MINUTE = 60_000;
const FULL_SSN = '123456789'; // profileValues' SSN
const SIGN_IN_REQUIRED = { message: 'Please sign in as a staff member.', reason: 'signInAgain' };
const SESSION_ENDED = { message: 'Your staff session has ended. Please sign in again.', reason: 'signInAgain' };
const DRIVERS_CANNOT = { message: 'Drivers cannot use the admin API.' };
const UNKNOWN_DRIVER = { message: 'There is no driver with this id.' };
/** profileValues' answers as a reviewer sees them: the SSN and the licence number masked. */
const PROFILE_AS_REVIEWED = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  MI: 'B',
  dateOfBirth: '1990-04-12',
  gender: 'Female',
  SSN: '•••••6789',
  driverLicenseNumber: '•••••4567',
  street: '1 Main Street',
  city: 'Austin',
  state: 'TX',
  zipCode: '73301',
};

const asAdmin = () => bearer(adminToken);

function admin(method: 'GET' | 'POST', url: string, payload?: InjectOptions['payload'], headers: Record<string, string> = asAdmin()) {
  return app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
}

const status = (driver: TestDriver, token = driver.token) => app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(token) });

/** Every driver in a review state, page after page (GET /admin/drivers, following `next`). */
async function list(state?: string): Promise<QueueDriver[]> {
  const drivers: QueueDriver[] = [];
  let after: string | null = null;
  do {
    const query = new URLSearchParams({ ...(state ? { status: state } : {}), ...(after ? { after } : {}) });
    const response = await admin('GET', `/admin/drivers${query.toString() ? `?${query}` : ''}`);
    expect(response.statusCode, response.body).toBe(200);
    const page = json<QueuePage>(response);
    drivers.push(...page.drivers);
    after = page.next;
  } while (after);
  return drivers;
}

/** One driver as the review page shows them (GET /admin/drivers/:id). */
async function detail(driverId: string): Promise<ReviewDriver> {
  const response = await admin('GET', `/admin/drivers/${driverId}`);
  expect(response.statusCode, response.body).toBe(200);
  return json<ReviewDriver>(response);
}

/** A field of a step as the review page shows it. */
function fieldOf(driver: ReviewDriver, step: string, field: string): ReviewedField {
  const found = driver.steps.find((each) => each.step === step)?.fields.find((each) => each.field === field);
  if (!found) throw new Error(`${step} ${field} is not in the review of ${driver.id}`);
  return found;
}

/** A step's text and masked answers, by field. */
const answersIn = (driver: ReviewDriver, step: string) =>
  Object.fromEntries(
    driver.steps
      .find((each) => each.step === step)!
      .fields.filter((each) => each.kind !== 'file')
      .map((each) => [each.field, each.value]),
  );

/** Every document the review page links to, with the step and field it was sent as. */
const documentsOf = (driver: ReviewDriver) =>
  driver.steps.flatMap((step) => step.fields.flatMap((each) => (each.file ? [{ step: step.step, field: each.field, ...each.file }] : [])));

/** A driver who sent the vehicle: waiting for review. */
async function waitingDriver(): Promise<TestDriver & { vehicleId: string }> {
  const driver = await verifiedDriver(app);
  const vehicleId = await sendVehicle(app, driver);
  return { ...driver, vehicleId };
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

  it('answers 401 "Please sign in as a staff member." without an Authorization header, or with a non-Bearer one', async () => {
    for (const [name, method, url, payload] of endpoints()) {
      for (const headers of [{}, { authorization: `Basic ${adminToken}` }] as Record<string, string>[]) {
        const response = await admin(method, url, payload, headers);
        expect(response.statusCode, name).toBe(401);
        expect(json(response), name).toEqual(SIGN_IN_REQUIRED);
      }
    }
  });

  it('answers 401 to a wrong key, and a key of the right length', async () => {
    const wrong = [bearer('not-a-staff-key'), bearer(`${adminToken.slice(0, -1)}${adminToken.endsWith('x') ? 'y' : 'x'}`)];
    for (const [name, method, url, payload] of endpoints()) {
      for (const headers of wrong) {
        const response = await admin(method, url, payload, headers);
        expect(response.statusCode, name).toBe(401);
        expect(json(response), name).toEqual(SESSION_ENDED);
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

  it('ignores a staff key in a cookie', async () => {
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

  beforeAll(async () => {
    first = await verifiedDriver(app);
    await sendVehicle(app, first);
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
      name: 'Ada Lovelace',
      provider: 'password',
      status: 'pending',
      rejectionReason: null,
      reviewVersion: expect.any(Number),
      isSessionComplete: true,
      isSubscriptionPaid: false,
      createdAt: expect.any(String),
      submittedAt: expect.any(String),
    });
    // The profile, the photos and the vehicle, as their forms ask them, in the flow's order.
    const driver = await detail(first.driverId);
    // Opening a waiting driver claims them for the reviewer (tests/server/routes/staff.test.ts).
    expect(driver).toEqual({
      ...listed,
      claim: { by: server.reviewer.email, byMe: true, expiresAt: expect.any(String) },
      steps: expect.any(Array),
      decisions: [],
    });
    expect(driver.steps.map((step) => [step.step, step.title, step.schema.name, step.reviewed])).toEqual([
      ['completeProfile', 'Complete profile', 'profile', true],
      ['uploadVehicleImages', 'Upload vehicle images', 'vehicle-images', true],
      ['addVehicle', 'Add vehicle', 'vehicle', true],
    ]);
    expect(driver.submittedAt).toBe(driver.steps.at(-1)!.submittedAt);
    expect(answersIn(driver, 'completeProfile')).toEqual(PROFILE_AS_REVIEWED);
    expect(fieldOf(driver, 'completeProfile', 'firstName')).toEqual({ field: 'firstName', title: 'First Name', kind: 'text', value: 'Ada', changed: false });
    expect(fieldOf(driver, 'completeProfile', 'SSN')).toEqual({ field: 'SSN', title: 'SSN', kind: 'sensitive', value: '•••••6789', changed: false });
    expect(fieldOf(driver, 'completeProfile', 'driverLicenseNumber')).toMatchObject({ kind: 'sensitive', value: '•••••4567' });
    const sent = vehicleValues(randomUUID());
    expect(answersIn(driver, 'addVehicle')).toEqual({
      vehicleMake: 'Toyota',
      vehicleName: 'Prius',
      modelYear: '2020',
      plateNumber: 'ABC1234',
      isWheelChairAccessible: false,
      driverLicenseExpiryDate: sent.driverLicenseExpiryDate,
      vehicleRegistrationExpiryDate: sent.vehicleRegistrationExpiryDate,
      proofInsuranceExpiryDate: sent.proofInsuranceExpiryDate,
    });
    expect(fieldOf(driver, 'addVehicle', 'plateNumber').title).toBe('Plate Number');
    // 3 from the profile, 6 photos, 4 from the vehicle form: every one, each at its admin address.
    const stored = await uploadsOf(first.driverId);
    const documents = documentsOf(driver);
    expect(documents).toHaveLength(13);
    expect(documents.map((doc) => doc.url).sort()).toEqual(stored.map((row) => `/admin/uploads/${row.id}`).sort());
    expect(new Set(documents.map((doc) => doc.field)).size).toBe(13);
    for (const doc of documents) {
      const row = stored.find((each) => doc.url === `/admin/uploads/${each.id}`)!;
      expect(doc).toEqual({ step: doc.step, field: row.field, url: `/admin/uploads/${row.id}`, mime: row.mime });
      expect(doc.mime).toMatch(/^image\//);
      expect(fieldOf(driver, doc.step, doc.field)).toMatchObject({ kind: 'file', value: null, changed: false, title: expect.any(String) });
    }
  });

  it('never sends the full SSN', async () => {
    const listed = await admin('GET', '/admin/drivers?status=pending');
    const one = await admin('GET', `/admin/drivers/${first.driverId}`);
    expect(one.body).toContain('•••••6789');
    for (const response of [listed, one]) {
      expect(response.body).not.toContain(FULL_SSN);
      expect(response.body).not.toMatch(/ssn_?ciphertext|\$sealed|\$fingerprint/i);
    }
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

  it('shows the photos sent again in place of the earlier ones, on the same vehicle', async () => {
    const driver = await waitingDriver();
    const before = documentsOf(await detail(driver.driverId));
    // Photos uploaded again: they replace the earlier ones (one vehicle per driver), and the earlier files go.
    const again = await post(
      app,
      '/driver/completeVehicleDocs',
      driver.token,
      formData(Object.fromEntries(VEHICLE_IMAGE_FIELDS.map((field) => [field, { bytes: JPEG_BYTES, name: 'x.jpg', type: 'image/jpeg' }]))),
    );
    expect(json(again)).toEqual({ success: true, data: { vehicle: { id: driver.vehicleId } } });
    const documents = documentsOf(await detail(driver.driverId));
    expect(documents).toHaveLength(13);
    expect((await uploadsOf(driver.driverId)).length).toBe(13);
    const photos = (docs: typeof documents) => docs.filter((doc) => doc.step === 'uploadVehicleImages').map((doc) => doc.url);
    expect(photos(documents)).toHaveLength(6);
    for (const url of photos(documents)) expect(photos(before)).not.toContain(url);
    const others = (docs: typeof documents) => docs.filter((doc) => doc.step !== 'uploadVehicleImages').map((doc) => doc.url);
    expect(others(documents)).toEqual(others(before));
  });

  it.each([['status=approve'], ['status='], ['status=pending&status=approved'], ['status=PENDING']])('refuses ?%s with 400', async (query) => {
    const response = await admin('GET', `/admin/drivers?${query}`);
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message: 'status must be one of: pending, approved, rejected.' });
  });

  it.each([
    ['limit=0', 'limit must be a whole number from 1 to 200.'],
    ['limit=201', 'limit must be a whole number from 1 to 200.'],
    ['limit=ten', 'limit must be a whole number from 1 to 200.'],
    [`q=${'x'.repeat(101)}`, 'q must be plain text of at most 100 characters.'],
    ['q=a%0Ab', 'q must be plain text of at most 100 characters.'],
    ['after=not%20a%20page', 'after must be the "next" of an earlier page.'],
  ])('refuses ?%s with 400 { message }', async (query, message) => {
    const response = await admin('GET', `/admin/drivers?${query}`);
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message });
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
    expect(json(await status(driver))).toEqual({ data: statusData({ status: 'approved', isSessionComplete: true, vehicleId: driver.vehicleId }) });
    expect((await list('pending')).map((each) => each.id)).not.toContain(driver.driverId);
    expect((await list('approved')).find((each) => each.id === driver.driverId)).toMatchObject({ status: 'approved', rejectionReason: null });
  });

  it('records when and which staff member decided, and the review page shows it', async () => {
    const driver = await waitingDriver();
    await decide(app, adminToken, driver.driverId, 'approve');
    const { rows } = await server.db.query<{ reviewed_at: Date; reviewed_by: string }>('SELECT reviewed_at, reviewed_by FROM drivers WHERE id = $1', [
      driver.driverId,
    ]);
    expect(rows[0]!.reviewed_at).toBeInstanceOf(Date);
    expect(rows[0]!.reviewed_by).toBe(server.reviewer.email);
    const history = await server.db.query('SELECT decision, reason, reviewed_by FROM driver_reviews WHERE driver_id = $1', [driver.driverId]);
    expect(history.rows).toEqual([{ decision: 'approved', reason: null, reviewed_by: server.reviewer.email }]);
    expect((await detail(driver.driverId)).decisions).toEqual([
      { decision: 'approved', reason: null, by: server.reviewer.email, at: rows[0]!.reviewed_at.toISOString() },
    ]);
  });

  it('rejects with a reason: GET /driver/status says rejected and gives the reason', async () => {
    const driver = await waitingDriver();
    const response = await decide(app, adminToken, driver.driverId, 'reject', '  The licence photo is blurry.  ');
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ success: true, status: 'rejected' });
    expect(json(await status(driver))).toEqual({
      data: statusData({ status: 'rejected', isSessionComplete: true, rejectionReason: 'The licence photo is blurry.', vehicleId: driver.vehicleId }),
    });
    expect((await list('rejected')).find((each) => each.id === driver.driverId)).toMatchObject({ rejectionReason: 'The licence photo is blurry.' });
  });

  describe('a rejected driver', () => {
    let driver: TestDriver & { vehicleId: string };
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
      expect(rows.map((row) => row.id)).toEqual([driver.vehicleId]);
      const response = await post(app, '/driver/completeVehicle', driver.token, formData(vehicleValues(rows[0]!.id)));
      expect(response.statusCode).toBe(200);
      expect(json(await status(driver))).toEqual({ data: statusData({ status: 'pending', isSessionComplete: true, vehicleId: driver.vehicleId }) });
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
      const approved = await detail(driver.driverId);
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
      expect(await detail(driver.driverId)).toEqual(approved);
      expect(answersIn(approved, 'completeProfile')).toMatchObject({ firstName: 'Ada', SSN: '•••••6789' });
    });

    it('refuses a decision made on data the driver changed since it was listed (409), and decides nothing', async () => {
      const driver = await waitingDriver();
      const listed = (await list('pending')).find((each) => each.id === driver.driverId)!;
      await completeProfile(app, driver, { lastName: 'Changed' });
      for (const [action, extra] of [
        ['approve', {}],
        ['reject', { reason: 'Blurry' }],
      ] as const) {
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

    it.each(['2147483648', '1e20', '1.7976931348623157e308'])(
      'refuses an approval or a rejection with a version of %s, beyond any driver’s (400), and decides nothing',
      async (version) => {
        const driver = await waitingDriver();
        for (const [action, extra] of [
          ['approve', ''],
          ['reject', ',"reason":"Blurry"'],
        ] as const) {
          const response = await admin('POST', `/admin/drivers/${driver.driverId}/${action}`, `{"reviewVersion":${version}${extra}}`, {
            ...asAdmin(),
            'content-type': 'application/json',
          });
          expect(response.statusCode).toBe(400);
          expect(json(response)).toEqual({ message: 'reviewVersion must be the reviewVersion of the driver as listed (a whole number).' });
        }
        expect(json(await status(driver)).data).toMatchObject({ status: 'pending' });
      },
    );

    it('shows one driver, whatever their state, as the list does (GET /admin/drivers/:id)', async () => {
      const driver = await waitingDriver();
      const one = await admin('GET', `/admin/drivers/${driver.driverId}`);
      expect(one.statusCode).toBe(200);
      expect(json(one)).toEqual({ ...(await list('pending')).find((each) => each.id === driver.driverId), steps: expect.any(Array), decisions: [] });
      await decide(app, adminToken, driver.driverId, 'reject', 'Blurry');
      expect(await detail(driver.driverId)).toEqual({
        ...(await list('rejected')).find((each) => each.id === driver.driverId),
        steps: expect.any(Array),
        decisions: [{ decision: 'rejected', reason: 'Blurry', by: server.reviewer.email, at: expect.any(String) }],
      });
      const early = await verifiedDriver(app);
      expect(await detail(early.driverId)).toMatchObject({ id: early.driverId, name: null, submittedAt: null, isSessionComplete: false, steps: [] });
      expect((await admin('GET', `/admin/drivers/${randomUUID()}`)).statusCode).toBe(404);
    });
  });

  it.each([
    ['no body', undefined, 'Please give a reason for the rejection, or name the fields to fix.'],
    ['no reason', {}, 'Please give a reason for the rejection, or name the fields to fix.'],
    ['an empty reason', { reason: '' }, 'Please give a reason for the rejection, or name the fields to fix.'],
    ['a blank reason', { reason: '   ' }, 'Please give a reason for the rejection, or name the fields to fix.'],
    ['a null reason', { reason: null }, 'Please give a reason for the rejection, or name the fields to fix.'],
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

  it('refuses a rejection body with an extra property by the route’s schema (contracts/review.schema.json rejectBody), before it looks for the driver', async () => {
    const driver = await waitingDriver();
    const listed = (await list('pending')).find((each) => each.id === driver.driverId)!;
    const unknownName = reviewContract.$defs.rejectBody.propertyNames.errorMessage;
    for (const id of [driver.driverId, randomUUID()]) {
      const response = await admin('POST', `/admin/drivers/${id}/reject`, { reason: 'Blurry', reviewVersion: listed.reviewVersion, approvedBy: 'me' });
      expect(response.statusCode).toBe(400);
      expect(json(response)).toEqual({ message: unknownName.replace('{name}', 'approvedBy') });
    }
    const extraInFix = await admin('POST', `/admin/drivers/${driver.driverId}/reject`, {
      reviewVersion: listed.reviewVersion,
      fixes: [{ step: 'completeProfile', field: 'lastName', reason: 'Typo', severity: 'high' }],
    });
    expect(extraInFix.statusCode).toBe(400);
    expect(json(extraInFix)).toEqual({ message: reviewContract.$defs.fixRequest.errorMessage.additionalProperties });
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
      const response = await admin(
        'POST',
        `/admin/drivers/${encodeURIComponent(id)}/${action}`,
        action === 'reject' ? { reason: 'x', reviewVersion: 0 } : action === 'approve' ? { reviewVersion: 0 } : undefined,
      );
      expect(response.statusCode, id).toBe(404);
      expect(json(response)).toEqual(UNKNOWN_DRIVER);
    }
  });

  it('answers 409 to a decision on a driver who has not sent the vehicle yet', async () => {
    const driver = await verifiedDriver(app);
    await completeProfile(app, driver);
    for (const [action, payload] of [
      ['approve', { reviewVersion: 0 }],
      ['reject', { reason: 'Too early', reviewVersion: 0 }],
    ] as const) {
      const response = await admin('POST', `/admin/drivers/${driver.driverId}/${action}`, payload);
      expect(response.statusCode).toBe(409);
      expect(json(response)).toEqual({ message: 'This driver has not sent their vehicle for approval yet.' });
    }
    expect(json(await status(driver)).data).toMatchObject({ status: 'pending', isSessionComplete: false });
  });
});

describe('POST /admin/drivers/:id/reject with fixes, field by field', () => {
  const LAST_NAME_FIX = 'The last name does not match the licence.';
  const LICENCE_FIX = 'The licence photo is blurry.';

  /** A rejection as the review page sends it: with the review version it read. */
  const reject = async (driverId: string, body: Record<string, unknown>) =>
    admin('POST', `/admin/drivers/${driverId}/reject`, { reviewVersion: await reviewVersion(app, driverId), ...body });
  const fixesIn = async (driverId: string) =>
    (
      await server.db.query<{ step: string; field: string; reason: string }>(
        'SELECT step, field, reason FROM review_fixes WHERE driver_id = $1 ORDER BY step, field',
        [driverId],
      )
    ).rows;
  const answersOf = (driver: TestDriver, step: string) => app.inject({ method: 'GET', url: `/driver/answers/${step}`, headers: bearer(driver.token) });
  const storedAnswers = async (driverId: string, step: string) =>
    (
      await server.db.query<{ answers: Record<string, unknown>; files: Record<string, string> }>(
        'SELECT answers, files FROM step_answers WHERE driver_id = $1 AND step = $2',
        [driverId, step],
      )
    ).rows[0]!;

  describe('a body that names no fix to make', () => {
    let driver: TestDriver;
    beforeAll(async () => {
      driver = await waitingDriver();
      // The payout account is shown to reviewers but not judged: a stored one, as the bank step leaves it.
      await server.db.query(
        `INSERT INTO step_answers (driver_id, step, schema_name, schema_version, answers, submitted_at)
         VALUES ($1, 'addBank', 'bank', 'test', '{"accountHolderName": "Dana Driver", "routingNumber": "111000025"}', now())`,
        [driver.driverId],
      );
    });

    const fixesNotList = 'fixes must be a list of { step, field, reason }.';
    const notSent = 'A fix names a field of a reviewed step the driver did not send: ';
    it.each([
      ['no reason and no fixes', { fixes: [] }, 'Please give a reason for the rejection, or name the fields to fix.'],
      ['a blank reason and no fixes', { reason: '  ', fixes: [] }, 'Please give a reason for the rejection, or name the fields to fix.'],
      ['fixes that are no list', { fixes: { step: 'completeProfile', field: 'lastName', reason: 'x' } }, fixesNotList],
      ['a fix that is no object', { fixes: ['completeProfile lastName'] }, fixesNotList],
      ['a fix with an unknown key', { fixes: [{ step: 'completeProfile', field: 'lastName', reason: 'x', severity: 'high' }] }, fixesNotList],
      ['a fix without a reason', { fixes: [{ step: 'completeProfile', field: 'lastName' }] }, 'Each fix needs a reason: completeProfile lastName'],
      [
        'a fix with a blank reason',
        { reason: 'Please fix', fixes: [{ step: 'completeProfile', field: 'lastName', reason: '   ' }] },
        'Each fix needs a reason: completeProfile lastName',
      ],
      [
        'a fix whose reason is not text',
        { fixes: [{ step: 'completeProfile', field: 'lastName', reason: 7 }] },
        'The reason must be text. (completeProfile lastName)',
      ],
      [
        'a fix naming a field the driver did not send',
        { fixes: [{ step: 'completeProfile', field: 'suffix', reason: 'x' }] },
        `${notSent}completeProfile suffix`,
      ],
      [
        'a fix naming a field of another step',
        { fixes: [{ step: 'uploadVehicleImages', field: 'lastName', reason: 'x' }] },
        `${notSent}uploadVehicleImages lastName`,
      ],
      [
        'a fix of a step that is not reviewed',
        { fixes: [{ step: 'addBank', field: 'accountHolderName', reason: 'x' }] },
        `${notSent}addBank accountHolderName`,
      ],
      ['a fix of a step with no answers stored', { fixes: [{ step: 'signup', field: 'email', reason: 'x' }] }, `${notSent}signup email`],
      ['a fix of a step that does not exist', { fixes: [{ step: 'constructor', field: 'name', reason: 'x' }] }, `${notSent}constructor name`],
      [
        'one good fix and one bad',
        {
          fixes: [
            { step: 'completeProfile', field: 'lastName', reason: 'x' },
            { step: 'addVehicle', field: 'vehicleColor', reason: 'x' },
          ],
        },
        `${notSent}addVehicle vehicleColor`,
      ],
    ])('refuses a rejection with %s (400), and changes nothing', async (_name, body, message) => {
      const response = await reject(driver.driverId, body);
      expect(response.statusCode).toBe(400);
      expect(json(response)).toEqual({ message });
      const data = json<{ data: Record<string, unknown> }>(await status(driver)).data;
      expect(data).toMatchObject({ status: 'pending' });
      expect(data).not.toHaveProperty('fixes');
      expect(await fixesIn(driver.driverId)).toEqual([]);
    });
  });

  describe('the fix round', () => {
    let driver: TestDriver & { vehicleId: string };
    /** The review version the reviewer read before the rejection. */
    let rejectedAt: number;
    beforeAll(async () => {
      driver = await waitingDriver();
    });

    it('rejects with fixes alone: the driver is told what to fix, each field by its title, first step first', async () => {
      // Named in any order: the driver gets them in the flow's.
      const response = await reject(driver.driverId, {
        fixes: [
          { step: 'addVehicle', field: 'driverLicenseCardFront', reason: LICENCE_FIX },
          { step: 'completeProfile', field: 'lastName', reason: ` ${LAST_NAME_FIX} ` },
        ],
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(json(response)).toEqual({ success: true, status: 'rejected' });
      rejectedAt = await reviewVersion(app, driver.driverId);
      const fixes = [
        { step: 'completeProfile', field: 'lastName', title: 'Last Name', reason: LAST_NAME_FIX },
        { step: 'addVehicle', field: 'driverLicenseCardFront', title: 'Driver License (front)', reason: LICENCE_FIX },
      ];
      // With no reason of its own, the email tells the fixes in words, each field by its title; the status lists them.
      const reason = `Driver License (front): ${LICENCE_FIX}\nLast Name: ${LAST_NAME_FIX}`;
      expect(json(await status(driver))).toEqual({
        data: statusData({ status: 'rejected', isSessionComplete: true, vehicleId: driver.vehicleId, rejectionReason: '', fixes, nextFix: 'completeProfile' }),
      });
      await app.messaging.deliverDue();
      const notice = (await outbox(app)).find((entry) => entry.to === driver.email && 'notice' in entry && entry.notice === 'rejected');
      expect(notice && 'text' in notice ? notice.text : '').toContain(reason);
      // The reviewer sees each fix on its field, until the driver sends it.
      const review = await detail(driver.driverId);
      expect(review).toMatchObject({ status: 'rejected', rejectionReason: null });
      expect(fieldOf(review, 'completeProfile', 'lastName')).toEqual({
        field: 'lastName',
        title: 'Last Name',
        kind: 'text',
        value: 'Lovelace',
        changed: false,
        fix: LAST_NAME_FIX,
      });
      expect(fieldOf(review, 'addVehicle', 'driverLicenseCardFront')).toMatchObject({ kind: 'file', changed: false, fix: LICENCE_FIX });
      expect(review.steps.flatMap((step) => step.fields).filter((field) => field.fix)).toHaveLength(2);
    });

    it('answers each step as the driver sent it, to prefill its form: the SSN masked, the files by id, and the fixes asked of it', async () => {
      const response = await answersOf(driver, 'completeProfile');
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      const uploads = (await uploadsOf(driver.driverId)).filter((row) =>
        ['profilePicture', 'socialSecurityCardFront', 'socialSecurityCardBack'].includes(row.field),
      );
      expect(uploads).toHaveLength(3);
      expect(json(response)).toEqual({
        answers: PROFILE_AS_REVIEWED,
        files: Object.fromEntries(uploads.map((row) => [row.field, { id: row.id, url: `/driver/uploads/${row.id}`, mime: row.mime }])),
        fixes: [{ field: 'lastName', reason: LAST_NAME_FIX }],
      } satisfies StepAnswersAnswer);
      expect(response.body).not.toContain(FULL_SSN);
      expect(response.body).not.toMatch(/\$sealed|\$fingerprint/);
      expect(json<StepAnswersAnswer>(await answersOf(driver, 'addVehicle')).fixes).toEqual([{ field: 'driverLicenseCardFront', reason: LICENCE_FIX }]);
      expect(json<StepAnswersAnswer>(await answersOf(driver, 'uploadVehicleImages'))).toMatchObject({ answers: {}, fixes: [] });
      expect(Object.keys(json<StepAnswersAnswer>(await answersOf(driver, 'uploadVehicleImages')).files)).toHaveLength(6);
    });

    it('answers nothing of a step never sent, only the driver’s own answers, and 404 for a step that does not exist', async () => {
      const fresh = await verifiedDriver(app);
      expect(json(await answersOf(fresh, 'completeProfile'))).toEqual({ answers: null, files: {}, fixes: [] });
      for (const step of ['nowhere', 'constructor', '__proto__']) {
        const response = await answersOf(driver, step);
        expect(response.statusCode, step).toBe(404);
        expect(json(response)).toEqual({ message: 'There is no such step.' });
      }
      const anonymous = await app.inject({ method: 'GET', url: '/driver/answers/completeProfile' });
      expect(anonymous.statusCode).toBe(401);
    });

    it('refuses a kept file that is not the driver’s own in that field (400), and changes nothing', async () => {
      const stranger = await verifiedDriver(app);
      await completeProfile(app, stranger);
      const theirs = (await uploadsOf(stranger.driverId)).find((row) => row.field === 'profilePicture')!;
      const mine = (await uploadsOf(driver.driverId)).find((row) => row.field === 'socialSecurityCardFront')!;
      const versionBefore = await reviewVersion(app, driver.driverId);
      for (const kept of [theirs.id, mine.id, randomUUID(), 'not-an-id']) {
        const response = await post(
          app,
          '/driver/completeProfile',
          driver.token,
          formData(profileValues({ lastName: 'Byron', profilePicture: `kept:${kept}` })),
        );
        expect(response.statusCode, kept).toBe(400);
        expect(json(response)).toEqual({ message: 'A file you kept from before is no longer there. Please add it again: profilePicture' });
      }
      expect(await reviewVersion(app, driver.driverId)).toBe(versionBefore);
      expect((await storedAnswers(driver.driverId, 'completeProfile')).answers.lastName).toBe('Lovelace');
      expect(await fixesIn(driver.driverId)).toHaveLength(2);
      // The stranger's picture is still theirs alone.
      const picture = await app.inject({ method: 'GET', url: `/driver/uploads/${theirs.id}`, headers: bearer(driver.token) });
      expect(picture.statusCode).toBe(403);
    });

    it('takes the profile again with its files kept and the SSN sent back masked: the fix is sent, the SSN unchanged, and the driver goes on to the next fix', async () => {
      const before = await storedAnswers(driver.driverId, 'completeProfile');
      const ssnBefore = before.answers.SSN as { $sealed: string; $masked: string; $fingerprint: string };
      const { files } = json<StepAnswersAnswer>(await answersOf(driver, 'completeProfile'));
      const response = await post(
        app,
        '/driver/completeProfile',
        driver.token,
        formData(
          profileValues({
            lastName: 'Byron',
            SSN: '•••••6789',
            profilePicture: `kept:${files.profilePicture!.id}`,
            socialSecurityCardFront: `kept:${files.socialSecurityCardFront!.id}`,
            socialSecurityCardBack: `kept:${files.socialSecurityCardBack!.id}`,
          }),
        ),
      );
      expect(response.statusCode, response.body).toBe(200);
      expect(json(response)).toEqual({
        success: true,
        message: 'Your personal profile is saved.',
        fixing: true,
        data: statusData({
          status: 'rejected',
          isSessionComplete: true,
          vehicleId: driver.vehicleId,
          rejectionReason: '',
          fixes: [{ step: 'addVehicle', field: 'driverLicenseCardFront', title: 'Driver License (front)', reason: LICENCE_FIX }],
          nextFix: 'addVehicle',
        }),
      });
      expect(json(await status(driver)).data).toEqual(json<{ data: unknown }>(response).data);
      const after = await storedAnswers(driver.driverId, 'completeProfile');
      expect(after.answers.lastName).toBe('Byron');
      // The same SSN, sealed again: its fingerprint and mask are unchanged, and it opens to the number sent first.
      const ssnAfter = after.answers.SSN as typeof ssnBefore;
      expect(ssnAfter.$fingerprint).toBe(ssnBefore.$fingerprint);
      expect(ssnAfter.$masked).toBe('•••••6789');
      const cipher = createDataCipher(server.config.dataKeys);
      expect(cipher.decrypt(Buffer.from(ssnAfter.$sealed, 'base64'), `answers:${driver.driverId}:completeProfile:SSN`).toString()).toBe(FULL_SSN);
      expect(JSON.stringify(after)).not.toContain(FULL_SSN);
      // The very files kept, and no others.
      expect(after.files).toEqual(before.files);
      const keptIds = new Set(Object.values(before.files));
      expect((await uploadsOf(driver.driverId)).filter((row) => keptIds.has(row.id))).toHaveLength(3);
      expect((await uploadsOf(driver.driverId)).length).toBe(13);
      expect(await fixesIn(driver.driverId)).toEqual([{ step: 'addVehicle', field: 'driverLicenseCardFront', reason: LICENCE_FIX }]);
      expect(json<StepAnswersAnswer>(await answersOf(driver, 'completeProfile')).fixes).toEqual([]);
    });

    it('refuses a masked value that is not the one stored, with the schema’s message', async () => {
      const { files } = json<StepAnswersAnswer>(await answersOf(driver, 'completeProfile'));
      const kept = Object.fromEntries(Object.entries(files).map(([field, each]) => [field, `kept:${each.id}`]));
      const response = await post(app, '/driver/completeProfile', driver.token, formData(profileValues({ lastName: 'Byron', SSN: '•••••1234', ...kept })));
      expect(response.statusCode).toBe(400);
      expect(json(response)).toEqual({ message: 'SSN must be 9 digits.', errors: { SSN: ['SSN must be 9 digits.'] } });
    });

    it('takes the vehicle again with a new licence photo and the other documents kept: the driver is back in the queue', async () => {
      const { files } = json<StepAnswersAnswer>(await answersOf(driver, 'addVehicle'));
      const oldFront = files.driverLicenseCardFront!.id;
      const response = await post(
        app,
        '/driver/completeVehicle',
        driver.token,
        formData(
          vehicleValues(driver.vehicleId, {
            driverLicenseCardFront: file(JPEG_BYTES, 'licence.jpg', 'image/jpeg'),
            driverLicenseCardBack: `kept:${files.driverLicenseCardBack!.id}`,
            proofInsurance: `kept:${files.proofInsurance!.id}`,
            vehicleRegistrationCard: `kept:${files.vehicleRegistrationCard!.id}`,
          }),
        ),
      );
      expect(response.statusCode, response.body).toBe(200);
      const pending = statusData({ status: 'pending', isSessionComplete: true, vehicleId: driver.vehicleId });
      expect(json(response)).toEqual({ success: true, message: 'Your profile and vehicle were sent for approval.', fixing: true, data: pending });
      expect(json(await status(driver))).toEqual({ data: pending });
      expect(await fixesIn(driver.driverId)).toEqual([]);
      expect((await list('pending')).find((each) => each.id === driver.driverId)).toMatchObject({
        status: 'pending',
        rejectionReason: null,
        name: 'Ada Byron',
      });
      expect((await list('rejected')).map((each) => each.id)).not.toContain(driver.driverId);
      // The replaced photo is gone; the kept ones stay.
      const after = (await storedAnswers(driver.driverId, 'addVehicle')).files;
      expect(after.driverLicenseCardFront).not.toBe(oldFront);
      expect(after).toMatchObject({
        driverLicenseCardBack: files.driverLicenseCardBack!.id,
        proofInsurance: files.proofInsurance!.id,
        vehicleRegistrationCard: files.vehicleRegistrationCard!.id,
      });
      expect((await uploadsOf(driver.driverId)).map((row) => row.id)).not.toContain(oldFront);
      expect((await uploadsOf(driver.driverId)).length).toBe(13);
    });

    it('shows the reviewer what changed since the rejection: the last name and the licence photo, nothing else', async () => {
      const review = await detail(driver.driverId);
      const changed = review.steps.flatMap((step) => step.fields.filter((field) => field.changed).map((field) => `${step.step} ${field.field}`));
      expect(changed.sort()).toEqual(['addVehicle driverLicenseCardFront', 'completeProfile lastName']);
      expect(review.steps.flatMap((step) => step.fields)).toHaveLength(3 + 11 + 6 + 12);
      expect(fieldOf(review, 'completeProfile', 'lastName')).toEqual({
        field: 'lastName',
        title: 'Last Name',
        kind: 'text',
        value: 'Byron',
        changed: true,
        previous: 'Lovelace',
      });
      expect(fieldOf(review, 'completeProfile', 'SSN')).toEqual({ field: 'SSN', title: 'SSN', kind: 'sensitive', value: '•••••6789', changed: false });
      expect(fieldOf(review, 'completeProfile', 'profilePicture')).toMatchObject({ kind: 'file', changed: false });
      expect(fieldOf(review, 'addVehicle', 'driverLicenseCardFront')).toMatchObject({ kind: 'file', changed: true, file: { mime: 'image/jpeg' } });
      expect(fieldOf(review, 'addVehicle', 'driverLicenseCardBack')).toMatchObject({ kind: 'file', changed: false });
      // Every fix was sent.
      expect(review.steps.flatMap((step) => step.fields).filter((field) => field.fix)).toEqual([]);
    });

    it('approves the driver on the review version the review page shows, not the one rejected', async () => {
      const stale = await admin('POST', `/admin/drivers/${driver.driverId}/approve`, { reviewVersion: rejectedAt });
      expect(stale.statusCode).toBe(409);
      const review = await detail(driver.driverId);
      expect(review.reviewVersion).toBeGreaterThan(rejectedAt);
      const approved = await admin('POST', `/admin/drivers/${driver.driverId}/approve`, { reviewVersion: review.reviewVersion });
      expect(approved.statusCode, approved.body).toBe(200);
      expect(json(await status(driver))).toEqual({ data: statusData({ status: 'approved', isSessionComplete: true, vehicleId: driver.vehicleId }) });
      // The decision saw these answers: nothing shows as changed any more.
      expect((await detail(driver.driverId)).steps.flatMap((step) => step.fields).filter((field) => field.changed)).toEqual([]);
    });
  });

  it('sends a driver asked to fix only the photos to the photos, and takes them again', async () => {
    const driver = await waitingDriver();
    const rejected = await reject(driver.driverId, {
      reason: 'Please retake one photo.',
      fixes: [{ step: 'uploadVehicleImages', field: 'vehicleImageRear', reason: 'The plate is hidden.' }],
    });
    expect(rejected.statusCode).toBe(200);
    expect(json(await status(driver)).data).toMatchObject({
      status: 'rejected',
      rejectionReason: 'Please retake one photo.',
      fixes: [{ step: 'uploadVehicleImages', field: 'vehicleImageRear', title: 'Rear', reason: 'The plate is hidden.' }],
      nextFix: 'uploadVehicleImages',
    });
    const { files } = json<StepAnswersAnswer>(await answersOf(driver, 'uploadVehicleImages'));
    const kept = Object.fromEntries(Object.entries(files).map(([field, each]) => [field, `kept:${each.id}`]));
    const response = await post(app, '/driver/completeVehicleDocs', driver.token, formData({ ...kept, vehicleImageRear: file(PNG_BYTES, 'rear.png') }));
    expect(response.statusCode, response.body).toBe(200);
    const pending = statusData({ status: 'pending', isSessionComplete: true, vehicleId: driver.vehicleId });
    // The usual answer (the photos' vehicle), with the status beside it: the flow's resume table reads it.
    expect(json(response)).toEqual({ success: true, fixing: true, data: { ...pending, vehicle: { id: driver.vehicleId } } });
    expect(json(await status(driver))).toEqual({ data: pending });
    expect((await storedAnswers(driver.driverId, 'uploadVehicleImages')).files).toEqual({
      ...Object.fromEntries(Object.entries(files).map(([field, each]) => [field, each.id])),
      vehicleImageRear: expect.not.stringMatching(files.vehicleImageRear!.id),
    });
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
    const response = await app.inject({
      method: 'POST',
      url: `/admin/drivers/${driver.driverId}/resume-link`,
      headers: { ...asAdmin(), host: 'evil.test/phish?' },
    });
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
    // Nor is it a staff member's (nor a driver session, which would be told 403).
    const asAdmin = await admin('GET', '/admin/drivers', undefined, bearer(link));
    expect(asAdmin.statusCode).toBe(401);
    expect(json(asAdmin)).toEqual(SESSION_ENDED);
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

  it('shows an admin any driver’s image, at the address the review page gives', async () => {
    const doc = fieldOf(await detail(owner.driverId), 'completeProfile', 'socialSecurityCardFront').file!;
    expect(doc).toEqual({ url: `/admin/uploads/${front.id}`, mime: 'image/jpeg' });
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
    expect(json(api)).toEqual(SIGN_IN_REQUIRED);
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
    expect(lines.find((line) => line.startsWith(a.driverId))).toMatch(
      new RegExp(`^${a.driverId}\\s+Ada Lovelace\\s+${a.email.replace(/[.]/g, '\\.')}\\s+pending\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC$`),
    );

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

  it('acts as a named person: whoami, and a key made from a session (never from a key)', async () => {
    expect(await run({ kind: 'whoami' })).toEqual({ code: 0, out: `${server.reviewer.email} (reviewer), with a key`, err: '' });
    const person = await staffSession(app, ['reviewer']);
    const made = await run({ kind: 'key-create', label: 'laptop' }, person.token);
    expect(made.code).toBe(0);
    const key = /ONRAMP_STAFF_TOKEN=(\S+)/.exec(made.out)?.[1] ?? '';
    expect(await run({ kind: 'whoami' }, key)).toEqual({ code: 0, out: `${person.email} (reviewer), with a key`, err: '' });
    expect(await run({ kind: 'key-create', label: 'another' }, key)).toEqual({
      code: 1,
      out: '',
      err: 'Error: A key is made by a person signed in (the admin page, or npm run admin -- sign-in), not with another key. (HTTP 403)',
    });
  });

  it('prints the server’s message on one line and exits 1', async () => {
    expect(await run({ kind: 'approve', driverId: randomUUID() })).toEqual({ code: 1, out: '', err: 'Error: There is no driver with this id. (HTTP 404)' });
    expect(await run({ kind: 'list', status: 'pending' }, 'wrong-token')).toEqual({
      code: 1,
      out: '',
      err: 'Error: Your staff session has ended. Please sign in again. (HTTP 401)',
    });
  });

  it('says so when the server cannot be reached', async () => {
    const io: AdminIo = {
      fetch: (async () => Promise.reject(new TypeError('fetch failed'))) as typeof fetch,
      out: () => undefined,
      err: (line) => void errors.push(line),
    };
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

  it('holds no query string: a token put in one (refused) and the other values beside it stay out', async () => {
    const driver = await waitingDriver();
    const before = server.logs.length;
    for (const url of [
      `/admin/drivers?status=pending&token=${adminToken}&q=Secret%20name`,
      `/driver/status/${driver.driverId}?token=${driver.token}&lang=es`,
      `/signup?token=${driver.token}&email=someone%40example.com`,
    ]) {
      await app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
    }
    const lines = server.logs.slice(before).join('\n');
    expect(lines).toContain('"url":"/admin/drivers"');
    expect(lines).toContain(`"url":"/driver/status/${driver.driverId}"`);
    expect(lines).toContain('"url":"/signup"');
    for (const secret of [adminToken, driver.token, 'Secret', 'someone', 'token=']) expect(lines).not.toContain(secret);
  });
});
