import { readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { isoDateOffset } from '../../../src/shared/dates.js';
import { createDataCipher } from '../../../src/server/lib/dataCipher.js';
import { loadRetention } from '../../../src/node/projectFiles.js';
import { removeQueuedFiles } from '../../../src/server/lib/fileRemovals.js';
import { deleteUntakenUploads } from '../../../src/server/plugins/uploads.js';
import { HOLDER_STATEMENT } from '../../../src/server/plugins/sessions.js';
import { createSocialUser } from '../../support/identity.js';
import {
  bearer,
  completeProfile,
  file,
  formData,
  JPEG_BYTES,
  json,
  latestCode,
  PNG_BYTES,
  post,
  profileValues,
  randomPhone,
  verifiedDriver,
  verifyPhone,
  solidImage,
  startTestServer,
  statusData,
  TEXT_BYTES,
  uploadVehicleImages,
  VEHICLE_IMAGE_FIELDS,
  vehicleImageValues,
  vehicleValues,
  type FormValue,
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

const IMAGE_MESSAGE = 'Please choose an image file (JPEG, PNG, WebP, GIF or HEIC).';
const UNREADABLE_MESSAGE = 'This image could not be read. Please take the photo again.';
const TOO_MANY_PIXELS_MESSAGE = 'Each image must be at most 40 megapixels.';
const THIS_YEAR = new Date().getFullYear();
const YEAR_RANGE = `Year must be between ${THIS_YEAR - 100} and ${THIS_YEAR + 1}`;

interface ErrorBody {
  message: string;
  errors?: Record<string, string[]>;
}

function expectFieldError(response: { statusCode: number; json(): unknown }, field: string, message: string) {
  const body = response.json() as ErrorBody;
  expect(response.statusCode, JSON.stringify(body)).toBe(400);
  expect(body.errors?.[field]).toContain(message);
  expect(Object.values(body.errors ?? {}).flat()).toContain(body.message);
}

/** A driver who signed up, verified both codes and may now fill the profile. */
async function readyDriver(): Promise<TestDriver> {
  const driver = await verifiedDriver(app);
  await app.inject({ method: 'POST', url: '/auth/sendPhoneOTP', headers: bearer(driver.token), payload: { phoneNo: driver.phone } });
  const code = await latestCode(app, driver.phone);
  await app.inject({ method: 'POST', url: '/auth/validatePhoneOTP', headers: bearer(driver.token), payload: { code, phoneNo: driver.phone } });
  return driver;
}

let profileDriver: TestDriver;
let vehicleDriver: TestDriver;
let vehicleId: string;

beforeAll(async () => {
  profileDriver = await readyDriver();
  vehicleDriver = await readyDriver();
  await completeProfile(app, vehicleDriver);
  vehicleId = await uploadVehicleImages(app, vehicleDriver);
});

describe('POST /driver/completeProfile', () => {
  const submit = (values: Record<string, FormValue>, token = profileDriver.token) => post(app, '/driver/completeProfile', token, formData(values));

  /** The step's answers as stored: one row of step_answers. */
  const storedStep = async (driverId: string, step: string) =>
    (
      await server.db.query<{ schema_name: string; answers: Record<string, unknown>; files: Record<string, string>; text: string }>(
        'SELECT schema_name, answers, files, row_to_json(a)::text AS text FROM step_answers a WHERE driver_id = $1 AND step = $2',
        [driverId, step],
      )
    ).rows[0]!;

  it('stores the profile and answers 200', async () => {
    const response = await submit(profileValues());
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ success: true, message: 'Your personal profile is saved.' });
    const stored = await storedStep(profileDriver.driverId, 'completeProfile');
    expect(stored.schema_name).toBe('profile');
    expect(stored.answers).toEqual({
      firstName: 'Ada',
      lastName: 'Lovelace',
      MI: 'B',
      dateOfBirth: '1990-04-12',
      gender: 'Female',
      driverLicenseNumber: { $sealed: expect.any(String), $masked: '•••••4567', $fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/) },
      street: '1 Main Street',
      city: 'Austin',
      state: 'TX',
      zipCode: '73301',
      SSN: { $sealed: expect.any(String), $masked: '•••••6789', $fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/) },
    });
    // The documents by field, each an upload of the driver's.
    const { rows } = await server.db.query<{ id: string; field: string }>("SELECT id, field FROM uploads WHERE driver_id = $1 AND step = 'completeProfile'", [
      profileDriver.driverId,
    ]);
    expect(stored.files).toEqual(Object.fromEntries(rows.map((row) => [row.field, row.id])));
    expect(Object.keys(stored.files).sort()).toEqual(['profilePicture', 'socialSecurityCardBack', 'socialSecurityCardFront']);
  });

  it('keeps the licence number encrypted at rest too: only its last 4 characters are in clear', async () => {
    await submit(profileValues({ driverLicenseNumber: 'K98765432' }));
    const stored = await storedStep(profileDriver.driverId, 'completeProfile');
    expect(stored.text).not.toContain('K98765432');
    const licence = stored.answers.driverLicenseNumber as { $sealed: string; $masked: string };
    expect(licence.$masked).toBe('•••••5432');
    const cipher = createDataCipher(server.config.dataKeys);
    expect(cipher.decrypt(Buffer.from(licence.$sealed, 'base64'), `answers:${profileDriver.driverId}:completeProfile:driverLicenseNumber`).toString()).toBe(
      'K98765432',
    );
  });

  it('seals at the next start the licence numbers stored in the clear before the field was marked sensitive', async () => {
    await submit(profileValues({ driverLicenseNumber: 'P11223344' }));
    // As an answer sent before the edit that marked the field sensitive was stored.
    await server.db.query(
      `UPDATE step_answers SET answers = jsonb_set(answers, '{driverLicenseNumber}', '"P11223344"') WHERE driver_id = $1 AND step = 'completeProfile'`,
      [profileDriver.driverId],
    );
    await server.db.query("DELETE FROM upgrades_done WHERE name = 'answers to profile.driverLicenseNumber sealed'");
    expect((await storedStep(profileDriver.driverId, 'completeProfile')).text).toContain('P11223344');
    const restarted = await server.buildAnother();
    try {
      await restarted.ready();
      const stored = await storedStep(profileDriver.driverId, 'completeProfile');
      expect(stored.text).not.toContain('P11223344');
      expect(stored.answers.driverLicenseNumber).toMatchObject({ $masked: '•••••3344' });
      expect(stored.answers.SSN).toMatchObject({ $masked: '•••••6789' });
    } finally {
      await restarted.close();
    }
  });

  it('keeps the SSN encrypted at rest: only the last 4 digits are in clear', async () => {
    await submit(profileValues({ SSN: '987654321' }));
    const stored = await storedStep(profileDriver.driverId, 'completeProfile');
    // Nowhere in the row: not in the answers, not in what they were checked with.
    expect(stored.text).not.toContain('987654321');
    const ssn = stored.answers.SSN as { $sealed: string; $masked: string; $fingerprint: string };
    expect(ssn.$masked).toBe('•••••4321');
    expect(ssn.$masked.replace(/•/g, '')).toBe('4321');
    const sealed = Buffer.from(ssn.$sealed, 'base64');
    expect(sealed.toString('latin1')).not.toContain('987654321');
    expect(sealed.toString('hex')).not.toContain(Buffer.from('987654321').toString('hex'));
    expect(ssn.$fingerprint).not.toContain('987654321');
    const cipher = createDataCipher(server.config.dataKeys);
    expect(cipher.decrypt(sealed, `answers:${profileDriver.driverId}:completeProfile:SSN`).toString()).toBe('987654321');
    // Bound to its driver and its field: the same bytes do not decrypt as another driver's SSN, nor as another field.
    expect(() => cipher.decrypt(sealed, `answers:${randomUUID()}:completeProfile:SSN`)).toThrow();
    expect(() => cipher.decrypt(sealed, `answers:${profileDriver.driverId}:completeProfile:driverLicenseNumber`)).toThrow();
  });

  it('stores the documents encrypted under DATA_DIR/uploads with the type read from their bytes', async () => {
    await submit(profileValues({ profilePicture: file(PNG_BYTES, 'me.jpg', 'image/jpeg') }));
    const stored = async () =>
      (
        await server.db.query<{ field: string; mime: string; storage_name: string; size: number }>(
          "SELECT field, mime, storage_name, size FROM uploads WHERE driver_id = $1 AND step = 'completeProfile' ORDER BY field",
          [profileDriver.driverId],
        )
      ).rows;
    const rows = await stored();
    expect(rows.map((row) => [row.field, row.mime])).toEqual([
      ['profilePicture', 'image/png'],
      ['socialSecurityCardBack', 'image/png'],
      ['socialSecurityCardFront', 'image/jpeg'],
    ]);
    for (const row of rows) {
      expect(row.storage_name).toMatch(/^[0-9a-f]{32}\.bin$/);
      const bytes = await readFile(join(server.config.dataDir, 'uploads', row.storage_name));
      expect(bytes.includes(PNG_BYTES.subarray(0, 8))).toBe(false);
      expect(bytes.includes(JPEG_BYTES.subarray(0, 12))).toBe(false);
      expect(await app.uploads.read(row.storage_name)).toHaveLength(row.size);
    }
  });

  it('replaces the earlier documents when the profile is sent again', async () => {
    const namesOf = async () =>
      (
        await server.db.query<{ storage_name: string }>("SELECT storage_name FROM uploads WHERE driver_id = $1 AND step = 'completeProfile'", [
          profileDriver.driverId,
        ])
      ).rows.map((row) => row.storage_name);
    await submit(profileValues());
    const before = await namesOf();
    await submit(profileValues());
    const after = await namesOf();
    expect(after).toHaveLength(3);
    const onDisk = await readdir(join(server.config.dataDir, 'uploads'));
    for (const name of before) expect(onDisk).not.toContain(name);
    for (const name of after) expect(onDisk).toContain(name);
  });

  it.each([
    ['profilePicture', 'An image is required'],
    ['firstName', 'Please enter your first name'],
    ['lastName', 'Please enter your last name'],
    ['dateOfBirth', 'Please enter your D.O.B'],
    ['gender', 'Please select your gender.'],
    ['SSN', 'Please enter your SSN'],
    ['driverLicenseNumber', 'Please enter your Driving License Number.'],
    ['street', 'Please enter your street address.'],
    ['city', 'Please enter your city.'],
    ['state', 'Please enter your state.'],
    ['zipCode', 'Please enter your zip code.'],
    ['socialSecurityCardFront', "Provide Social Security Card's Front Image."],
    ['socialSecurityCardBack', "Provide Social Security Card's Back Image."],
  ])('rejects a profile without %s with "%s"', async (field, message) => {
    const key = field === 'zipCode' ? 'zipcode' : field;
    expectFieldError(await submit(profileValues({ [key]: undefined })), field, message);
  });

  it.each([
    ['dateOfBirth', { dateOfBirth: '1990-13-45' }, 'Please enter your D.O.B'],
    ['dateOfBirth', { dateOfBirth: isoDateOffset(-17, 0) }, 'You must be at least 18 years old to access the app.'],
    ['gender', { gender: 'Other' }, 'Please select your gender.'],
    ['SSN', { SSN: '12345' }, 'SSN must be 9 digits.'],
    ['SSN', { SSN: '1234567890' }, 'SSN must be 9 digits.'],
    ['zipCode', { zipcode: '1234' }, 'Zip code must be 5 digits.'],
    ['state', { state: 'Texas' }, 'Please enter your state.'],
    ['firstName', { firstName: 'A'.repeat(51) }, 'First name must be at most 50 characters.'],
    ['MI', { MI: 'AB' }, 'Middle initial is one letter.'],
    ['profilePicture', { profilePicture: file(TEXT_BYTES, 'notes.jpg', 'image/jpeg') }, IMAGE_MESSAGE],
  ])('rejects a bad %s with "%s"', async (field, overrides, message) => {
    expectFieldError(await submit(profileValues(overrides)), field, message);
  });

  it('judges an image by its bytes: a text file renamed .jpg gets the image message', async () => {
    const response = await submit(profileValues({ socialSecurityCardFront: file(TEXT_BYTES, 'card.jpg', 'image/jpeg') }));
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe(IMAGE_MESSAGE);
  });

  it('rejects a server-set field such as status as unknown', async () => {
    const response = await submit(profileValues({ status: 'approved' }));
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message: 'Unknown field: status' });
  });

  it('rejects the social fields for an email sign-up', async () => {
    const response = await submit(profileValues({ phoneNo: '+12025550143' }));
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('Unknown field: phoneNo');
  });

  it('rejects an image field sent as text', async () => {
    const response = await submit(profileValues({ profilePicture: 'image/png' }));
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('profilePicture must be a file.');
  });

  it('rejects a file larger than 10 MiB with 413', async () => {
    const big = Buffer.concat([PNG_BYTES, Buffer.alloc(10 * 1024 * 1024)]);
    const response = await submit(profileValues({ profilePicture: file(big) }));
    expect(response.statusCode).toBe(413);
    expect(json(response)).toEqual({ message: 'Each file must be at most 10 MB.' });
  });

  it('rejects a JSON body with 415', async () => {
    const response = await app.inject({ method: 'POST', url: '/driver/completeProfile', headers: bearer(profileDriver.token), payload: { firstName: 'Ada' } });
    expect(response.statusCode).toBe(415);
    expect(json(response).message).toBe('This request must be sent as a multipart form.');
  });

  it('asks an email sign-up to verify the phone first (403 "Please verify your phone number first.")', async () => {
    const unverified = await verifiedDriver(app);
    const response = await submit(profileValues(), unverified.token);
    expect(response.statusCode).toBe(403);
    expect(json(response).message).toBe('Please verify your phone number first.');
  });

  it('answers 401 "Token not found" without a token', async () => {
    const response = await submit(profileValues(), '');
    expect(response.statusCode).toBe(401);
    expect(json(response).message).toBe('Token not found');
  });

  describe('for a social sign-up', () => {
    let social: TestDriver;
    beforeAll(async () => {
      const user = await createSocialUser('apple.com');
      const response = await app.inject({ method: 'POST', url: '/auth/driverSocialSignup', payload: { email: user.email, idToken: user.idToken, ip: null } });
      const body = json(response);
      social = { user, email: user.email, phone: '', driverId: String(body.driverId), signUpToken: '', token: String(body.token) };
    });

    it('requires the phone number with "Please provide a valid phone number."', async () => {
      expectFieldError(await submit(profileValues(), social.token), 'phoneNo', 'Please provide a valid phone number.');
    });

    it('rejects a phone number of the wrong length with "Phone number must be valid"', async () => {
      expectFieldError(await submit(profileValues({ phoneNo: '+1202555' }), social.token), 'phoneNo', 'Phone number must be valid');
    });

    it('rejects a phone number whose area code starts with 1 with "Phone number is not valid."', async () => {
      expectFieldError(await submit(profileValues({ phoneNo: '+11025550143' }), social.token), 'phoneNo', 'Phone number is not valid.');
    });

    it('takes the profile before the phone is verified, but not the vehicle photos (403)', async () => {
      expect((await submit(profileValues({ phoneNo: randomPhone() }), social.token)).statusCode).toBe(200);
      const photos = await post(app, '/driver/completeVehicleDocs', social.token, formData(vehicleImageValues()));
      expect(photos.statusCode).toBe(403);
      expect(json(photos).message).toBe('Please verify your phone number first.');
    });

    it('stores the phone and referral code, which the phone code then goes to', async () => {
      const phone = randomPhone();
      const response = await submit(profileValues({ phoneNo: phone, referalCode: '4321' }), social.token);
      expect(response.statusCode).toBe(200);
      const { rows } = await server.db.query<{ phone: string; referral_code: string }>('SELECT phone, referral_code FROM drivers WHERE id = $1', [
        social.driverId,
      ]);
      expect(rows[0]).toEqual({ phone, referral_code: '4321' });
      const sent = await app.inject({ method: 'POST', url: '/auth/sendPhoneOTP', headers: bearer(social.token), payload: { phoneNo: phone } });
      expect(sent.statusCode).toBe(200);
    });

    it('refuses a phone another account verified (409), and keeps none of the files it had written', async () => {
      const owner = await verifiedDriver(app);
      await verifyPhone(app, owner);
      const uploads = join(server.config.dataDir, 'uploads');
      const before = (await readdir(uploads)).sort();
      const response = await submit(profileValues({ phoneNo: owner.phone }), social.token);
      expect(response.statusCode).toBe(409);
      expect(json(response)).toEqual({ message: 'This phone number is already verified on another account. Please use another number.' });
      // The three images were stored before the database refused: they went with the request.
      expect((await readdir(uploads)).sort()).toEqual(before);
    });

    it('may send the plain profile once its phone is verified, keeping that phone (a rejected driver updating from the approval wait)', async () => {
      const user = await createSocialUser('google.com');
      const body = json(await app.inject({ method: 'POST', url: '/auth/driverSocialSignup', payload: { email: user.email, idToken: user.idToken, ip: null } }));
      const driver: TestDriver = { user, email: user.email, phone: randomPhone(), driverId: String(body.driverId), signUpToken: '', token: String(body.token) };
      expect((await submit(profileValues({ phoneNo: driver.phone }), driver.token)).statusCode).toBe(200);
      await verifyPhone(app, driver);
      // While onboarding, the browser still keeps the social flag: the variant asks for the phone.
      const plainTooEarly = await submit(profileValues({ firstName: 'Ray' }), driver.token);
      expect(plainTooEarly.statusCode).toBe(400);
      await server.db.query("UPDATE drivers SET status = 'rejected', is_session_complete = true WHERE id = $1", [driver.driverId]);
      const again = await submit(profileValues({ firstName: 'Ray' }), driver.token);
      expect(again.statusCode).toBe(200);
      const { rows } = await server.db.query<{ phone: string; verified: boolean }>(
        'SELECT phone, phone_verified_at IS NOT NULL AS verified FROM drivers WHERE id = $1',
        [driver.driverId],
      );
      expect(rows[0]).toEqual({ phone: driver.phone, verified: true });
    });
  });
});

