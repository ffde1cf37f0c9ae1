import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatKeyUsage } from '../../src/cli/adminKeys.js';
import type { WebhookSecret } from '../../src/shared/generated/webhooks.js';
import { openAnswers, type StoredAnswers } from '../../src/server/lib/answers.js';
import type { DataKey } from '../../src/server/lib/dataCipher.js';
import { dataKeyUsage, rotateDataKeys } from '../../src/server/lib/rekey.js';
import { bearer, completeProfile, integration, json, staffKey, startTestServer, type TestDriver, type TestServer, verifiedDriver } from '../support/server.js';
import { scaled } from '../support/machineSpeed.js';

let server: TestServer;
let driver: TestDriver;
let keyA: DataKey;
const keyB: DataKey = { id: 'b', key: randomBytes(32) };
let webhook: WebhookSecret;

beforeAll(async () => {
  server = await startTestServer();
  keyA = server.config.dataKeys[0]!;
  driver = await verifiedDriver(server.app);
  await completeProfile(server.app, driver, { SSN: '987654321' });
  const { key } = await staffKey(server.app, ['owner']);
  const made = await server.app.inject({ method: 'POST', url: '/admin/webhooks', headers: bearer(key), payload: { url: 'https://example.com/hooks' } });
  expect(made.statusCode, made.body).toBe(201);
  webhook = json<WebhookSecret>(made);
  await integration(server.app);
}, scaled(60_000));

afterAll(() => server?.close());

/** What a server with these data keys reads of the driver's data: the SSN in clear, each document's bytes, the webhook's secret. */
async function readsWith(app: FastifyInstance) {
  const { rows } = await app.db.query<{ answers: StoredAnswers }>("SELECT answers FROM step_answers WHERE driver_id = $1 AND step = 'completeProfile'", [
    driver.driverId,
  ]);
  const uploads = await app.db.query<{ id: string }>('SELECT id FROM uploads WHERE driver_id = $1 ORDER BY field', [driver.driverId]);
  const documents = [];
  for (const { id } of uploads.rows) {
    const response = await app.inject({ method: 'GET', url: `/admin/uploads/${id}`, headers: bearer(server.reviewer.key) });
    expect(response.statusCode).toBe(200);
    documents.push(response.rawPayload.length);
  }
  const secret = await app.db.query<{ secret: Uint8Array }>('SELECT secret FROM webhook_endpoints WHERE id = $1', [webhook.endpoint.id]);
  return {
    ssn: openAnswers(app.cipher, driver.driverId, 'completeProfile', rows[0]!.answers).SSN,
    documents,
    webhookSecret: app.webhooks.openSecret(webhook.endpoint.id, secret.rows[0]!.secret),
  };
}

describe('replacing the data key', () => {
  it(
    'reads everything under the old key beside the new, moves it all to the new, and then needs the old key no more',
    async () => {
      const before = await readsWith(server.app);
      expect(before.ssn).toBe('987654321');
      expect(before.documents).toHaveLength(3);
      expect(before.webhookSecret).toBe(webhook.secret);

      // Restarted with DATA_KEYS=b,0: the new key seals what comes, the old one still reads.
      const both = await server.buildAnother({ dataKeys: [keyB, keyA] });
      expect(await readsWith(both)).toEqual(before);
      const beforeRotation = formatKeyUsage(await dataKeyUsage(both), both.cipher.keyIds);
      expect(beforeRotation).toEqual([
        'key "b" (current): nothing yet',
        'key "0": 1 step answers, 1 webhook secrets, 1 integration secrets, 3 uploaded documents',
      ]);

      const progress: string[] = [];
      const report = await rotateDataKeys(both, (label, { seen, moved }) => progress.push(`${label}: ${seen} looked at, ${moved} moved`), 2);
      expect(report['step answers']).toEqual({ moved: 1, unreadable: 0 });
      expect(report['uploaded documents']).toEqual({ moved: 3, unreadable: 0 });
      expect(report['webhook secrets']).toEqual({ moved: 1, unreadable: 0 });
      expect(progress).toContain('uploaded documents: 3 looked at, 3 moved');
      expect(formatKeyUsage(await dataKeyUsage(both), both.cipher.keyIds).at(-1)).toBe('key "0": nothing, it can leave DATA_KEYS');
      // Run again, it finds nothing to move.
      const again = await rotateDataKeys(both, () => undefined);
      expect(Object.values(again).every(({ moved, unreadable }) => moved === 0 && unreadable === 0)).toBe(true);

      // Restarted with DATA_KEYS=b alone: everything still reads.
      const onlyB = await server.buildAnother({ dataKeys: [keyB] });
      expect(await readsWith(onlyB)).toEqual(before);
      const after = formatKeyUsage(await dataKeyUsage(onlyB), onlyB.cipher.keyIds);
      expect(after).toEqual(['key "b" (current): 1 step answers, 1 webhook secrets, 1 integration secrets, 3 uploaded documents']);
    },
    scaled(60_000),
  );

  it('says which key is missing when data names a key DATA_KEYS does not hold', async () => {
    const onlyNew = await server.buildAnother({ dataKeys: [{ id: 'c', key: randomBytes(32) }] });
    const lines = formatKeyUsage(await dataKeyUsage(onlyNew), onlyNew.cipher.keyIds);
    expect(lines).toEqual([
      'key "c" (current): nothing yet',
      'key "b" (not in DATA_KEYS): 1 step answers, 1 webhook secrets, 1 integration secrets, 3 uploaded documents, which cannot be read',
    ]);
  });
});
