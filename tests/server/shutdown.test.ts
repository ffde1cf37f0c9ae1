// A stop in the order load balancers expect (src/server/shutdown.ts): not ready at once while still
// serving for the grace period, then no new connections while the requests in flight (an upload
// half sent) finish, within a bound. Through a listening app, and through the built server's
// signals. The rolling restart behind haproxy is tests/server/rollingRestart.test.ts.
import { request as httpRequest } from 'node:http';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../../tools/serverProcess.js';
import { STOPPING_MESSAGE } from '../../src/server/routes/health.js';
import { stopServing } from '../../src/server/shutdown.js';
import { bearer, file, formData, JPEG_BYTES, startTestServer, verifiedDriver, type TestDriver, type TestServer } from '../support/server.js';
import { scaled } from '../support/machineSpeed.js';

const UPLOAD_PATH = '/driver/uploads/uploadVehicleImages/vehicleImageFront';

/** A photo sent ahead of its step, over a connection of its own, its body held back after its first half until `finish`. */
async function heldUpload(baseUrl: string, driver: TestDriver, scratchFiles: () => string[]) {
  const before = scratchFiles();
  const body = new Response(formData({ vehicleImageFront: file(JPEG_BYTES, 'front.jpg', 'image/jpeg') }));
  const bytes = Buffer.from(await body.arrayBuffer());
  const { hostname, port } = new URL(baseUrl);
  const held: { request?: ReturnType<typeof httpRequest> } = {};
  const answered = new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
    const sent = httpRequest(
      {
        hostname,
        port,
        method: 'POST',
        path: UPLOAD_PATH,
        headers: { ...bearer(driver.token), 'content-type': body.headers.get('content-type')!, 'content-length': bytes.length },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode!, connection: response.headers.connection, body: text }));
      },
    );
    sent.on('error', reject);
    sent.write(bytes.subarray(0, bytes.length >> 1));
    held.request = sent;
  });
  // Awaited by the test, or not at all once the request was cut.
  answered.catch(() => undefined);
  // The first half has reached the server once the upload's scratch file holds it (on a busy
  // machine that can take far longer than the write).
  await expect.poll(scratchFiles, { timeout: scaled(10_000) }).toHaveLength(before.length + 1);
  return {
    answered,
    finish: () => held.request!.end(bytes.subarray(bytes.length >> 1)),
  };
}

describe('stopping a listening server', () => {
  let server: TestServer;
  let driver: TestDriver;

  beforeAll(async () => {
    server = await startTestServer();
    driver = await verifiedDriver(server.app);
  }, scaled(60_000));
  const apps: FastifyInstance[] = [];
  // A test that failed half-way leaves its app listening with a request held: cut it, or the close waits on it.
  afterAll(async () => {
    await Promise.allSettled(apps.map((app) => stopServing(app, { graceMs: 0, drainMs: 0 })));
    await server?.close();
  });

  const listening = async (): Promise<[FastifyInstance, string]> => {
    const app = await server.buildAnother();
    apps.push(app);
    return [app, await app.listen({ host: '127.0.0.1', port: 0 })];
  };
  const scratchFiles = () => readdirSync(join(server.config.dataDir, 'scratch'));

  it(
    'says not ready at once but serves through the grace, then takes no new connection while an upload in flight finishes',
    async () => {
      const [app, baseUrl] = await listening();
      const upload = await heldUpload(baseUrl, driver, scratchFiles);
      // The grace long enough for the three requests below to fit in it on a busy machine.
      const stopped = stopServing(app, { graceMs: scaled(800), drainMs: 10_000 });

      const ready = await fetch(`${baseUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ message: STOPPING_MESSAGE });
      const live = await fetch(`${baseUrl}/healthz`);
      expect(live.status).toBe(200);
      expect(await live.json()).toEqual({ status: 'ok' });
      const status = await fetch(`${baseUrl}/driver/status/${driver.driverId}`, { headers: bearer(driver.token) });
      expect(status.status).toBe(200);
      expect(await status.json()).toMatchObject({ data: { status: 'pending' } });
      // Each answer ends its connection: none is left idle for the close to cut under a client.
      expect(status.headers.get('connection')).toBe('close');

      // Once the grace is over, however late a busy machine's timer fires.
      const refused = () =>
        fetch(`${baseUrl}/healthz`).then(
          () => 'answered',
          (error: unknown) => (error as { cause?: { code?: string } }).cause?.code,
        );
      await expect.poll(refused, { interval: 100, timeout: scaled(10_000) }).toBe('ECONNREFUSED');
      upload.finish();
      const answer = await upload.answered;
      expect(answer.status, answer.body).toBe(200);
      expect(answer.connection).toBe('close');
      await stopped;

      const { id } = JSON.parse(answer.body) as { id: string };
      const { rows } = await server.db.query<{ storage_name: string }>('SELECT storage_name FROM uploads WHERE id = $1', [id]);
      expect(rows).toHaveLength(1);
      expect(readdirSync(join(server.config.dataDir, 'uploads'))).toContain(rows[0]!.storage_name);
      expect(scratchFiles()).toEqual([]);
    },
    scaled(30_000),
  );

  it(
    'cuts a request still in flight when the drain bound has passed, and keeps none of its file',
    async () => {
      const [app, baseUrl] = await listening();
      const before = scratchFiles();
      const upload = await heldUpload(baseUrl, driver, scratchFiles);
      const started = Date.now();
      await stopServing(app, { graceMs: 0, drainMs: 300 });
      expect(Date.now() - started).toBeLessThan(5_000);
      await expect(upload.answered).rejects.toMatchObject({ code: 'ECONNRESET' });
      await expect.poll(scratchFiles).toEqual(before);
    },
    scaled(30_000),
  );
});

describe('the built server on SIGTERM', () => {
  let folder: string;
  let servers: Promise<ServerProcess>[];
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'onramp-shutdown-'));
    // Both at once: each opens an embedded database of its own, which takes seconds.
    servers = [1_500, 60_000].map((graceMs) =>
      startServerProcess(
        { DATA_DIR: join(folder, String(graceMs)), STATIC_DIR: join(folder, 'no-web-app'), SHUTDOWN_GRACE_MS: String(graceMs) },
        scaled(90_000),
      ),
    );
    for (const server of servers) server.catch(() => undefined);
  });
  afterAll(async () => {
    await Promise.allSettled(servers.map(async (server) => (await server).stop()));
    rmSync(folder, { recursive: true, force: true });
  });

  it(
    'answers /readyz 503 and /healthz 200 through the grace, then exits with 0',
    async () => {
      const server = await servers[0]!;
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      const started = Date.now();
      const exited = server.stop();
      await expect.poll(async () => (await fetch(`${server.url}/readyz`)).status, { timeout: scaled(1_000), interval: 20 }).toBe(503);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect(await exited).toBe(0);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
    },
    scaled(120_000),
  );

  it(
    'exits at once on a second SIGTERM',
    async () => {
      const server = await servers[1]!;
      const started = Date.now();
      const exited = server.stop();
      await expect.poll(async () => (await fetch(`${server.url}/readyz`)).status, { timeout: scaled(1_000), interval: 20 }).toBe(503);
      void server.stop();
      expect(await exited).toBe(1);
      expect(Date.now() - started).toBeLessThan(10_000);
    },
    scaled(120_000),
  );
});
