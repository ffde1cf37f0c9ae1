// Signed webhooks (docs/integrations.md): the owners' admin API through inject, deliveries to a
// real HTTP receiver started here, the app's clock moved rather than slept on.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAjv } from '../../src/shared/ajv.js';
import eventsSchema from '../../src/shared/webhookEvents.schema.json';
import { webhookSecretContext } from '../../src/server/lib/sealContexts.js';
import { NOT_SIGNED_HERE } from '../../src/server/routes/devWebhooks.js';
import type { WebhookDeliveryPage, WebhookEndpoint, WebhookEndpointList, WebhookSecret } from '../../src/shared/generated/webhooks.js';
import {
  bankValues,
  bearer,
  decide,
  deliveredBy,
  json,
  paySubscription,
  post,
  profileValues,
  reviewVersion,
  sendVehicle,
  signUp,
  staffKey,
  staffSession,
  startTestServer,
  verifiedDriver,
  type TestServer,
} from '../support/server.js';
import { expectStaffMessagesFromFiles } from '../support/staffMessages.js';
import { scaled } from '../support/machineSpeed.js';

const HOUR_MS = 3600 * 1000;
const DAY_MS = 24 * HOUR_MS;
/** The endpoints' answer time in these tests: a hanging receiver is given up on quickly. */
const TIMEOUT_MS = 500;

let server: TestServer;
let app: FastifyInstance;
let owner: string;
const validEvent = createAjv().compile(eventsSchema);

beforeAll(async () => {
  server = await startTestServer({ webhookTimeoutMs: TIMEOUT_MS });
  app = server.app;
  owner = (await staffKey(app, ['owner'])).key;
});
afterAll(() => server?.close());
expectStaffMessagesFromFiles(() => server);

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** What the receiver answered it. */
  status: number;
}

/** An HTTP receiver on this machine: `answer` says each request's status (by its number, from 0), or 'hang' for none. */
async function startReceiver(answer: (index: number) => number | 'hang' = () => 200) {
  const received: Received[] = [];
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const status = answer(received.length);
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), status: status === 'hang' ? 0 : status });
      if (status !== 'hang') response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'thanks' : 'not now');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
    received,
    /** The bodies answered 2xx, parsed. */
    delivered: () => received.filter((each) => each.status === 200).map((each) => JSON.parse(each.body) as { type: string; data: Record<string, unknown> }),
    close: () => {
      receiver.closeAllConnections();
      return new Promise<void>((resolve) => receiver.close(() => resolve()));
    },
  };
}

const admin = (method: 'GET' | 'POST', url: string, payload?: unknown, token = owner) =>
  app.inject({ method, url, headers: bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) });

async function createEndpoint(body: Record<string, unknown>, on = app): Promise<WebhookSecret> {
  const response = await on.inject({ method: 'POST', url: '/admin/webhooks', headers: bearer(owner), payload: body });
  expect(response.statusCode, response.body).toBe(201);
  return json<WebhookSecret>(response);
}

const removeEndpoint = async (id: string) => expect((await admin('POST', `/admin/webhooks/${id}/remove`)).statusCode).toBe(200);

/** Whether `signature` (the webhook-signature header) holds a v1 signature of the request with `secret`; the timestamp may be any (the clock moves). */
function signedWith(secret: string, received: Received): boolean {
  const id = String(received.headers['webhook-id']);
  const at = new Date(Number(received.headers['webhook-timestamp']) * 1000);
  const expected = new Webhook(secret).sign(id, at, received.body);
  return String(received.headers['webhook-signature']).split(' ').includes(expected);
}

/** The audit record's rows of `action`, oldest first. */
async function auditRows(action: string) {
  const { rows } = await server.db.query<{ actor: string; details: Record<string, unknown> }>(
    'SELECT actor, details FROM audit_events WHERE action = $1 ORDER BY id',
    [action],
  );
  return rows;
}

/** Runs the delivery pass until no delivery is due to an endpoint that is on (background passes run too). */
async function deliverAll(...apps: FastifyInstance[]) {
  await expect
    .poll(
      async () => {
        await Promise.all(apps.map((each) => each.webhooks.deliverDue()));
        const { rows } = await server.db.query<{ due: number }>(
          `SELECT count(*)::int AS due FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
           WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND w.disabled_at IS NULL`,
          [app.now()],
        );
        return rows[0]!.due;
      },
      { timeout: scaled(15_000) },
    )
    .toBe(0);
}