describe('files a crash left behind', () => {
  it('are swept when a server starts: stored files that no upload refers to, once an hour old', async () => {
    const uploads = join(server.config.dataDir, 'uploads');
    const named = (letter: string) => `${letter.repeat(32)}.bin`;
    await writeFile(join(uploads, named('a')), 'left by a crash');
    await writeFile(join(uploads, named('b')), 'a request still writing');
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(join(uploads, named('a')), twoHoursAgo, twoHoursAgo);
    const referenced = (await server.db.query<{ storage_name: string }>('SELECT storage_name FROM uploads')).rows.map((row) => row.storage_name);
    expect(referenced.length).toBeGreaterThan(0);
    await server.buildAnother();
    const after = await readdir(uploads);
    expect(after).not.toContain(named('a'));
    expect(after).toContain(named('b'));
    for (const name of referenced) expect(after).toContain(name);
  });
});

describe('POST /driver/completeVehicleDocs', () => {
  const submit = (values: Record<string, FormValue>, token = vehicleDriver.token) => post(app, '/driver/completeVehicleDocs', token, formData(values));

  it('stores the six photos with the driver’s vehicle and returns its id, the same each time they are sent', async () => {
    const response = await submit(vehicleImageValues());
    expect(response.statusCode).toBe(200);
    const id = json<{ success: boolean; data: { vehicle: { id: string } } }>(response);
    expect(id).toEqual({ success: true, data: { vehicle: { id: expect.stringMatching(/^[0-9a-f-]{36}$/) } } });
    // One vehicle per driver: made with the first photos, kept when they are sent again.
    expect(id.data.vehicle.id).toBe(vehicleId);
    const vehicles = await server.db.query<{ id: string }>('SELECT id FROM vehicles WHERE driver_id = $1', [vehicleDriver.driverId]);
    expect(vehicles.rows).toEqual([{ id: vehicleId }]);
    const { rows } = await server.db.query<{ id: string; field: string }>(
      "SELECT id, field FROM uploads WHERE driver_id = $1 AND step = 'uploadVehicleImages' ORDER BY field",
      [vehicleDriver.driverId],
    );
    expect(rows.map((row) => row.field)).toEqual([...VEHICLE_IMAGE_FIELDS].sort());
    const stored = await server.db.query<{ files: Record<string, string> }>(
      "SELECT files FROM step_answers WHERE driver_id = $1 AND step = 'uploadVehicleImages'",
      [vehicleDriver.driverId],
    );
    expect(stored.rows[0]!.files).toEqual(Object.fromEntries(rows.map((row) => [row.field, row.id])));
  });

  it.each([
    ['vehicleImageFront', 'Provide Front Image of the vehicle'],
    ['vehicleImageRear', 'Provide Rear Image of the vehicle'],
    ['vehicleImagePassengerSide', 'Provide Passenger side Image of the vehicle'],
    ['vehicleImageDriverSide', 'Provide Driver Side Image of the vehicle'],
    ['vehicleImageInteriorFront', 'Provide Front Interior Image of the vehicle'],
    ['vehicleImageInteriorBack', 'Provide Back Interior Image of the vehicle'],
  ])('rejects the photos without %s with "%s"', async (field, message) => {
    expectFieldError(await submit(vehicleImageValues({ [field]: undefined })), field, message);
  });

  it('rejects a photo that is not an image with the image message', async () => {
    expectFieldError(await submit(vehicleImageValues({ vehicleImageRear: file(TEXT_BYTES, 'rear.png', 'image/png') })), 'vehicleImageRear', IMAGE_MESSAGE);
  });

  it('accepts WebP, GIF and HEIF photos: WebP stays WebP, GIF becomes PNG, HEIF becomes JPEG', async () => {
    const webp = await solidImage().webp().toBuffer();
    const gif = await solidImage().gif().toBuffer();
    // An AVIF-coded HEIF under the generic "mif1" brand: what sharp's own libheif decodes.
    const heif = await solidImage().heif({ compression: 'av1' }).toBuffer();
    heif.write('mif1', 8, 'latin1');
    const response = await submit(
      vehicleImageValues({
        vehicleImageFront: file(webp, 'a.webp', 'image/webp'),
        vehicleImageRear: file(gif, 'b.gif', 'image/gif'),
        vehicleImageInteriorBack: file(heif, 'c.heif', 'image/heif'),
      }),
    );
    expect(response.statusCode, response.body).toBe(200);
    const id = json<{ data: { vehicle: { id: string } } }>(response).data.vehicle.id;
    const { rows } = await server.db.query<{ field: string; mime: string; storage_name: string }>(
      "SELECT u.field, u.mime, u.storage_name FROM uploads u JOIN vehicles v ON v.driver_id = u.driver_id WHERE v.id = $1 AND u.step = 'uploadVehicleImages' AND u.field IN ('vehicleImageFront', 'vehicleImageRear', 'vehicleImageInteriorBack') ORDER BY u.field",
      [id],
    );
    expect(rows.map((row) => [row.field, row.mime])).toEqual([
      ['vehicleImageFront', 'image/webp'],
      ['vehicleImageInteriorBack', 'image/jpeg'],
      ['vehicleImageRear', 'image/png'],
    ]);
    for (const row of rows) {
      const stored = await sharp((await app.uploads.read(row.storage_name))!).metadata();
      expect([`image/${stored.format}`, stored.width, stored.height], row.field).toEqual([row.mime, 32, 24]);
    }
  });

  it('refuses a HEIC photo sharp cannot decode with 400 and the unreadable message', async () => {
    const heic = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic'), Buffer.alloc(16)]);
    const response = await submit(vehicleImageValues({ vehicleImageInteriorBack: file(heic, 'c.heic', 'image/heic') }));
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message: UNREADABLE_MESSAGE, errors: { vehicleImageInteriorBack: [UNREADABLE_MESSAGE] } });
  });

  it('rejects a 7th file with 413', async () => {
    const form = formData(vehicleImageValues());
    form.append('vehicleImageFront', new Blob([new Uint8Array(JPEG_BYTES)], { type: 'image/jpeg' }), 'again.jpg');
    const response = await post(app, '/driver/completeVehicleDocs', vehicleDriver.token, form);
    expect(response.statusCode).toBe(413);
    expect(json(response)).toEqual({ message: 'Too many files were sent with this form.' });
  });

  it('rejects a file under an unknown name', async () => {
    const response = await submit({ ...vehicleImageValues({ vehicleImageRear: undefined }), vehicleImageRoof: file(JPEG_BYTES, 'roof.jpg', 'image/jpeg') });
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('Unknown field: vehicleImageRoof');
  });

  it('asks for the profile first (403)', async () => {
    const fresh = await readyDriver();
    const response = await submit(vehicleImageValues(), fresh.token);
    expect(response.statusCode).toBe(403);
    expect(json(response).message).toBe('Please complete your profile first.');
  });

  it('answers 401 "Session expired, Please relogin" to an unknown token', async () => {
    const response = await submit(vehicleImageValues(), 'B'.repeat(43));
    expect(response.statusCode).toBe(401);
    expect(json(response).message).toBe('Session expired, Please relogin');
  });
});

