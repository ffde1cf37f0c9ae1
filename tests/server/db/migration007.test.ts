/**
 * Migrations move today's rows into the new shape without loss: a database at migration 006
 * holding drivers as the code before answers-as-data wrote them (profile columns with the SSN
 * encrypted under "ssn:<driver id>", vehicles with their columns, uploads by vehicle and field, a
 * payout account encrypted under "bank-account:<driver id>"), migrated to the end, then opened by
 * the server, which seals the moved SSN and account number again field by field at start.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/server/app.js';
import { readConfig, type ServerConfig } from '../../../src/server/config.js';
import { migrate, openPglite, type Db } from '../../../src/server/db/db.js';
import { openAnswers, type StoredAnswers } from '../../../src/server/lib/answers.js';
import { createDataCipher, type DataCipher } from '../../../src/server/lib/dataCipher.js';
import type { QueuePage, ReviewDriver, ReviewedField, ReviewedStep } from '../../../src/shared/review.js';
import { bearer, JPEG_BYTES, json, PNG_BYTES, staffKey, VEHICLE_IMAGE_FIELDS } from '../../support/server.js';
import { scaled } from '../../support/machineSpeed.js';

const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'src', 'server', 'db', 'migrations');

/** The migration files of versions 1 to `last`, as "001.do.onboarding.sql". */
async function migrationFiles(last: number): Promise<string[]> {
  return (await readdir(MIGRATIONS)).filter((name) => Number(name.split('.')[0]) <= last).sort();
}

/**
 * The database as the server's own runner left it before postgrator: each file run, and recorded
 * by its earlier name ("001_onboarding.sql") in schema_migrations.
 */
