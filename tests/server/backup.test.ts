// Backing up and restoring, as docs/operations.md says to: drivers with their documents on one
// PostgreSQL and one document store; the database archived with pg_dump and the documents copied;
// then a new PostgreSQL restored from the archive and a new store from the copy, under a new server
// with the same data keys. Every driver reads back through the API as before, every document decrypts.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ReviewDriver } from '../../src/shared/review.js';
import { runningPostgres, type TestPostgres } from '../../tools/postgres.js';
import { startS3, type LocalS3 } from '../support/s3.js';
import { bearer, json, sendVehicle, startTestServer, verifiedDriver, verifyPhone, type TestDriver, type TestServer } from '../support/server.js';
import { scaled } from '../support/machineSpeed.js';

/** What the API shows of a driver: their own status, and the review page's answers with each document's bytes. */
async function shownOf(server: TestServer, driver: TestDriver) {
  const status = await server.app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(driver.token) });
  const review = await server.app.inject({ method: 'GET', url: `/admin/drivers/${driver.driverId}`, headers: bearer(server.reviewer.key) });
  expect(review.statusCode, review.body).toBe(200);
  const { steps } = json<ReviewDriver>(review);
  const documents: Record<string, { status: number; bytes: string }> = {};
  for (const step of steps) {
    for (const field of step.fields) {
      if (!field.file) continue;
      const file = await server.app.inject({ method: 'GET', url: field.file.url, headers: bearer(server.reviewer.key) });
      documents[`${step.step}.${field.field}`] = { status: file.statusCode, bytes: file.rawPayload.toString('base64') };
    }
  }
  // The document's address names its upload, the same in both; its answers and its status as they were.
  return { status: { code: status.statusCode, data: json<{ data: unknown }>(status).data }, steps, documents };
}

const STORES = [
  { name: 'on the server’s disk', s3: false },
  { name: 'in S3', s3: true },
];

describe.each(STORES)('a backup of PostgreSQL and of the documents $name', { tags: ['postgresql'] }, ({ s3: inS3 }) => {
  const closing: (() => Promise<unknown> | void)[] = [];
  afterAll(async () => {
    for (const close of closing.reverse()) await close();
  });

  async function serverOn(postgres: TestPostgres, store: LocalS3 | null, more: Parameters<typeof startTestServer>[0] = {}) {
    const server = await startTestServer({ database: { kind: 'postgres', url: postgres.url }, ...(store ? { storage: store.storage } : {}), ...more });
    // A second close (the backed-up server is closed in the test) is nothing.
    closing.push(() => server.close().catch(() => undefined));
    return server;
  }

  it(
    'restores to a new database and a new store from which every driver reads back as before, every document decrypted',
    async () => {
      const [postgres, restoredPostgres] = await Promise.all([runningPostgres(), runningPostgres()]);
      closing.push(
        () => postgres.remove(),
        () => restoredPostgres.remove(),
      );
      const [store, restoredStore] = inS3 ? await Promise.all([startS3(), startS3()]) : [null, null];
      if (store && restoredStore)
        closing.push(
          () => store.close(),
          () => restoredStore.close(),
        );

      const server = await serverOn(postgres, store);
      const waiting = await verifiedDriver(server.app);
      await verifyPhone(server.app, waiting);
      await sendVehicle(server.app, waiting);
      const justSignedUp = await verifiedDriver(server.app);
      const drivers = [waiting, justSignedUp];
      const before = await Promise.all(drivers.map((driver) => shownOf(server, driver)));
      expect(before.map((shown) => shown.status.code)).toEqual([200, 200]);
      expect(Object.keys(before[0]!.documents)).toHaveLength(13);
      expect(Object.values(before[0]!.documents).every((document) => document.status === 200)).toBe(true);

      // The backup: the database's archive, and a copy of the documents (the bucket's objects, or the uploads folder).
      const archive = postgres.dump();
      const objects = store ? await store.objects() : [];
      const folder = await mkdtemp(join(tmpdir(), 'onramp-restored-'));
      closing.push(() => rm(folder, { recursive: true, force: true }));
      if (!store) await cp(join(server.config.dataDir, 'uploads'), join(folder, 'uploads'), { recursive: true });
      await server.close();
      postgres.remove();

      restoredPostgres.restore(archive);
      if (restoredStore) await restoredStore.put(objects);
      const restored = await serverOn(restoredPostgres, restoredStore, { dataDir: folder, dataKeys: server.config.dataKeys });
      const after = await Promise.all(drivers.map((driver) => shownOf(restored, driver)));
      expect(after).toEqual(before);
      // Two clusters, two servers and thirteen documents: minutes on a busy two-core machine.
    },
    scaled(240_000),
  );
});