describe('POST /driver/uploads/:step/:field: a file sent ahead of its step', () => {
  const ahead = (step: string, field: string, values: Record<string, FormValue>, token = vehicleDriver.token) =>
    post(app, `/driver/uploads/${step}/${field}`, token, formData(values));
  const front = (bytes = JPEG_BYTES) => ({ vehicleImageFront: file(bytes, 'front.jpg', 'image/jpeg') });
  const submit = (values: Record<string, FormValue>, token = vehicleDriver.token) => post(app, '/driver/completeVehicleDocs', token, formData(values));

  it('is kept with an id that the step then sends instead of the photo, and the step holds it', async () => {
    const response = await ahead('uploadVehicleImages', 'vehicleImageFront', front());
    expect(response.statusCode).toBe(200);
    const { id } = json<{ id: string }>(response);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const sent = await submit(vehicleImageValues({ vehicleImageFront: `kept:${id}` }));
    expect(sent.statusCode, sent.body).toBe(200);
    const stored = await server.db.query<{ files: Record<string, string> }>(
      "SELECT files FROM step_answers WHERE driver_id = $1 AND step = 'uploadVehicleImages'",
      [vehicleDriver.driverId],
    );
    expect(stored.rows[0]!.files.vehicleImageFront).toBe(id);
    const photo = await app.inject({ method: 'GET', url: `/driver/uploads/${id}`, headers: bearer(vehicleDriver.token) });
    expect(photo.statusCode).toBe(200);
    expect(photo.headers['content-type']).toBe('image/jpeg');
  });

  it('takes the place of the one sent ahead there before, which can no longer be kept', async () => {
    const first = json<{ id: string }>(
      await ahead('uploadVehicleImages', 'vehicleImageRear', { vehicleImageRear: file(JPEG_BYTES, 'rear.jpg', 'image/jpeg') }),
    );
    const second = json<{ id: string }>(await ahead('uploadVehicleImages', 'vehicleImageRear', { vehicleImageRear: file(PNG_BYTES, 'rear.png', 'image/png') }));
    expect(second.id).not.toBe(first.id);
    const stale = await submit(vehicleImageValues({ vehicleImageRear: `kept:${first.id}` }));
    expect(stale.statusCode).toBe(400);
    expect(json<ErrorBody>(stale).message).toBe('A file you kept from before is no longer there. Please add it again: vehicleImageRear');
    expect((await submit(vehicleImageValues({ vehicleImageRear: `kept:${second.id}` }))).statusCode).toBe(200);
  });

  it('can be kept only by the driver who sent it, in the field it was sent for', async () => {
    const { id } = json<{ id: string }>(await ahead('uploadVehicleImages', 'vehicleImageFront', front()));
    const other = await submit(vehicleImageValues({ vehicleImageRear: `kept:${id}` }));
    expect(other.statusCode).toBe(400);
    expect(json<ErrorBody>(other).message).toBe('A file you kept from before is no longer there. Please add it again: vehicleImageRear');
    const stranger = await readyDriver();
    await completeProfile(app, stranger);
    const theirs = await submit(vehicleImageValues({ vehicleImageFront: `kept:${id}` }), stranger.token);
    expect(theirs.statusCode).toBe(400);
    const photo = await app.inject({ method: 'GET', url: `/driver/uploads/${id}`, headers: bearer(stranger.token) });
    expect(photo.statusCode).toBe(403);
  });

  it('refuses what is not an image with the step’s own message, on the field', async () => {
    expectFieldError(
      await ahead('uploadVehicleImages', 'vehicleImageFront', { vehicleImageFront: file(TEXT_BYTES, 'front.png', 'image/png') }),
      'vehicleImageFront',
      IMAGE_MESSAGE,
    );
  });

  it('refuses a request without the file with the field’s own message', async () => {
    expectFieldError(await ahead('uploadVehicleImages', 'vehicleImageFront', {}), 'vehicleImageFront', 'Provide Front Image of the vehicle');
  });

  it.each([
    ['a step with no such file', 'uploadVehicleImages', 'vehicleImageRoof'],
    ['a field that is no file', 'completeProfile', 'firstName'],
    ['a step that does not exist', 'noSuchStep', 'vehicleImageFront'],
  ])('answers 404 for %s', async (_case, step, field) => {
    const response = await ahead(step, field, front());
    expect(response.statusCode).toBe(404);
    expect(json<ErrorBody>(response).message).toBe('This step takes no file there.');
  });

  it('refuses a second file, or a file under another name, in one request', async () => {
    const two = await ahead('uploadVehicleImages', 'vehicleImageFront', { ...front(), vehicleImageRear: file(JPEG_BYTES, 'rear.jpg', 'image/jpeg') });
    expect(two.statusCode).toBeGreaterThanOrEqual(400);
    expect(two.statusCode).toBeLessThan(500);
    const renamed = await ahead('uploadVehicleImages', 'vehicleImageFront', { vehicleImageRear: file(JPEG_BYTES, 'rear.jpg', 'image/jpeg') });
    expect(renamed.statusCode).toBe(400);
    expect(json<ErrorBody>(renamed).message).toBe('Send one file, as vehicleImageFront.');
  });

  it('answers 415 to JSON and 401 without a session', async () => {
    const asJson = await app.inject({
      method: 'POST',
      url: '/driver/uploads/uploadVehicleImages/vehicleImageFront',
      headers: bearer(vehicleDriver.token),
      payload: {},
    });
    expect(asJson.statusCode).toBe(415);
    const anonymous = await app.inject({ method: 'POST', url: '/driver/uploads/uploadVehicleImages/vehicleImageFront', payload: {} });
    expect(anonymous.statusCode).toBe(401);
  });

  it('is removed, with its stored file, once its time has passed and no step took it', async () => {
    const driver = await readyDriver();
    const { id } = json<{ id: string }>(await ahead('uploadVehicleImages', 'vehicleImageFront', front(), driver.token));
    const held = json<{ id: string }>(
      await ahead('completeProfile', 'profilePicture', { profilePicture: file(JPEG_BYTES, 'me.jpg', 'image/jpeg') }, driver.token),
    );
    const row = (uploadId: string) => server.db.query<{ storage_name: string }>('SELECT storage_name FROM uploads WHERE id = $1', [uploadId]);
    const storageName = (await row(id)).rows[0]!.storage_name;
    // As the retention pass does (plugins/retention.ts), its time ago: the rows, then their files.
    const sweep = async (sentBefore: number) => {
      const names = await deleteUntakenUploads(server.db, new Date(sentBefore), null, new Date());
      await removeQueuedFiles(server.db, app.uploads, names);
      return names.length;
    };
    const keptFor = loadRetention().keepForDays.untakenUploads * 24 * 60 * 60 * 1000;
    const hour = 60 * 60 * 1000;
    expect(await sweep(Date.now() + hour - keptFor)).toBe(0);
    await completeProfile(app, driver, { profilePicture: `kept:${held.id}` });
    expect(await sweep(Date.now() + hour)).toBeGreaterThanOrEqual(1);
    expect((await row(id)).rows).toEqual([]);
    expect(await app.uploads.read(storageName)).toBeNull();
    expect((await row(held.id)).rows).toHaveLength(1);
  });
});