describe('a driver from sign-up to erasure', () => {
  it('reaches the endpoint as every event in order, each once, signed, as the schema says, with no personal data', async () => {
    const receiver = await startReceiver();
    const { endpoint, secret } = await createEndpoint({ url: receiver.url, description: 'Payroll' });
    try {
      const driver = await verifiedDriver(app);
      await sendVehicle(app, driver);
      expect((await decide(app, server.reviewer.key, driver.driverId, 'approve')).statusCode).toBe(200);
      await paySubscription(app, driver);
      const bank = bankValues();
      expect((await post(app, '/finance/banks', driver.token, bank)).statusCode).toBe(200);
      // Delivered before the erasure, which leaves nothing of the driver's earlier events.
      await deliverAll(app);
      const officer = await staffSession(app, ['privacy-officer']);
      const erased = await admin('POST', `/admin/drivers/${driver.driverId}/erase`, { confirm: driver.email }, officer.token);
      expect(erased.statusCode, erased.body).toBe(200);
      await deliverAll(app);

      const mine = receiver.received.filter((each) => JSON.parse(each.body).data.driverId === driver.driverId);
      const events = mine.map((each) => JSON.parse(each.body) as { type: string; data: { sequence: number; step?: string } });
      expect(events.map((event) => (event.type === 'driver.step.sent' ? `${event.type} ${event.data.step}` : event.type))).toEqual([
        'driver.signed_up',
        'driver.step.sent completeProfile',
        'driver.step.sent uploadVehicleImages',
        'driver.step.sent addVehicle',
        'driver.review.requested',
        'driver.approved',
        'subscription.paid',
        'driver.step.sent addBank',
        'bank_account.added',
        'driver.erased',
      ]);
      expect(events.map((event) => event.data.sequence)).toEqual(events.map((_, index) => index + 1));
      expect(new Set(mine.map((each) => each.headers['webhook-id'])).size).toBe(mine.length);
      const profile = profileValues();
      const personal = [driver.email, driver.phone, driver.phone.slice(2), String(profile.SSN), String(bank.accountNumber), String(bank.routingNumber)];
      for (const each of mine) {
        expect(validEvent(JSON.parse(each.body)), JSON.stringify(validEvent.errors)).toBe(true);
        // The clock was not moved: verified as a receiver verifies, timestamp included.
        expect(new Webhook(secret).verify(each.body, each.headers as Record<string, string>)).toEqual(JSON.parse(each.body));
        for (const value of personal) expect(each.body).not.toContain(value);
      }
      expect(JSON.parse(mine[0]!.body).data).toEqual({ driverId: driver.driverId, sequence: 1, externalId: null, provider: 'password' });
    } finally {
      await removeEndpoint(endpoint.id);
      await receiver.close();
    }
  });
});

