// Documents in S3-compatible object storage (a local s3rver): stored encrypted, read back only
// for their driver and administrators, replaced and swept like files on disk, and a store that is
// away answers 503 without leaving anything behind.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3, type LocalS3 } from '../support/s3.js';
import {
  bearer,
  completeProfile,
  json,
  post,
  profileValues,
  formData,
  startTestServer,
  verifiedDriver,
  verifyPhone,
  type TestDriver,
  type TestServer,
} from '../support/server.js';

let s3: LocalS3;
let server: TestServer;
let app: FastifyInstance;

beforeAll(async () => {
  s3 = await startS3();
  server = await startTestServer({ storage: s3.storage });
  app = server.app;
});
afterAll(async () => {
  await server?.close();
  await s3?.close();
});

const uploadsOf = async (driverId: string) =>
  (
    await server.db.query<{ id: string; field: string; storage_name: string }>(
      'SELECT id, field, storage_name FROM uploads WHERE driver_id = $1 ORDER BY field',
      [driverId],
    )
  ).rows;

describe('documents in S3-compatible storage', () => {
  let driver: TestDriver;
  beforeAll(async () => {
    driver = await verifiedDriver(app);
    await completeProfile(app, driver);
  });

  it('keeps each document as an object of the bucket, encrypted there, and nothing on the server’s disk', async () => {
    const rows = await uploadsOf(driver.driverId);
    expect(rows.map((row) => row.field)).toEqual(['profilePicture', 'socialSecurityCardBack', 'socialSecurityCardFront']);
    const objects = new Map((await s3.objects()).map((object) => [object.key, object.bytes]));
    for (const row of rows) {
      const sealed = objects.get(row.storage_name);
      expect(sealed, row.field).toBeDefined();
      // Neither a JPEG nor a PNG: the bucket holds ciphertext only.
      expect(sealed!.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))).toBe(false);
      expect(sealed!.subarray(1, 4).toString('latin1')).not.toBe('PNG');
      await expect(sharp(sealed!).metadata()).rejects.toThrow();
    }
    expect(await readdir(join(server.config.dataDir, 'uploads')).catch(() => [])).toEqual([]);
    expect(await readdir(join(server.config.dataDir, 'scratch'))).toEqual([]);
  });

  it('gives a document back, decrypted, to its driver and to an administrator, and to nobody else', async () => {
    const [row] = await uploadsOf(driver.driverId);
    const own = await app.inject({ method: 'GET', url: `/driver/uploads/${row!.id}`, headers: bearer(driver.token) });
    expect(own.statusCode).toBe(200);
    expect((await sharp(own.rawPayload).metadata()).format).toBe('png');
    const admin = await app.inject({ method: 'GET', url: `/admin/uploads/${row!.id}`, headers: bearer(server.reviewer.key) });
    expect(admin.rawPayload.equals(own.rawPayload)).toBe(true);
    const stranger = await verifiedDriver(app);
    expect((await app.inject({ method: 'GET', url: `/driver/uploads/${row!.id}`, headers: bearer(stranger.token) })).statusCode).toBe(403);
  });

  it('removes the objects a new profile replaces', async () => {
    const before = (await uploadsOf(driver.driverId)).map((row) => row.storage_name);
    await completeProfile(app, driver, { street: '9 Other St' });
    const after = (await uploadsOf(driver.driverId)).map((row) => row.storage_name);
    const keys = (await s3.objects()).map((object) => object.key);
    for (const name of before) expect(keys).not.toContain(name);
    for (const name of after) expect(keys).toContain(name);
  });

  it('answers 503 while the store is away, and leaves no object and no scratch file behind', async () => {
    const other = await verifiedDriver(app);
    await verifyPhone(app, other);
    const keys = (await s3.objects()).map((object) => object.key).sort();
    await s3.stop();
    let response;
    try {
      response = await post(app, '/driver/completeProfile', other.token, formData(profileValues()));
    } finally {
      await s3.start();
    }
    expect(response.statusCode).toBe(503);
    expect(json(response)).toEqual({ message: 'We can’t keep your photos and documents right now. Please try again in a minute.' });
    expect((await s3.objects()).map((object) => object.key).sort()).toEqual(keys);
    expect(await readdir(join(server.config.dataDir, 'scratch'))).toEqual([]);
    expect(await uploadsOf(other.driverId)).toEqual([]);
  });

  it('sweeps, when a server starts, objects no upload refers to once they are an hour old', async () => {
    const other = await verifiedDriver(app);
    await verifyPhone(app, other);
    await completeProfile(app, other);
    // A crash after the objects were written and before their rows: rows gone, objects left.
    const orphans = (await uploadsOf(other.driverId)).map((row) => row.storage_name);
    await server.db.query('DELETE FROM uploads WHERE driver_id = $1', [other.driverId]);
    const kept = (await uploadsOf(driver.driverId)).map((row) => row.storage_name);
    await server.buildAnother();
    // Too young yet: a request may still be writing them.
    for (const name of orphans) expect((await s3.objects()).map((object) => object.key)).toContain(name);
    server.clock.advance(2 * 60 * 60 * 1000);
    try {
      await server.buildAnother();
    } finally {
      server.clock.reset();
    }
    const keys = (await s3.objects()).map((object) => object.key);
    for (const name of orphans) expect(keys).not.toContain(name);
    for (const name of kept) expect(keys).toContain(name);
  });
});