describe('uploaded images are decoded and encoded again before they are stored', () => {
  const submit = (values: Record<string, FormValue>) => post(app, '/driver/completeProfile', profileDriver.token, formData(values));
  const uploadsDir = () => join(server.config.dataDir, 'uploads');

  /** The stored upload of a profile field, as GET /driver/uploads/:id sends it back. */
  async function storedImage(field: string) {
    const { rows } = await server.db.query<{ id: string; mime: string; size: number }>(
      "SELECT id, mime, size FROM uploads WHERE driver_id = $1 AND step = 'completeProfile' AND field = $2",
      [profileDriver.driverId, field],
    );
    const row = rows[0]!;
    const response = await app.inject({ method: 'GET', url: `/driver/uploads/${row.id}`, headers: bearer(profileDriver.token) });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe(row.mime);
    expect(response.rawPayload).toHaveLength(row.size);
    return { mime: row.mime, bytes: response.rawPayload, metadata: await sharp(response.rawPayload).metadata() };
  }

  /** Whether EXIF bytes hold the GPS IFD pointer (tag 0x8825), in either byte order. */
  const hasGpsPointer = (exif: Buffer) => exif.includes(Buffer.from([0x88, 0x25])) || exif.includes(Buffer.from([0x25, 0x88]));

  it('stores a JPEG without its EXIF (GPS position, camera), turned upright by its orientation tag', async () => {
    const photo = await solidImage(32, 24)
      .jpeg()
      .withExif({
        IFD0: { Make: 'OnrampTestCam', Model: 'Phone 1' },
        IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '30/1 16/1 0/1', GPSLongitudeRef: 'W', GPSLongitude: '97/1 44/1 0/1' },
      })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const sent = await sharp(photo).metadata();
    expect(sent.orientation).toBe(6);
    expect(hasGpsPointer(sent.exif!)).toBe(true);
    expect(photo.includes('OnrampTestCam')).toBe(true);

    const response = await submit(profileValues({ socialSecurityCardFront: file(photo, 'card.jpg', 'image/jpeg') }));
    expect(response.statusCode, response.body).toBe(200);
    const stored = await storedImage('socialSecurityCardFront');
    expect(stored.mime).toBe('image/jpeg');
    expect(stored.metadata.format).toBe('jpeg');
    expect(stored.metadata.exif).toBeUndefined();
    expect(stored.metadata.orientation).toBeUndefined();
    expect(stored.bytes.includes('OnrampTestCam')).toBe(false);
    // Orientation 6 is a quarter turn: the 32×24 pixels now stand 24×32.
    expect([stored.metadata.width, stored.metadata.height]).toEqual([24, 32]);
  });

  it('keeps a PNG a PNG, without its metadata', async () => {
    const picture = await solidImage(20, 10, '#ff8800')
      .png()
      .withExif({ IFD0: { Make: 'OnrampTestCam' } })
      .toBuffer();
    expect((await sharp(picture).metadata()).exif).toBeDefined();
    const response = await submit(profileValues({ profilePicture: file(picture, 'me.png', 'image/png') }));
    expect(response.statusCode, response.body).toBe(200);
    const stored = await storedImage('profilePicture');
    expect(stored.mime).toBe('image/png');
    expect([stored.metadata.format, stored.metadata.width, stored.metadata.height]).toEqual(['png', 20, 10]);
    expect(stored.metadata.exif).toBeUndefined();
    expect(stored.bytes.includes('OnrampTestCam')).toBe(false);
  });

  it('refuses an image over 40 megapixels with 413, before storing anything', async () => {
    // 10000×10000 of one colour: 100 megapixels (≈300 MB decoded) in ≈300 KB of PNG.
    const bomb = await solidImage(10_000, 10_000, '#ffffff').png({ compressionLevel: 9 }).toBuffer();
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const before = await readdir(uploadsDir());
    const response = await submit(profileValues({ profilePicture: file(bomb, 'bomb.png', 'image/png') }));
    expect(response.statusCode).toBe(413);
    expect(json(response)).toEqual({ message: TOO_MANY_PIXELS_MESSAGE, errors: { profilePicture: [TOO_MANY_PIXELS_MESSAGE] } });
    expect((await readdir(uploadsDir())).sort()).toEqual(before.sort());
  });

  it('accepts an image of exactly 40 megapixels', async () => {
    const largest = await solidImage(8000, 5000, '#ffffff').png({ compressionLevel: 9 }).toBuffer();
    const response = await submit(profileValues({ profilePicture: file(largest, 'large.png', 'image/png') }));
    expect(response.statusCode, response.body).toBe(200);
    const stored = await storedImage('profilePicture');
    expect([stored.metadata.width, stored.metadata.height]).toEqual([8000, 5000]);
  });

  it.each([
    ['its first 200 bytes', (jpeg: Buffer) => jpeg.subarray(0, 200)],
    ['its first half (a whole header, half the pixels)', (jpeg: Buffer) => jpeg.subarray(0, Math.floor(jpeg.length / 2))],
  ])('refuses a JPEG cut to %s with 400 and the unreadable message', async (_cut, cut) => {
    const noise = Buffer.from(Array.from({ length: 64 * 48 * 3 }, (_, i) => (i * 7919) % 256));
    const jpeg = await sharp(noise, { raw: { width: 64, height: 48, channels: 3 } })
      .jpeg()
      .toBuffer();
    const before = await readdir(uploadsDir());
    const response = await submit(profileValues({ socialSecurityCardBack: file(cut(jpeg), 'back.jpg', 'image/jpeg') }));
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message: UNREADABLE_MESSAGE, errors: { socialSecurityCardBack: [UNREADABLE_MESSAGE] } });
    expect((await readdir(uploadsDir())).sort()).toEqual(before.sort());
  });

  it('answers a form that is not valid with the schema’s message before it reads any image', async () => {
    const response = await submit(profileValues({ SSN: '12345', socialSecurityCardBack: file(JPEG_BYTES.subarray(0, 100), 'back.jpg', 'image/jpeg') }));
    expectFieldError(response, 'SSN', 'SSN must be 9 digits.');
  });
});