describe('the other events', () => {
  it("tells a reviewer's fixes, and a document expiring then expired, as the schema says", async () => {
    const receiver = await startReceiver();
    const { endpoint } = await createEndpoint({
      url: receiver.url,
      eventTypes: ['driver.rejected', 'driver.fix.asked', 'document.expiring', 'document.expired'],
    });
    try {
      const driver = await verifiedDriver(app);
      await sendVehicle(app, driver);
      const fixes = [{ step: 'completeProfile', field: 'lastName', reason: 'Typo' }];
      const rejected = await admin(
        'POST',
        `/admin/drivers/${driver.driverId}/reject`,
        { reviewVersion: await reviewVersion(app, driver.driverId), fixes },
        server.reviewer.key,
      );
      expect(rejected.statusCode, rejected.body).toBe(200);

      // An approved driver whose proof of insurance expires in 30 days, at noon in New York.
      const noon = Date.UTC(2031, 2, 10, 17, 0);
      const { rows } = await server.db.query<{ id: string }>(
        `INSERT INTO drivers (email, firebase_uid, provider, email_verified_at, is_session_complete, status, submitted_at, reviewed_at, created_at, updated_at)
         VALUES ($1, $2, 'password', $3, true, 'approved', $3, $3, $3, $3) RETURNING id`,
        [`expiring-${randomUUID()}@example.com`, randomUUID(), new Date(noon - 400 * DAY_MS)],
      );
      const approved = rows[0]!.id;
      const day = (days: number) => new Date(noon + days * DAY_MS).toISOString().slice(0, 10);
      await server.db.query(
        `INSERT INTO step_answers (driver_id, step, schema_name, schema_version, answers, submitted_at) VALUES ($1, 'addVehicle', 'addVehicle', 'test', $2, $3)`,
        [
          approved,
          JSON.stringify({ proofInsuranceExpiryDate: day(30), driverLicenseExpiryDate: day(2000), vehicleRegistrationExpiryDate: day(2000) }),
          new Date(noon),
        ],
      );
      server.clock.offsetMs = noon - Date.now();
      await app.expiries.noticeDue();
      server.clock.offsetMs = noon + 31 * DAY_MS - Date.now();
      await app.expiries.noticeDue();
      await deliverAll(app);

      const bodies = receiver.received.map((each) => JSON.parse(each.body) as { type: string; data: Record<string, unknown> });
      for (const body of bodies) expect(validEvent(body), JSON.stringify(validEvent.errors)).toBe(true);
      expect(bodies.filter((body) => body.data.driverId === driver.driverId).map((body) => [body.type, body.data])).toEqual([
        ['driver.rejected', { driverId: driver.driverId, sequence: 6, externalId: null, reviewVersion: expect.any(Number) }],
        [
          'driver.fix.asked',
          { driverId: driver.driverId, sequence: 7, externalId: null, by: 'reviewer', fixes: [{ step: 'completeProfile', field: 'lastName' }] },
        ],
      ]);
      const insurance = { step: 'addVehicle', document: 'proofInsuranceExpiryDate', expiresOn: day(30) };
      expect(bodies.filter((body) => body.data.driverId === approved).map((body) => [body.type, body.data])).toEqual([
        ['document.expiring', { driverId: approved, sequence: 1, externalId: null, ...insurance }],
        [
          'driver.fix.asked',
          {
            driverId: approved,
            sequence: 2,
            externalId: null,
            by: 'expiry',
            fixes: [
              { step: 'addVehicle', field: 'proofInsuranceExpiryDate' },
              { step: 'addVehicle', field: 'proofInsurance' },
            ],
          },
        ],
        ['document.expired', { driverId: approved, sequence: 3, externalId: null, ...insurance, fixAsked: true }],
      ]);
    } finally {
      server.clock.reset();
      await removeEndpoint(endpoint.id);
      await receiver.close();
    }
  });
});