async function migrateAsBefore(db: Db, last: number): Promise<void> {
  await db.exec('CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
  for (const name of await migrationFiles(last)) {
    const [version, , description] = name.split('.');
    await db.exec(await readFile(join(MIGRATIONS, name), 'utf8'));
    await db.query('INSERT INTO schema_migrations (name) VALUES ($1)', [`${version}_${description}.sql`]);
  }
}

const FULL_SSN = { ada: '123456789', grace: '987654321', dan: '555443333' };
const ACCOUNT_NUMBER = '000987654321';
const at = (iso: string) => new Date(iso);

const ids = { ada: randomUUID(), grace: randomUUID(), kit: randomUUID(), dan: randomUUID() };
/** Ada's vehicles: one sent (then rejected), the one sent again, and photos sent once more but never the form. */
const adaVehicles = { first: randomUUID(), latest: randomUUID(), photosOnly: randomUUID() };
const graceVehicle = randomUUID();
const danVehicle = randomUUID();

const PROFILE_FILES = { profilePicture: 'image/png', socialSecurityCardFront: 'image/jpeg', socialSecurityCardBack: 'image/png' } as const;
const DOCUMENT_FIELDS = ['driverLicenseCardFront', 'driverLicenseCardBack', 'proofInsurance', 'vehicleRegistrationCard'];

interface LegacyUpload {
  id: string;
  driverId: string;
  vehicleId: string | null;
  field: string;
  storageName: string;
  bytes: Buffer;
}

let dataDir: string;
let config: ServerConfig;
let cipher: DataCipher;
let db: Db;
let app: FastifyInstance;
let appliedLater: string[];
/** A reviewer's key: the old rows are read as a reviewer reads them. */
let reviewerKey: string;
/** Another server start on the same database. */
let buildAnother: () => Promise<FastifyInstance>;
const logs: string[] = [];
const apps: FastifyInstance[] = [];
const uploads: LegacyUpload[] = [];

/** An upload row and its file, as the old code kept them: encrypted under its storage name, written two hours ago. */
async function legacyUpload(driverId: string, vehicleId: string | null, field: string, mime: string): Promise<LegacyUpload> {
  const storageName = `${randomBytes(16).toString('hex')}.bin`;
  const bytes = mime === 'image/png' ? PNG_BYTES : JPEG_BYTES;
  const path = join(dataDir, 'uploads', storageName);
  await writeFile(path, cipher.encrypt(bytes, `upload:${storageName}`));
  const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
  await utimes(path, twoHoursAgo, twoHoursAgo);
  const { rows } = await db.query<{ id: string }>(
    'INSERT INTO uploads (driver_id, vehicle_id, field, storage_name, mime, size, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id',
    [driverId, vehicleId, field, storageName, mime, bytes.length, at('2025-03-01T10:00:00Z')],
  );
  const upload = { id: rows[0]!.id, driverId, vehicleId, field, storageName, bytes };
  uploads.push(upload);
  return upload;
}

const uploadId = (driverId: string, vehicleId: string | null, field: string) =>
  uploads.find((upload) => upload.driverId === driverId && upload.vehicleId === vehicleId && upload.field === field)!.id;

/** The files map a step should have: upload id by field. */
const filesOf = (driverId: string, vehicleId: string | null, fields: readonly string[]) =>
  Object.fromEntries(fields.map((field) => [field, uploadId(driverId, vehicleId, field)]));

interface LegacyProfile {
  first: string;
  last: string;
  mi: string | null;
  suffix: string | null;
  dob: string;
  gender: string;
  ssn: string;
  licence: string;
  street: string;
  city: string;
  state: string;
  zip: string;
  completedAt: string;
}

/** A driver row as sign-up and the profile form wrote it before migration 007. */
async function legacyDriver(
  id: string,
  row: {
    email: string;
    provider: string;
    phone: string | null;
    referral?: string;
    status?: string;
    complete?: boolean;
    paid?: boolean;
    reviewVersion?: number;
  },
  profile: LegacyProfile | null,
) {
  await db.query(
    `INSERT INTO drivers (id, email, firebase_uid, provider, phone, referral_code, terms_accepted_at, sms_consent_at, signup_ip, email_verified_at,
       phone_verified_at, first_name, last_name, middle_initial, suffix, date_of_birth, gender, driver_license_number, ssn_ciphertext, ssn_last4,
       street, city, state, zip_code, profile_completed_at, status, is_session_complete, is_subscription_paid, review_version, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7, '203.0.113.7', $7, $8, $9, $10, $11, $12, $13::date, $14, $15, $16, $17, $18, $19, $20, $21, $22,
       $23, $24, $25, $26, $7, $7)`,
    [
      id,
      row.email,
      `uid-${id}`,
      row.provider,
      row.phone,
      row.referral ?? null,
      at('2025-02-28T09:00:00Z'),
      row.phone ? at('2025-02-28T09:05:00Z') : null,
      profile?.first ?? null,
      profile?.last ?? null,
      profile?.mi ?? null,
      profile?.suffix ?? null,
      profile?.dob ?? null,
      profile?.gender ?? null,
      profile?.licence ?? null,
      profile ? cipher.encrypt(profile.ssn, `ssn:${id}`) : null,
      profile ? profile.ssn.slice(-4) : null,
      profile?.street ?? null,
      profile?.city ?? null,
      profile?.state ?? null,
      profile?.zip ?? null,
      profile ? at(profile.completedAt) : null,
      row.status ?? 'pending',
      row.complete ?? false,
      row.paid ?? false,
      row.reviewVersion ?? 0,
    ],
  );
}

interface LegacyVehicle {
  make: string;
  model: string;
  year: number;
  plate: string;
  wheelchair: boolean;
  licenceExpiry: string;
  registrationExpiry: string;
  insuranceExpiry: string;
  submittedAt: string;
}

/** A vehicle as the photo step created it (and the vehicle form filled it, when sent), with its files. */
async function legacyVehicle(driverId: string, id: string, createdAt: string, sent: LegacyVehicle | null) {
  await db.query(
    `INSERT INTO vehicles (id, driver_id, make, model, year, plate, wheelchair, driver_license_expiry, registration_expiry, insurance_expiry,
       submitted_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::date, $9::date, $10::date, $11::timestamptz, $12::timestamptz, COALESCE($11::timestamptz, $12::timestamptz))`,
    [
      id,
      driverId,
      sent?.make ?? null,
      sent?.model ?? null,
      sent?.year ?? null,
      sent?.plate ?? null,
      sent?.wheelchair ?? false,
      sent?.licenceExpiry ?? null,
      sent?.registrationExpiry ?? null,
      sent?.insuranceExpiry ?? null,
      sent ? at(sent.submittedAt) : null,
      at(createdAt),
    ],
  );
  for (const field of VEHICLE_IMAGE_FIELDS) await legacyUpload(driverId, id, field, 'image/jpeg');
  if (sent) for (const field of DOCUMENT_FIELDS) await legacyUpload(driverId, id, field, field === 'proofInsurance' ? 'image/jpeg' : 'image/png');
}

const ADA_PROFILE: LegacyProfile = {
  first: 'Ada',
  last: 'Lovelace',
  mi: 'B',
  suffix: 'Jr.',
  dob: '1990-04-12',
  gender: 'Female',
  ssn: FULL_SSN.ada,
  licence: 'D1234567',
  street: '1 Main Street',
  city: 'Austin',
  state: 'TX',
  zip: '73301',
  completedAt: '2025-03-01T10:00:00.000Z',
};
const ADA_FIRST_VEHICLE: LegacyVehicle = {
  make: 'Honda',
  model: 'Civic',
  year: 2012,
  plate: 'OLD1234',
  wheelchair: false,
  licenceExpiry: '2026-01-31',
  registrationExpiry: '2026-02-28',
  insuranceExpiry: '2026-03-31',
  submittedAt: '2025-03-02T09:30:00.000Z',
};
const ADA_VEHICLE: LegacyVehicle = {
  make: 'Toyota',
  model: 'Prius',
  year: 2020,
  plate: 'ABC1234',
  wheelchair: true,
  licenceExpiry: '2027-01-31',
  registrationExpiry: '2026-12-01',
  insuranceExpiry: '2026-09-30',
  submittedAt: '2025-03-05T16:45:12.345Z',
};
const GRACE_PROFILE: LegacyProfile = {
  first: 'Grace',
  last: 'Hopper',
  mi: null,
  suffix: null,
  dob: '1985-12-09',
  gender: 'Female',
  ssn: FULL_SSN.grace,
  licence: 'G7654321',
  street: '9 Navy Yard',
  city: 'Arlington',
  state: 'VA',
  zip: '22201',
  completedAt: '2025-02-20T08:00:00.000Z',
};
const GRACE_VEHICLE: LegacyVehicle = {
  make: 'Ford',
  model: 'Transit',
  year: 2018,
  plate: 'NAVY1',
  wheelchair: false,
  licenceExpiry: '2028-05-05',
  registrationExpiry: '2027-06-06',
  insuranceExpiry: '2027-07-07',
  submittedAt: '2025-02-21T12:00:00.000Z',
};
const DAN_PROFILE: LegacyProfile = {
  ...GRACE_PROFILE,
  first: 'Dan',
  last: 'Bricklin',
  dob: '1951-07-16',
  gender: 'Male',
  ssn: FULL_SSN.dan,
  licence: 'B1111111',
  completedAt: '2025-03-03T07:00:00.000Z',
};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'onramp-migration007-'));
  await mkdir(join(dataDir, 'uploads'), { recursive: true });
  config = {
    ...readConfig({
      DATA_DIR: dataDir,
      DATA_KEY: randomBytes(32).toString('base64'),
      STATIC_DIR: join(dataDir, 'dist'),
      LOG_LEVEL: 'info',
      AUTH_RATE_LIMIT_MAX: '100000',
    }),
    database: { kind: 'pglite', dir: null },
  };
  // The server's own cipher: the same key, the same derivation.
  cipher = createDataCipher(config.dataKeys);

  // The database as it was: migrations 001 to 006 only, run by the server's earlier runner.
  db = await openPglite(null);
  await migrateAsBefore(db, 6);

  // Ada: an email sign-up, sent her vehicle, was rejected, sent another, then photos once more: pending.
  await legacyDriver(
    ids.ada,
    { email: 'ada@example.com', provider: 'password', phone: '+12025550143', status: 'pending', complete: true, reviewVersion: 5 },
    ADA_PROFILE,
  );
  for (const [field, mime] of Object.entries(PROFILE_FILES)) await legacyUpload(ids.ada, null, field, mime);
  await legacyVehicle(ids.ada, adaVehicles.first, '2025-03-02T09:00:00.000Z', ADA_FIRST_VEHICLE);
  await legacyVehicle(ids.ada, adaVehicles.latest, '2025-03-05T16:30:00.000Z', ADA_VEHICLE);
  await legacyVehicle(ids.ada, adaVehicles.photosOnly, '2025-03-06T08:00:00.000Z', null);
  await db.query(
    `INSERT INTO driver_reviews (driver_id, decision, reason, reviewed_by, reviewed_at) VALUES ($1, 'rejected', 'Blurry plate', 'admin-token:abc', $2)`,
    [ids.ada, at('2025-03-03T10:00:00Z')],
  );

  // Grace: signed up with Google (her phone came with the profile), approved, subscribed, with a payout account.
  await legacyDriver(
    ids.grace,
    {
      email: 'grace@gmail.com',
      provider: 'google.com',
      phone: '+13105550199',
      referral: 'AB12',
      status: 'approved',
      complete: true,
      paid: true,
      reviewVersion: 3,
    },
    GRACE_PROFILE,
  );
  for (const [field, mime] of Object.entries(PROFILE_FILES)) await legacyUpload(ids.grace, null, field, mime);
  await legacyVehicle(ids.grace, graceVehicle, '2025-02-21T11:00:00.000Z', GRACE_VEHICLE);
  await db.query(
    `INSERT INTO bank_accounts (driver_id, account_holder_name, account_number_ciphertext, account_number_last4, routing_number, created_at, updated_at)
     VALUES ($1, 'Grace B. Hopper', $2, $3, '110000000', $4, $5)`,
    [ids.grace, cipher.encrypt(ACCOUNT_NUMBER, `bank-account:${ids.grace}`), ACCOUNT_NUMBER.slice(-4), at('2025-02-25T10:00:00Z'), at('2025-02-26T11:00:00Z')],
  );

  // Kit: signed up and verified the email, nothing more.
  await legacyDriver(ids.kit, { email: 'kit@example.com', provider: 'password', phone: '+12025550177' }, null);

  // Dan: profile and vehicle photos, never sent the vehicle form.
  await legacyDriver(ids.dan, { email: 'dan@example.com', provider: 'password', phone: '+12025550188' }, DAN_PROFILE);
  for (const [field, mime] of Object.entries(PROFILE_FILES)) await legacyUpload(ids.dan, null, field, mime);
  await legacyVehicle(ids.dan, danVehicle, '2025-03-03T08:00:00.000Z', null);

  // Then the rest, as a server starting on the new code applies them.
  appliedLater = await migrate(db);
  const clock = () => new Date();
  const build = async () => {
    const built = await buildApp(config, { db, now: clock, logStream: { write: (line: string) => void logs.push(line) } });
    await built.ready();
    apps.push(built);
    return built;
  };
  app = await build();
  buildAnother = build;
  reviewerKey = (await staffKey(app, ['reviewer'])).key;
}, scaled(120_000));