describe('POST /driver/completeVehicle', () => {
  const submit = (values: Record<string, FormValue>, token = vehicleDriver.token) => post(app, '/driver/completeVehicle', token, formData(values));

  it('stores the vehicle, sends the driver for approval and answers 200', async () => {
    const driver = await readyDriver();
    await completeProfile(app, driver);
    const id = await uploadVehicleImages(app, driver);
    const response = await submit(vehicleValues(id, { isWheelChairAccessible: 'true' }), driver.token);
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ success: true, message: 'Your profile and vehicle were sent for approval.' });
    const { rows } = await server.db.query<{ schema_name: string; answers: Record<string, unknown>; files: Record<string, string> }>(
      "SELECT schema_name, answers, files FROM step_answers WHERE driver_id = $1 AND step = 'addVehicle'",
      [driver.driverId],
    );
    expect(rows[0]!.schema_name).toBe('vehicle');
    expect(rows[0]!.answers).toMatchObject({
      vehicleMake: 'Toyota',
      vehicleName: 'Prius',
      modelYear: '2020',
      plateNumber: 'ABC1234',
      isWheelChairAccessible: true,
      proofInsuranceExpiryDate: isoDateOffset(1, 0),
    });
    expect(Object.keys(rows[0]!.files).sort()).toEqual(['driverLicenseCardBack', 'driverLicenseCardFront', 'proofInsurance', 'vehicleRegistrationCard']);
    const vehicle = await server.db.query<{ driver_id: string; sent: boolean }>(
      'SELECT driver_id, submitted_at IS NOT NULL AS sent FROM vehicles WHERE id = $1',
      [id],
    );
    expect(vehicle.rows).toEqual([{ driver_id: driver.driverId, sent: true }]);
    const status = await app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(driver.token) });
    expect(json(status)).toEqual({ data: statusData({ status: 'pending', isSessionComplete: true, vehicleId: id }) });
  });

  it.each([
    ['vehicleMake', 'Please enter your vehicle make'],
    ['vehicleName', 'Please enter your vehicle model'],
    ['modelYear', 'Please enter your vehicle registration year'],
    ['plateNumber', 'Please enter your vehicle number plate.'],
    ['driverLicenseCardFront', 'Provide Driver License Front Image.'],
    ['driverLicenseCardBack', 'Provide Driver License Back Image.'],
    ['driverLicenseExpiryDate', 'Please provide driver license expiration date.'],
    ['proofInsurance', 'Provide Proof of insurance Image.'],
    ['proofInsuranceExpiryDate', 'Please provide proof of insurance expiration date.'],
    ['vehicleRegistrationCard', 'Provide Vehicle Registration Card Image.'],
    ['vehicleRegistrationExpiryDate', 'Please provide vehicle registration expiration date.'],
  ])('rejects a vehicle without %s with "%s"', async (field, message) => {
    expectFieldError(await submit(vehicleValues(vehicleId, { [field]: undefined })), field, message);
  });

  it(`rejects a year before ${THIS_YEAR - 100} with "${YEAR_RANGE}"`, async () => {
    expectFieldError(await submit(vehicleValues(vehicleId, { modelYear: String(THIS_YEAR - 101) })), 'modelYear', YEAR_RANGE);
  });

  it(`rejects a year after ${THIS_YEAR + 1} with "${YEAR_RANGE}"`, async () => {
    expectFieldError(await submit(vehicleValues(vehicleId, { modelYear: String(THIS_YEAR + 2) })), 'modelYear', YEAR_RANGE);
  });

  it('rejects a year that is not 4 digits with "Please enter a valid year in YYYY format"', async () => {
    expectFieldError(await submit(vehicleValues(vehicleId, { modelYear: '20x1' })), 'modelYear', 'Please enter a valid year in YYYY format');
  });

  it.each(['driverLicenseExpiryDate', 'vehicleRegistrationExpiryDate', 'proofInsuranceExpiryDate'])(
    'rejects a %s less than 6 months ahead with "You can only select a date that is 6 months ahead."',
    async (field) => {
      expectFieldError(await submit(vehicleValues(vehicleId, { [field]: isoDateOffset(0, 1) })), field, 'You can only select a date that is 6 months ahead.');
    },
  );

  it.each([
    ['driverLicenseExpiryDate', 'Please provide driver license expiration date.'],
    ['vehicleRegistrationExpiryDate', 'Please provide vehicle registration expiration date.'],
    ['proofInsuranceExpiryDate', 'Please provide proof of insurance expiration date.'],
  ])('rejects a %s that is not a date with "%s"', async (field, message) => {
    expectFieldError(await submit(vehicleValues(vehicleId, { [field]: '31/12/2030' })), field, message);
  });

  it('rejects a vehicle make longer than 50 characters', async () => {
    expectFieldError(await submit(vehicleValues(vehicleId, { vehicleMake: 'T'.repeat(51) })), 'vehicleMake', 'Vehicle make must be at most 50 characters.');
  });

  it('rejects a document that is not an image with the image message', async () => {
    expectFieldError(
      await submit(vehicleValues(vehicleId, { proofInsurance: file(TEXT_BYTES, 'insurance.jpg', 'image/jpeg') })),
      'proofInsurance',
      IMAGE_MESSAGE,
    );
  });

  it('rejects a wheelchair answer that is not true or false', async () => {
    const response = await submit(vehicleValues(vehicleId, { isWheelChairAccessible: 'maybe' }));
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('isWheelChairAccessible must be boolean');
  });

  it('asks for the vehicle id when it is missing', async () => {
    const response = await submit(vehicleValues(vehicleId, { vehicleId: undefined }));
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('Vehicle Id not found. Please re-signup.');
  });

  it('refuses another driver’s vehicle with 403', async () => {
    const other = await readyDriver();
    const response = await submit(vehicleValues(vehicleId), other.token);
    expect(response.statusCode).toBe(403);
    expect(json(response).message).toBe('This vehicle does not belong to your account. Please upload your vehicle images again.');
  });

  it('refuses a vehicle id that is no vehicle of the driver with 403, and one that is no id at all with 400', async () => {
    const message = 'This vehicle does not belong to your account. Please upload your vehicle images again.';
    const unknown = await submit(vehicleValues(randomUUID()));
    expect([unknown.statusCode, json(unknown).message]).toEqual([403, message]);
    const malformed = await submit(vehicleValues('not-a-uuid'));
    expect([malformed.statusCode, json(malformed).message]).toEqual([400, message]);
  });

  it('rejects the paid flag as an unknown field', async () => {
    const response = await submit(vehicleValues(vehicleId, { isSubscriptionPaid: 'true' }));
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('Unknown field: isSubscriptionPaid');
  });
});