describe('delivery', () => {
  it('tries again an endpoint that answered 500, until it takes each event once', async () => {
    let failing = true;
    const receiver = await startReceiver(() => (failing ? 500 : 200));
    const { endpoint } = await createEndpoint({ url: receiver.url, eventTypes: ['driver.signed_up'] });
    try {
      const drivers = [await signUp(app), await signUp(app)];
      await expect.poll(() => receiver.received.length, { timeout: scaled(10_000) }).toBeGreaterThan(0);
      const page = json<WebhookDeliveryPage>(await admin('GET', `/admin/webhooks/${endpoint.id}/deliveries`));
      expect(page.deliveries.map((each) => [each.status, each.lastStatusCode, each.lastAnswer])).toContainEqual(['pending', 500, 'not now']);
      failing = false;
      server.clock.advance(HOUR_MS);
      await deliverAll(app);
      // Two drivers: each one's events in order, the two in any order.
      expect(
        receiver
          .delivered()
          .map((event) => event.data.driverId)
          .toSorted(),
      ).toEqual(drivers.map((driver) => driver.driverId).toSorted());
      const after = json<WebhookDeliveryPage>(await admin('GET', `/admin/webhooks/${endpoint.id}/deliveries`));
      expect(after.deliveries.map((each) => [each.status, each.lastStatusCode])).toEqual([
        ['delivered', 200],
        ['delivered', 200],
      ]);
    } finally {
      server.clock.reset();
      await removeEndpoint(endpoint.id);
      await receiver.close();
    }
  });

  it('gives up on an endpoint that does not answer within the timeout, and tries again', async () => {
    const receiver = await startReceiver((index) => (index === 0 ? 'hang' : 200));
    const { endpoint } = await createEndpoint({ url: receiver.url, eventTypes: ['driver.signed_up'] });
    try {
      const driver = await signUp(app);
      await expect
        .poll(async () => json<WebhookDeliveryPage>(await admin('GET', `/admin/webhooks/${endpoint.id}/deliveries`)).deliveries[0]?.lastAnswer, {
          timeout: scaled(10_000),
        })
        .toBe('No answer within 0.5 s');
      server.clock.advance(HOUR_MS);
      await deliverAll(app);
      expect(receiver.delivered().map((event) => event.data.driverId)).toEqual([driver.driverId]);
      expect(receiver.received.map((each) => each.headers['webhook-id'])).toEqual([
        receiver.received[0]!.headers['webhook-id'],
        receiver.received[0]!.headers['webhook-id'],
      ]);
    } finally {
      server.clock.reset();
      await removeEndpoint(endpoint.id);
      await receiver.close();
    }
  });

  it('marks a delivery failed after three days, and disables an endpoint that failed for five', async () => {
    const receiver = await startReceiver(() => 503);
    const { endpoint } = await createEndpoint({ url: receiver.url, eventTypes: ['driver.signed_up'] });
    try {
      await signUp(app);
      await expect.poll(() => receiver.received.length, { timeout: scaled(10_000) }).toBeGreaterThan(0);
      // Six days of retries every six hours; a second driver signs up on the third.
      for (let hours = 6; hours <= 6 * 24; hours += 6) {
        server.clock.advance(6 * HOUR_MS);
        if (hours === 60) await signUp(app);
        await app.webhooks.deliverDue();
      }
      const deliveries = json<WebhookDeliveryPage>(await admin('GET', `/admin/webhooks/${endpoint.id}/deliveries`)).deliveries;
      expect(deliveries.map((each) => each.status)).toEqual(['failed', 'failed']);
      expect(deliveries[1]!.attempts).toBeGreaterThan(10);
      const shown = json<WebhookEndpointList>(await admin('GET', '/admin/webhooks')).endpoints.find((each) => each.id === endpoint.id)!;
      expect(shown).toMatchObject({ disabledReason: 'failing', consecutiveFailures: 2 });
      expect(await auditRows('webhook.disable')).toEqual([{ actor: 'server', details: { endpointId: endpoint.id, failures: 2, failingForDays: 5 } }]);
    } finally {
      server.clock.reset();
      await removeEndpoint(endpoint.id);
      await receiver.close();
    }
  });

  it('tells each owner, once per disabling, which endpoint kept failing and how to turn it back on; no one else', async () => {
    const receiver = await startReceiver(() => 503);
    // A receiver's own token in the address stays out of the email, as the signing secret does.
    const { endpoint, secret } = await createEndpoint({
      url: `${receiver.url}?token=receivers-own`,
      eventTypes: ['driver.signed_up'],
      description: 'CRM sync',
    });
    const owners = [await staffKey(app, ['owner']), await staffKey(app, ['owner', 'reviewer'])];
    const reviewer = await staffKey(app, ['reviewer']);
    /** The notices each of them got, in their order. */
    const noticesTo = async () => {
      const sent = await deliveredBy(server.db, app);
      return [...owners, reviewer].map((person) => sent.filter((entry) => entry.to === person.email));
    };
    /** Six days of a 503 to every event: a driver signs up, and another on the third day (each delivery is given up on after three). */
    const failForSixDays = async () => {
      await signUp(app);
      for (let hours = 6; hours <= 6 * 24; hours += 6) {
        server.clock.advance(6 * HOUR_MS);
        if (hours === 60) await signUp(app);
        await app.webhooks.deliverDue();
      }
    };
    try {
      const failingSince = app.now();
      await failForSixDays();
      const [first, second, none] = await noticesTo();
      expect(none).toEqual([]);
      for (const notices of [first!, second!]) {
        expect(notices).toHaveLength(1);
        expect(notices[0]).toMatchObject({ channel: 'email', notice: 'webhookDisabled', subject: 'A webhook endpoint was turned off: it kept failing' });
        const { text } = notices[0]!;
        expect(text).toContain(`Endpoint: ${receiver.url}\nDescription: CRM sync\n`);
        expect(text).toMatch(new RegExp(`Failing since: ${failingSince.toUTCString().slice(0, 16)} .+\nLast answer: 503\n`));
        expect(text).toMatch(/turn it back on in the Webhooks section of the admin page: http:\/\/[^/]+\/admin\n/);
        for (const secretWord of [secret, 'receivers-own']) expect(text).not.toContain(secretWord);
      }
      // Turned back on and failing again: told again.
      expect((await admin('POST', `/admin/webhooks/${endpoint.id}`, { enabled: true })).statusCode).toBe(200);
      await failForSixDays();
      expect((await noticesTo()).map((notices) => notices.length)).toEqual([2, 2, 0]);
    } finally {
      server.clock.reset();
      await removeEndpoint(endpoint.id);
      await receiver.close();
    }
  });

  it("holds an endpoint whose secret can't be opened, and delivers to the others; its owner sees why", async () => {
    const good = await startReceiver();
    const held = await startReceiver();
    const created = await Promise.all([good, held, held].map((receiver) => createEndpoint({ url: receiver.url, eventTypes: ['driver.signed_up'] })));
    const [working, damaged, unusable] = created.map((each) => each.endpoint);
    // One secret damaged in its row, one sealed well but no signing secret: neither can sign.
    await server.db.query('UPDATE webhook_endpoints SET secret = $2 WHERE id = $1', [damaged!.id, Buffer.from('not a sealed secret at all')]);
    await server.db.query('UPDATE webhook_endpoints SET secret = $2 WHERE id = $1', [
      unusable!.id,
      app.cipher.encrypt('not a signing secret', webhookSecretContext(unusable!.id)),
    ]);
    const anOwner = await staffKey(app, ['owner']);
    const heldBefore = /onramp_webhook_delivery_failures_total\{outcome="held"\} (\d+)/.exec((await app.inject({ method: 'GET', url: '/metrics' })).body)?.[1];
    try {
      const driver = await signUp(app);
      await expect(app.webhooks.deliverDue()).resolves.toBeGreaterThanOrEqual(0);
      await deliverAll(app);
      expect(good.delivered().map((event) => [event.type, event.data.driverId])).toEqual([['driver.signed_up', driver.driverId]]);
      expect(held.received).toEqual([]);

      const shown = json<WebhookEndpointList>(await admin('GET', '/admin/webhooks')).endpoints;
      expect(shown.find((each) => each.id === working!.id)).toMatchObject({ disabledAt: null, consecutiveFailures: 0 });
      for (const endpoint of [damaged!, unusable!]) {
        expect(shown.find((each) => each.id === endpoint.id)).toMatchObject({ disabledReason: 'secret-unreadable', consecutiveFailures: 0 });
        const deliveries = json<WebhookDeliveryPage>(await admin('GET', `/admin/webhooks/${endpoint.id}/deliveries`)).deliveries;
        expect(deliveries.map((each) => [each.status, each.attempts, each.lastAnswer])).toEqual([
          ['pending', 0, "Not sent: the endpoint's signing secret can't be opened. Rotate the secret, then turn the endpoint on."],
        ]);
      }
      // In the order the passes came to them: a background pass may have taken one first.
      const disabled = (await auditRows('webhook.disable')).filter((row) => row.details.reason);
      expect(disabled.sort((a, b) => String(a.details.endpointId).localeCompare(String(b.details.endpointId)))).toEqual(
        [damaged!, unusable!]
          .map((endpoint) => ({ actor: 'server', details: { endpointId: endpoint.id, reason: 'secret-unreadable' } }))
          .sort((a, b) => a.details.endpointId.localeCompare(b.details.endpointId)),
      );
      expect(server.logs.filter((line) => line.includes("signing secret can't be opened"))).toHaveLength(2);
      for (const { secret } of created) expect(server.logs.filter((line) => line.includes(secret))).toEqual([]);
      const heldAfter = /onramp_webhook_delivery_failures_total\{outcome="held"\} (\d+)/.exec((await app.inject({ method: 'GET', url: '/metrics' })).body)?.[1];
      expect(Number(heldAfter) - Number(heldBefore ?? 0)).toBe(2);
      // Every owner is told by email, once per endpoint, what to do.
      const told = (await deliveredBy(server.db, app)).filter((entry) => entry.to === anOwner.email);
      expect(told.map((entry) => entry.subject)).toEqual(Array(2).fill("A webhook endpoint was turned off: its signing secret can't be opened"));
      expect(told.map((entry) => entry.text.match(/Endpoint: (.+)\n/)?.[1]).sort()).toEqual([held.url, held.url]);
      expect(told[0]!.text).toMatch(/Rotate its secret in the Webhooks section of the admin page, .+ then turn the endpoint back on: http:\/\/[^/]+\/admin\n/);

      // A new secret, the endpoint turned on: what waited is delivered, signed with the new secret alone.
      const rotated = json<WebhookSecret>(await admin('POST', `/admin/webhooks/${damaged!.id}/rotate`));
      expect(rotated.endpoint.previousSecretExpiresAt).toBeNull();
      expect((await admin('POST', `/admin/webhooks/${damaged!.id}`, { enabled: true })).statusCode).toBe(200);
      await deliverAll(app);
      expect(held.delivered().map((event) => [event.type, event.data.driverId])).toEqual([['driver.signed_up', driver.driverId]]);
      expect(String(held.received[0]!.headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect(signedWith(rotated.secret, held.received[0]!)).toBe(true);
    } finally {
      for (const { endpoint } of created) await removeEndpoint(endpoint.id);
      await good.close();
      await held.close();
    }
  });

  it('delivers each event once when two servers on one database deliver', async () => {
    const receiver = await startReceiver();
    const { endpoint } = await createEndpoint({ url: receiver.url });
    const another = await server.buildAnother();
    try {
      const drivers = await Promise.all([verifiedDriver(app), verifiedDriver(another), verifiedDriver(app)]);
      await deliverAll(app, another);
      const { rows } = await server.db.query<{ id: string }>('SELECT id FROM webhook_events WHERE driver_id = ANY ($1::uuid[])', [
        drivers.map((driver) => driver.driverId),
      ]);
      const ids = receiver.received.map((each) => String(each.headers['webhook-id']));
      expect(ids.toSorted()).toEqual(rows.map((row) => row.id).toSorted());
    } finally {
      await removeEndpoint(endpoint.id);
      await receiver.close();
    }
  });
});

describe('/dev/webhooks', () => {
  it('verifies what it receives and shows the last ones', async () => {
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const { endpoint } = await createEndpoint({ url: `${address}/dev/webhooks` });
    try {
      await admin('POST', `/admin/webhooks/${endpoint.id}/test`);
      await expect
        .poll(async () => json<{ received: unknown[] }>(await app.inject({ method: 'GET', url: '/dev/webhooks' })).received.length, { timeout: scaled(10_000) })
        .toBe(1);
      const { received } = json<{ received: Record<string, unknown>[] }>(await app.inject({ method: 'GET', url: '/dev/webhooks' }));
      expect(received[0]).toEqual({
        receivedAt: expect.any(String),
        id: expect.stringMatching(/^msg_/),
        verifiedFor: endpoint.id,
        signatures: 1,
        body: { type: 'webhook.test', timestamp: expect.any(String), data: { endpointId: endpoint.id } },
      });
      const forged = await app.inject({
        method: 'POST',
        url: '/dev/webhooks',
        headers: { 'webhook-id': 'msg_forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
        payload: { type: 'webhook.test' },
      });
      expect(forged.statusCode).toBe(400);
      expect(json(forged)).toEqual({ message: NOT_SIGNED_HERE });
      // An unsigned body nested thousands deep is kept as its text: the list is still answered.
      const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
      const nested = await app.inject({ method: 'POST', url: '/dev/webhooks', headers: { 'content-type': 'application/json' }, payload: deep });
      expect(nested.statusCode).toBe(400);
      const listed = await app.inject({ method: 'GET', url: '/dev/webhooks' });
      expect(listed.statusCode).toBe(200);
      expect(json<{ received: { body: unknown; verifiedFor: string | null }[] }>(listed).received[0]).toMatchObject({ body: deep, verifiedFor: null });
    } finally {
      await removeEndpoint(endpoint.id);
    }
  });
});

describe('the admin API', () => {
  it('shows a secret once, and rotating it signs with both for a day', async () => {
    const receiver = await startReceiver();
    const created = await createEndpoint({ url: receiver.url, eventTypes: ['driver.approved'] });
    try {
      expect(created.secret).toMatch(/^whsec_/);
      const listed = json<WebhookEndpointList>(await admin('GET', '/admin/webhooks'));
      expect(JSON.stringify(listed)).not.toContain(created.secret);
      expect(listed.endpoints.find((each) => each.id === created.endpoint.id)).toEqual(created.endpoint);

      const rotated = json<WebhookSecret>(await admin('POST', `/admin/webhooks/${created.endpoint.id}/rotate`));
      expect(rotated.secret).not.toBe(created.secret);
      expect(rotated.endpoint.previousSecretExpiresAt).toBe(
        new Date(app.now().getTime() + 24 * HOUR_MS).toISOString().slice(0, 17) + rotated.endpoint.previousSecretExpiresAt!.slice(17),
      );
      expect(json(await admin('POST', `/admin/webhooks/${created.endpoint.id}/test`))).toEqual({ queued: 1 });
      await expect.poll(() => receiver.received.length, { timeout: scaled(10_000) }).toBe(1);
      const [first] = receiver.received;
      expect(String(first!.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(new Webhook(rotated.secret).verify(first!.body, first!.headers as Record<string, string>)).toEqual({
        type: 'webhook.test',
        timestamp: expect.any(String),
        data: { endpointId: created.endpoint.id },
      });
      expect(new Webhook(created.secret).verify(first!.body, first!.headers as Record<string, string>)).toBeTruthy();

      server.clock.advance(25 * HOUR_MS);
      await admin('POST', `/admin/webhooks/${created.endpoint.id}/test`);
      await expect.poll(() => receiver.received.length, { timeout: scaled(10_000) }).toBe(2);
      const second = receiver.received[1]!;
      expect(String(second.headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect(signedWith(rotated.secret, second)).toBe(true);
      expect(signedWith(created.secret, second)).toBe(false);
    } finally {
      server.clock.reset();
      await removeEndpoint(created.endpoint.id);
      await receiver.close();
    }
  });

  it('resends a delivery and replays a time range, with the same webhook-id', async () => {
    const receiver = await startReceiver();
    const { endpoint } = await createEndpoint({ url: receiver.url, eventTypes: ['driver.signed_up'] });
    try {
      const from = app.now().toISOString();
      await signUp(app);
      await signUp(app);
      await deliverAll(app);
      expect(receiver.received).toHaveLength(2);
      const [newest] = json<WebhookDeliveryPage>(await admin('GET', `/admin/webhooks/${endpoint.id}/deliveries?limit=1`)).deliveries;
      expect(json(await admin('POST', `/admin/webhooks/${endpoint.id}/deliveries/${newest!.id}/resend`))).toEqual({ queued: 1 });
      await deliverAll(app);
      expect(receiver.received.map((each) => each.headers['webhook-id'])[2]).toBe(newest!.eventId);
      const to = new Date(app.now().getTime() + 1000).toISOString();
      expect(json(await admin('POST', `/admin/webhooks/${endpoint.id}/replay`, { from, to }))).toEqual({ queued: 2 });
      await deliverAll(app);
      expect(receiver.received).toHaveLength(5);
      expect((await auditRows('webhook.replay')).at(-1)).toEqual({ actor: expect.any(String), details: { endpointId: endpoint.id, from, to, queued: 2 } });
      expect((await auditRows('webhook.resend')).at(-1)!.details).toEqual({ endpointId: endpoint.id, deliveryId: newest!.id, eventId: newest!.eventId });
    } finally {
      await removeEndpoint(endpoint.id);
      await receiver.close();
    }
  });

  it('changes, disables and enables an endpoint, on the audit record', async () => {
    const { endpoint } = await createEndpoint({ url: 'http://127.0.0.1:9/hooks' });
    const changed = json<WebhookEndpoint>(
      await admin('POST', `/admin/webhooks/${endpoint.id}`, { description: 'CRM', eventTypes: ['driver.approved'], enabled: false }),
    );
    expect(changed).toMatchObject({ description: 'CRM', eventTypes: ['driver.approved'], disabledReason: 'owner' });
    expect(changed.disabledAt).not.toBeNull();
    const enabled = json<WebhookEndpoint>(await admin('POST', `/admin/webhooks/${endpoint.id}`, { enabled: true }));
    expect(enabled).toMatchObject({ disabledAt: null, disabledReason: null });
    expect((await auditRows('webhook.update')).slice(-2).map((row) => row.details)).toEqual([
      { endpointId: endpoint.id, changed: ['description', 'enabled', 'eventTypes'] },
      { endpointId: endpoint.id, changed: ['enabled'] },
    ]);
    await removeEndpoint(endpoint.id);
    expect(json(await admin('POST', `/admin/webhooks/${endpoint.id}/remove`))).toEqual({ message: 'No such webhook endpoint.' });
  });

  it('refuses bad input with a message, and anyone but an owner', async () => {
    const refused = async (url: string, payload: unknown, message: string) => {
      const response = await admin('POST', url, payload);
      expect(response.statusCode).toBe(400);
      expect(json(response)).toEqual({ message });
    };
    await refused('/admin/webhooks', {}, 'url must be an http or https address of at most 2,000 characters.');
    await refused('/admin/webhooks', { url: 'ftp://example.com' }, 'url must be an http or https address of at most 2,000 characters.');
    await refused('/admin/webhooks', { url: 'http://[nope/' }, 'url must be an http or https address of at most 2,000 characters.');
    await refused('/admin/webhooks', { url: 'https://example.com', secret: 'x' }, 'Unknown field: secret');
    await refused('/admin/webhooks', { url: 'https://example.com', eventTypes: ['driver.exploded'] }, 'Unknown event type: driver.exploded');
    await refused('/admin/webhooks/00000000-0000-0000-0000-000000000000', {}, 'Send at least one of: url, eventTypes, description, allowPrivate, enabled.');
    await refused(
      '/admin/webhooks/00000000-0000-0000-0000-000000000000/replay',
      { from: 'yesterday', to: 'today' },
      'from and to must be ISO 8601 times, e.g. 2026-01-31T00:00:00Z.',
    );
    const reviewer = await app.inject({ method: 'GET', url: '/admin/webhooks', headers: bearer(server.reviewer.key) });
    expect(reviewer.statusCode).toBe(403);
    expect(json(await admin('GET', '/admin/webhooks/nope/deliveries'))).toEqual({ message: 'No such webhook endpoint.' });
  });

  it('refuses in production an address that is not https, or is on a private network unless allowed', async () => {
    const production = await server.buildAnother({ production: true });
    const refused = async (payload: Record<string, unknown>, message: string) => {
      const response = await production.inject({ method: 'POST', url: '/admin/webhooks', headers: bearer(owner), payload });
      expect(response.statusCode).toBe(400);
      expect(json(response)).toEqual({ message });
    };
    await refused({ url: 'http://example.com/hooks' }, 'url must be an https address in production.');
    for (const url of [
      'https://127.0.0.1/hooks',
      'https://localhost/hooks',
      'https://10.1.2.3/hooks',
      'https://[::1]/hooks',
      'https://169.254.169.254/latest',
      'https://[::ffff:192.168.0.1]/',
    ])
      await refused({ url }, 'The endpoint resolves to a loopback, link-local or private address. Set allowPrivate to deliver to it.');
    const allowed = await createEndpoint({ url: 'https://10.1.2.3/hooks', allowPrivate: true }, production);
    expect(allowed.endpoint.allowPrivate).toBe(true);
    const response = await production.inject({
      method: 'POST',
      url: `/admin/webhooks/${allowed.endpoint.id}`,
      headers: bearer(owner),
      payload: { allowPrivate: false },
    });
    expect(json(response)).toEqual({ message: 'The endpoint resolves to a loopback, link-local or private address. Set allowPrivate to deliver to it.' });
    await removeEndpoint(allowed.endpoint.id);
  });
});