afterAll(async () => {
  for (const each of apps) await each.close();
  await db?.close();
  await rm(dataDir, { recursive: true, force: true });
});

interface StepRow {
  step: string;
  schema_name: string;
  schema_version: string;
  answers: StoredAnswers;
  files: Record<string, string>;
  submitted_at: Date;
  reviewed: unknown;
}

async function stepsOf(driverId: string): Promise<Map<string, StepRow>> {
  const { rows } = await db.query<StepRow>(
    'SELECT step, schema_name, schema_version, answers, files, submitted_at, reviewed FROM step_answers WHERE driver_id = $1',
    [driverId],
  );
  return new Map(rows.map((row) => [row.step, row]));
}

const sealedShape = (value: unknown) => {
  expect(value).toBeTypeOf('object');
  expect(Object.keys(value as object).sort()).toEqual(['$fingerprint', '$masked', '$sealed']);
  return value as { $sealed: string; $masked: string; $fingerprint: string };
};

const admin = (url: string) => app.inject({ method: 'GET', url, headers: bearer(reviewerKey) });

const fieldsOf = (step: ReviewedStep | undefined) => new Map((step?.fields ?? []).map((field) => [field.field, field]));

describe('migration 007 on the rows the old code wrote', () => {
  it('takes over the earlier runner’s records and applies 007 and what follows it, nothing twice', async () => {
    const all = (await readdir(MIGRATIONS)).sort();
    expect(appliedLater).toEqual(all.slice(6));
    expect(appliedLater[0]).toBe('007.do.answers_as_data.sql');
    const { rows } = await db.query<{ version: string }>('SELECT version::text FROM schemaversion WHERE version > 0 ORDER BY schemaversion.version');
    expect(rows.map((row) => Number(row.version))).toEqual(all.map((name) => Number.parseInt(name, 10)));
    // A server starting again finds nothing left to run.
    expect(await migrate(db)).toEqual([]);
  });

  it("moves an email driver's profile into completeProfile answers, with their files", async () => {
    const profile = (await stepsOf(ids.ada)).get('completeProfile')!;
    expect(profile).toMatchObject({ schema_name: 'profile', schema_version: 'before-answers', reviewed: null });
    expect(profile.submitted_at.toISOString()).toBe(ADA_PROFILE.completedAt);
    const { SSN, driverLicenseNumber, ...answers } = profile.answers;
    expect(answers).toEqual({
      firstName: 'Ada',
      lastName: 'Lovelace',
      MI: 'B',
      suffix: 'Jr.',
      dateOfBirth: '1990-04-12',
      gender: 'Female',
      street: '1 Main Street',
      city: 'Austin',
      state: 'TX',
      zipCode: '73301',
    });
    // An email sign-up's phone stays on the driver (verified at sign-up), not in the profile.
    expect(profile.answers).not.toHaveProperty('phoneNo');
    expect(profile.files).toEqual(filesOf(ids.ada, null, Object.keys(PROFILE_FILES)));

    const sealed = sealedShape(SSN);
    expect(sealed.$masked).toBe('•••••6789');
    expect(sealed.$fingerprint).toBe(cipher.fingerprint(FULL_SSN.ada, `answers:${ids.ada}:completeProfile:SSN`));
    // The licence number, moved in the clear, was sealed as the server started: the schema marks it sensitive now.
    expect(sealedShape(driverLicenseNumber).$masked).toBe('•••••4567');
    expect(openAnswers(cipher, ids.ada, 'completeProfile', profile.answers)).toEqual({ ...answers, SSN: FULL_SSN.ada, driverLicenseNumber: 'D1234567' });
    // Sealed for this driver, step and field: not under the old context any more.
    expect(() => cipher.decrypt(Buffer.from(sealed.$sealed, 'base64'), `ssn:${ids.ada}`)).toThrow();
  });

  it('moves the vehicle last sent: its photos, its answers typed as the form sends them, its documents', async () => {
    const steps = await stepsOf(ids.ada);
    expect([...steps.keys()].sort()).toEqual(['addVehicle', 'completeProfile', 'uploadVehicleImages']);
    const images = steps.get('uploadVehicleImages')!;
    expect(images).toMatchObject({ schema_name: 'vehicle-images', schema_version: 'before-answers', answers: {} });
    expect(images.files).toEqual(filesOf(ids.ada, adaVehicles.latest, VEHICLE_IMAGE_FIELDS));
    expect(images.submitted_at.toISOString()).toBe('2025-03-05T16:30:00.000Z');

    const vehicle = steps.get('addVehicle')!;
    expect(vehicle).toMatchObject({ schema_name: 'vehicle', schema_version: 'before-answers' });
    expect(vehicle.answers).toEqual({
      vehicleMake: 'Toyota',
      vehicleName: 'Prius',
      modelYear: '2020',
      plateNumber: 'ABC1234',
      isWheelChairAccessible: true,
      driverLicenseExpiryDate: '2027-01-31',
      vehicleRegistrationExpiryDate: '2026-12-01',
      proofInsuranceExpiryDate: '2026-09-30',
    });
    expect(vehicle.files).toEqual(filesOf(ids.ada, adaVehicles.latest, DOCUMENT_FIELDS));
    expect(vehicle.submitted_at.toISOString()).toBe(ADA_VEHICLE.submittedAt);

    // A vehicle not accessible by wheelchair says so (false is an answer, not a missing one).
    const graceVehicleAnswers = (await stepsOf(ids.grace)).get('addVehicle')!.answers;
    expect(graceVehicleAnswers).toMatchObject({ isWheelChairAccessible: false, modelYear: '2018', vehicleName: 'Transit', vehicleMake: 'Ford' });
  });

  it("keeps one vehicle per driver and only the files answers name; the others' files are swept at start", async () => {
    const { rows: vehicles } = await db.query<{ id: string; driver_id: string; submitted_at: Date | null }>(
      'SELECT id, driver_id, submitted_at FROM vehicles ORDER BY driver_id',
    );
    expect(new Map(vehicles.map((vehicle) => [vehicle.driver_id, vehicle.id]))).toEqual(
      new Map([
        [ids.ada, adaVehicles.latest],
        [ids.grace, graceVehicle],
        [ids.dan, danVehicle],
      ]),
    );
    expect(vehicles).toHaveLength(3);
    const { rows: kept } = await db.query<{ id: string; step: string; vehicle_id: string | null; field: string }>(
      'SELECT id, step, vehicle_id, field FROM uploads',
    );
    const { rows: named } = await db.query<{ id: string }>('SELECT value AS id FROM step_answers, jsonb_each_text(files)');
    expect(kept.map((upload) => upload.id).sort()).toEqual(named.map((row) => row.id).sort());
    // Each file's step: the profile's, the photos', the vehicle form's.
    for (const upload of kept) {
      const expected = upload.vehicle_id === null ? 'completeProfile' : upload.field.startsWith('vehicleImage') ? 'uploadVehicleImages' : 'addVehicle';
      expect(upload.step, upload.field).toBe(expected);
    }
    // 3 profile files each for Ada, Grace and Dan; Ada's and Grace's sent vehicle (6 + 4); Dan's photos (6).
    expect(kept).toHaveLength(9 + 10 + 10 + 6);
    const keptIds = new Set(kept.map((upload) => upload.id));
    for (const upload of uploads) {
      const present = existsSync(join(dataDir, 'uploads', upload.storageName));
      expect(present, `${upload.field} of ${upload.vehicleId ?? 'the profile'}`).toBe(keptIds.has(upload.id));
    }
  });

  it("moves a social driver's phone into the profile's phoneNo without +1, and the payout account into addBank", async () => {
    const steps = await stepsOf(ids.grace);
    expect([...steps.keys()].sort()).toEqual(['addBank', 'addVehicle', 'completeProfile', 'uploadVehicleImages']);
    const profile = steps.get('completeProfile')!;
    expect(profile.schema_name).toBe('profile-social');
    expect(profile.answers.phoneNo).toBe('3105550199');
    // No middle initial or suffix: no answer rather than null.
    expect(profile.answers).not.toHaveProperty('MI');
    expect(profile.answers).not.toHaveProperty('suffix');
    expect(sealedShape(profile.answers.SSN).$masked).toBe('•••••4321');
    expect(openAnswers(cipher, ids.grace, 'completeProfile', profile.answers).SSN).toBe(FULL_SSN.grace);

    const bank = steps.get('addBank')!;
    expect(bank).toMatchObject({ schema_name: 'bank', schema_version: 'before-answers', files: {} });
    expect(bank.submitted_at.toISOString()).toBe('2025-02-26T11:00:00.000Z');
    const { accountNumber, ...rest } = bank.answers;
    expect(rest).toEqual({ accountHolderName: 'Grace B. Hopper', routingNumber: '110000000' });
    const sealed = sealedShape(accountNumber);
    expect(sealed.$masked).toBe('•••••4321');
    expect(sealed.$fingerprint).toBe(cipher.fingerprint(ACCOUNT_NUMBER, `answers:${ids.grace}:addBank:accountNumber`));
    expect(openAnswers(cipher, ids.grace, 'addBank', bank.answers)).toEqual({ ...rest, accountNumber: ACCOUNT_NUMBER });

    // What stays typed on the driver stays there.
    const { rows } = await db.query<Record<string, unknown>>('SELECT phone, referral_code, provider, status, is_subscription_paid FROM drivers WHERE id = $1', [
      ids.grace,
    ]);
    expect(rows[0]).toEqual({ phone: '+13105550199', referral_code: 'AB12', provider: 'google.com', status: 'approved', is_subscription_paid: true });
  });

  it('sets drivers.submitted_at for those who sent everything, and only them', async () => {
    const { rows } = await db.query<{ id: string; submitted_at: Date | null }>('SELECT id, submitted_at FROM drivers');
    const submitted = new Map(rows.map((row) => [row.id, row.submitted_at?.toISOString() ?? null]));
    expect(submitted).toEqual(
      new Map([
        [ids.ada, ADA_VEHICLE.submittedAt],
        [ids.grace, GRACE_VEHICLE.submittedAt],
        [ids.kit, null],
        [ids.dan, null],
      ]),
    );
  });

  it('moves a driver with no profile yet to no rows, and one with a profile and photos to just those', async () => {
    expect((await stepsOf(ids.kit)).size).toBe(0);
    const { rows } = await db.query<{ email: string; phone: string }>('SELECT email, phone FROM drivers WHERE id = $1', [ids.kit]);
    expect(rows[0]).toEqual({ email: 'kit@example.com', phone: '+12025550177' });
    const dan = await stepsOf(ids.dan);
    expect([...dan.keys()].sort()).toEqual(['completeProfile', 'uploadVehicleImages']);
    expect(dan.get('uploadVehicleImages')!.files).toEqual(filesOf(ids.dan, danVehicle, VEHICLE_IMAGE_FIELDS));
    expect(openAnswers(cipher, ids.dan, 'completeProfile', dan.get('completeProfile')!.answers).SSN).toBe(FULL_SSN.dan);
  });

  it('drops the old columns and table; no old ciphertext is left', async () => {
    const columns = async (table: string) =>
      (await db.query<{ column_name: string }>('SELECT column_name FROM information_schema.columns WHERE table_name = $1', [table])).rows.map(
        (row) => row.column_name,
      );
    const drivers = await columns('drivers');
    for (const gone of ['first_name', 'last_name', 'ssn_ciphertext', 'ssn_last4', 'date_of_birth', 'zip_code']) expect(drivers).not.toContain(gone);
    expect(drivers).toContain('submitted_at');
    expect(await columns('vehicles')).not.toContain('make');
    expect(await columns('bank_accounts')).toEqual([]);
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM step_answers WHERE answers::text LIKE '%$legacy%'`);
    expect(rows[0]!.n).toBe(0);
  });

  it('seals once: the server says so at start, and a later start leaves the sealed answers as they are', async () => {
    const said = logs.map((line) => JSON.parse(line) as { msg?: string; steps?: number }).filter((line) => line.msg === 'Sealed moved answers field by field');
    // Ada's, Grace's and Dan's profiles and Grace's payout account.
    expect(said).toEqual([expect.objectContaining({ steps: 4 })]);
    const { rows: before } = await db.query<{ answers: StoredAnswers }>('SELECT answers FROM step_answers ORDER BY driver_id, step');
    await buildAnother();
    const { rows: after } = await db.query<{ answers: StoredAnswers }>('SELECT answers FROM step_answers ORDER BY driver_id, step');
    expect(after).toEqual(before);
    expect(logs.filter((line) => line.includes('Sealed moved answers field by field'))).toHaveLength(1);
  });

  it('marks the sealing done, so a later start reads the mark rather than every answer', async () => {
    // An answer shaped as a moved one, after the mark: a start that read the answers would try to seal it, and fail.
    const probe = { $legacy: 'not a ciphertext', $legacyContext: 'ssn', $masked: '•••••' };
    const profileOfDan = "WHERE driver_id = $1 AND step = 'completeProfile'";
    await db.query(`UPDATE step_answers SET answers = answers || jsonb_build_object('probe', $2::jsonb) ${profileOfDan}`, [ids.dan, JSON.stringify(probe)]);
    try {
      await buildAnother();
      expect((await stepsOf(ids.dan)).get('completeProfile')!.answers.probe).toEqual(probe);
    } finally {
      await db.query(`UPDATE step_answers SET answers = answers - 'probe' ${profileOfDan}`, [ids.dan]);
    }
    expect((await stepsOf(ids.dan)).get('completeProfile')!.answers).not.toHaveProperty('probe');
    const { rows } = await db.query<{ name: string }>("SELECT name FROM upgrades_done WHERE name NOT LIKE 'answers to %'");
    expect(rows).toEqual([{ name: 'answers sealed field by field' }]);
  });
});

describe('the migrated drivers on the admin page', () => {
  it('shows every answer under its UI title, the SSN masked, the files as links', async () => {
    const response = await admin(`/admin/drivers/${ids.ada}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.body).not.toContain(FULL_SSN.ada);
    expect(response.body).not.toContain('$sealed');
    expect(response.body).not.toContain('$legacy');
    const driver = json<ReviewDriver>(response);
    expect(driver).toMatchObject({
      id: ids.ada,
      email: 'ada@example.com',
      phone: '+12025550143',
      name: 'Ada Lovelace',
      status: 'pending',
      reviewVersion: 5,
      isSessionComplete: true,
      submittedAt: ADA_VEHICLE.submittedAt,
    });
    expect(driver.steps.map((step) => [step.step, step.title, step.reviewed])).toEqual([
      ['completeProfile', 'Complete profile', true],
      ['uploadVehicleImages', 'Upload vehicle images', true],
      ['addVehicle', 'Add vehicle', true],
    ]);
    const [profile, images, vehicle] = driver.steps;
    expect(profile!.schema).toEqual({ name: 'profile', version: 'before-answers' });
    const text = (field: ReviewedField) => [field.field, field.title, field.kind, field.value];
    expect(profile!.fields.filter((field) => field.kind !== 'file').map(text)).toEqual([
      ['firstName', 'First Name', 'text', 'Ada'],
      ['lastName', 'Last Name', 'text', 'Lovelace'],
      ['MI', 'MI', 'text', 'B'],
      ['suffix', 'Suffix', 'text', 'Jr.'],
      ['dateOfBirth', 'Date of Birth', 'text', '1990-04-12'],
      ['gender', 'Gender', 'text', 'Female'],
      ['SSN', 'SSN', 'sensitive', '•••••6789'],
      ['driverLicenseNumber', 'Driver License Number', 'sensitive', '•••••4567'],
      ['street', 'Street', 'text', '1 Main Street'],
      ['state', 'State', 'text', 'TX'],
      ['city', 'City', 'text', 'Austin'],
      ['zipCode', 'Zip Code', 'text', '73301'],
    ]);
    expect(profile!.fields.filter((field) => field.kind === 'file').map((field) => [field.field, field.title, field.file])).toEqual([
      ['profilePicture', 'Profile photo', { url: `/admin/uploads/${uploadId(ids.ada, null, 'profilePicture')}`, mime: 'image/png' }],
      [
        'socialSecurityCardFront',
        'Social Security Card (front)',
        { url: `/admin/uploads/${uploadId(ids.ada, null, 'socialSecurityCardFront')}`, mime: 'image/jpeg' },
      ],
      [
        'socialSecurityCardBack',
        'Social Security Card (back)',
        { url: `/admin/uploads/${uploadId(ids.ada, null, 'socialSecurityCardBack')}`, mime: 'image/png' },
      ],
    ]);
    expect(images!.fields.map((field) => [field.field, field.kind, field.file?.url])).toEqual(
      VEHICLE_IMAGE_FIELDS.map((field) => [field, 'file', `/admin/uploads/${uploadId(ids.ada, adaVehicles.latest, field)}`]),
    );
    const vehicleFields = fieldsOf(vehicle);
    expect(text(vehicleFields.get('modelYear')!)).toEqual(['modelYear', 'Year', 'text', '2020']);
    expect(text(vehicleFields.get('isWheelChairAccessible')!)).toEqual(['isWheelChairAccessible', 'Is this Wheel Chair Accessible ?', 'text', true]);
    expect(text(vehicleFields.get('vehicleName')!)).toEqual(['vehicleName', 'Model', 'text', 'Prius']);
    expect(text(vehicleFields.get('driverLicenseExpiryDate')!)).toEqual(['driverLicenseExpiryDate', 'Driver License Expiration Date', 'text', '2027-01-31']);
    expect(vehicleFields.get('proofInsurance')).toMatchObject({ kind: 'file', title: 'Proof of Insurance' });
    // Nothing decided on the new shape yet: nothing shows as changed.
    expect(driver.steps.flatMap((step) => step.fields).some((field) => field.changed)).toBe(false);

    // A migrated document opens.
    const photo = await admin(`/admin/uploads/${uploadId(ids.ada, null, 'profilePicture')}`);
    expect(photo.statusCode).toBe(200);
    expect(photo.rawPayload.equals(PNG_BYTES)).toBe(true);
    const licence = await admin(`/admin/uploads/${uploadId(ids.ada, adaVehicles.latest, 'driverLicenseCardFront')}`);
    expect(licence.statusCode).toBe(200);
  });

  it("shows a social driver's phone and the payout account masked, shown only", async () => {
    const response = await admin(`/admin/drivers/${ids.grace}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.body).not.toContain(FULL_SSN.grace);
    expect(response.body).not.toContain(ACCOUNT_NUMBER);
    const driver = json<ReviewDriver>(response);
    expect(driver.steps.map((step) => step.step)).toEqual(['completeProfile', 'uploadVehicleImages', 'addVehicle', 'addBank']);
    const profile = fieldsOf(driver.steps[0]);
    expect(profile.get('phoneNo')).toMatchObject({ title: 'Phone Number', kind: 'text', value: '3105550199' });
    expect(profile.get('SSN')).toMatchObject({ title: 'SSN', kind: 'sensitive', value: '•••••4321' });
    expect(profile.get('firstName')).toMatchObject({ title: 'First Name', value: 'Grace' });
    const bank = driver.steps[3]!;
    expect(bank).toMatchObject({ title: 'Add bank', reviewed: false });
    expect(bank.fields.map((field) => [field.field, field.title, field.kind, field.value])).toEqual([
      ['accountHolderName', 'Account holder name', 'text', 'Grace B. Hopper'],
      ['accountNumber', 'Account number', 'sensitive', '•••••4321'],
      ['routingNumber', 'Routing number', 'text', '110000000'],
    ]);
  });

  it('lists the migrated drivers in the queue by their submission, with their names', async () => {
    const pending = json<QueuePage>(await admin('/admin/drivers'));
    expect(pending.drivers.map((driver) => [driver.id, driver.name])).toEqual([[ids.ada, 'Ada Lovelace']]);
    const approved = json<QueuePage>(await admin('/admin/drivers?status=approved'));
    expect(approved.drivers.map((driver) => [driver.id, driver.name, driver.submittedAt])).toEqual([[ids.grace, 'Grace Hopper', GRACE_VEHICLE.submittedAt]]);
    expect(json<QueuePage>(await admin('/admin/drivers?q=lovelace')).drivers.map((driver) => driver.id)).toEqual([ids.ada]);
    // Kit and Dan have not sent everything: in no list.
    expect(json<QueuePage>(await admin('/admin/drivers?q=dan%40example')).drivers).toEqual([]);
  });
});