describe('GET /driver/status/:id', () => {
  const status = (id: string, headers: Record<string, string>) => app.inject({ method: 'GET', url: `/driver/status/${id}`, headers });

  it('answers the driver’s own status, not to be cached', async () => {
    const response = await status(profileDriver.driverId, bearer(profileDriver.token));
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ data: statusData({ status: 'pending', isSessionComplete: false }) });
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('costs one query, prepared: the status is read with the session', async () => {
    await status(profileDriver.driverId, bearer(profileDriver.token));
    const query = vi.spyOn(app.db, 'query');
    const prepared = vi.spyOn(app.db, 'prepared');
    try {
      const response = await status(profileDriver.driverId, bearer(profileDriver.token));
      expect(json(response)).toEqual({ data: statusData({ status: 'pending', isSessionComplete: false }) });
      expect(prepared).toHaveBeenCalledTimes(1);
      expect(prepared.mock.calls[0]?.[0]).toBe(HOLDER_STATEMENT);
      expect(query).not.toHaveBeenCalled();
    } finally {
      query.mockRestore();
      prepared.mockRestore();
    }
  });

  it('refuses another driver’s id with 403', async () => {
    const response = await status(vehicleDriver.driverId, bearer(profileDriver.token));
    expect(response.statusCode).toBe(403);
    expect(json(response)).toEqual({ message: 'You can only see your own status.' });
  });

  it('refuses an id that is not a driver id with 403', async () => {
    expect((await status('1 OR 1=1', bearer(profileDriver.token))).statusCode).toBe(403);
  });

  it('answers 401 "Token not found" without an Authorization header', async () => {
    const response = await status(profileDriver.driverId, {});
    expect(response.statusCode).toBe(401);
    expect(json(response)).toEqual({ message: 'Token not found', reason: 'signInAgain' });
  });

  it('answers 401 to a token cookie without the Authorization header', async () => {
    const response = await status(profileDriver.driverId, { cookie: `token=${encodeURIComponent(profileDriver.token)}` });
    expect(response.statusCode).toBe(401);
    expect(json(response).message).toBe('Token not found');
  });

  it('answers 401 "Session expired, Please relogin" once the session is 24 hours old', async () => {
    server.clock.advance(24 * 60 * 60 * 1000 + 1000);
    const response = await status(profileDriver.driverId, bearer(profileDriver.token));
    expect(response.statusCode).toBe(401);
    expect(json(response)).toEqual({ message: 'Session expired, Please relogin', reason: 'signInAgain' });
  });
});

describe('the server log', () => {
  it('holds no SSN, password, session token or ID token, and codes only on the local outbox lines', async () => {
    const driver = await readyDriver();
    await completeProfile(app, driver, { SSN: '555443333' });
    const log = server.logs.join('\n');
    expect(log).not.toContain('555443333');
    expect(log).not.toContain(driver.user.password);
    expect(log).not.toContain(driver.token);
    expect(log).not.toContain(driver.user.idToken);
    const code = await latestCode(app, driver.phone);
    for (const line of server.logs.filter((each) => each.includes(`"${code}"`) || each.includes(` ${code} `))) {
      expect(line).toContain('Local outbox');
    }
  });
});
