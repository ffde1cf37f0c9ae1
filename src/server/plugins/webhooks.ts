/**
 * Signed webhooks (Standard Webhooks 1.0) to the operator's other systems (docs/integrations.md).
 *
 * - An event is written with `emit` in the transaction of the change it tells (a driver's sign-up,
 *   a step sent, a decision…), with the driver's next sequence number: it exists if and only if the
 *   change does. Its body (src/shared/webhookEvents.schema.json) names the driver by id alone.
 * - One delivery per event and endpoint that takes it. Every server runs the delivery pass; each
 *   claims what is due with FOR UPDATE SKIP LOCKED, so one server alone posts each attempt.
 * - A driver's events reach an endpoint in order: one is not posted while an earlier one of the same
 *   driver is still pending to that endpoint. Each body's `sequence` orders them as well.
 * - An attempt fails on anything but a 2xx within the timeout (a redirect is not followed); it is
 *   tried again with exponential backoff and jitter, for three days, then marked failed. An
 *   endpoint whose deliveries keep failing is disabled, on the audit record, and every owner is
 *   told by email (once per disabling: a disabled endpoint is sent nothing more to fail).
 * - An endpoint whose secret no server can open (sealed under a data key no longer held, or
 *   damaged) is turned off at its first delivery, on the audit record: its deliveries are held,
 *   unattempted, until an owner makes a new secret and turns it back on. The other endpoints'
 *   deliveries go on.
 * - The `webhook-id` is the event's, the same at every attempt, resend and replay; the signature is
 *   made with the endpoint's secret, and with its previous one too for a day after a rotation.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import fp from 'fastify-plugin';
import pLimit from 'p-limit';
import { Webhook } from 'standardwebhooks';
import type { Queryable } from '../db/db.js';
import type { DriverEvent } from '../../shared/generated/webhookEvents.js';
import eventsSchema from '../../shared/webhookEvents.schema.json';
import { everyInterval, passSoon } from '../lib/backgroundPass.js';
import { addressRefusal, checkedLookup } from '../lib/webhookAddress.js';
import { webhookSecretContext } from '../lib/sealContexts.js';

/** How often each server looks for deliveries that are due. */
const DELIVERY_INTERVAL_MS = 15_000;
/** How long an endpoint has to answer. */
const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
/** Deliveries claimed at once, and posted at once. */
const BATCH = 50;
export const PARALLEL_POSTS = 8;
const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
/** The first retry's wait; each next one doubles, up to the longest. */
const FIRST_RETRY_MS = MINUTE_MS / 2;
const LONGEST_RETRY_MS = 6 * 60 * MINUTE_MS;
/** A delivery is tried for this long after it was queued, then marked failed. */
const RETRY_FOR_MS = 3 * DAY_MS;
/** An endpoint is disabled once nothing it was sent has been delivered for this long, or this many deliveries in a row failed. */
const DISABLE_AFTER_MS = 5 * DAY_MS;
const DISABLE_AFTER_FAILURES = 20;
/** How long a rotated-out secret still signs beside the new one. */
export const PREVIOUS_SECRET_MS = DAY_MS;
/** What is kept of an endpoint's answer. */
const ANSWER_BYTES = 200;
/** Why the server turned off an endpoint whose secret it can't open (webhook_endpoints.disabled_reason). */
const SECRET_UNREADABLE = 'secret-unreadable';
/** What a delivery held for an unreadable secret says of its last attempt. */
const SECRET_UNREADABLE_ANSWER = "Not sent: the endpoint's signing secret can't be opened. Rotate the secret, then turn the endpoint on.";

/** An endpoint's address without what may be a credential of the receiver's (user:password@, a ?token=): an email is no place for one. */
const addressForEmail = (url: string) => {
  const { origin, pathname } = new URL(url);
  return `${origin}${pathname}`;
};

/** The condition on `f`, a row of webhook_deliveries, of a delivery to `endpoint` (an SQL expression) given up on since the last one delivered. */
export const failedInARow = (endpoint: string) =>
  `f.endpoint_id = ${endpoint} AND f.status = 'failed'
   AND f.id > coalesce((SELECT max(s.id) FROM webhook_deliveries s WHERE s.endpoint_id = ${endpoint} AND s.status = 'delivered'), 0)`;

/** Every type of event about a driver, from the schema: what an endpoint may ask for. */
export const DRIVER_EVENT_TYPES: readonly string[] = eventsSchema.$defs.driverEvent.oneOf.map((branch) => {
  const name = branch.$ref.split('/').at(-1) as keyof typeof eventsSchema.$defs;
  return (eventsSchema.$defs[name] as { properties: { type: { const: string } } }).properties.type.const;
});

/** Each type of event about a driver in plain words (its schema's description), as a driver's timeline tells it. */
export const DRIVER_EVENT_WORDS: ReadonlyMap<string, string> = new Map(
  eventsSchema.$defs.driverEvent.oneOf.map((branch) => {
    const event = eventsSchema.$defs[branch.$ref.split('/').at(-1) as keyof typeof eventsSchema.$defs] as {
      description: string;
      properties: { type: { const: string } };
    };
    return [event.properties.type.const, event.description];
  }),
);

type DriverEventType = DriverEvent['type'];
/** What an event of `T` says besides the driver and its sequence number (filled in by emit). */
export type EventData<T extends DriverEventType> = Omit<Extract<DriverEvent, { type: T }>['data'], 'driverId' | 'sequence' | 'externalId'>;

export interface Webhooks {
  /** Records an event about the driver within `tx` (the transaction of the change it tells), for every endpoint that takes it. */
  emit<T extends DriverEventType>(tx: Queryable, driverId: string, type: T, data: EventData<T>): Promise<void>;
  /**
   * Within the erasure's transaction: tells every endpoint the driver was erased, and keeps nothing
   * else of theirs (their earlier events go, with their deliveries, pending or not).
   */
  forget(tx: Queryable, driverId: string): Promise<void>;
  /** Queues `webhook.test` to one endpoint. */
  sendTest(tx: Queryable, endpointId: string): Promise<void>;
  /** Posts every delivery due; returns how many were delivered. The background pass calls it, and tests. */
  deliverDue(): Promise<number>;
  /** A new signing secret (whsec_…), and it sealed for the endpoint's row. */
  newSecret(endpointId: string): { secret: string; sealed: Buffer };
  /** An endpoint's secret as its row holds it, opened. */
  openSecret(endpointId: string, sealed: Uint8Array): string;
  /** Whether an endpoint's sealed secret opens, to a secret that signs. */
  opens(endpointId: string, sealed: Uint8Array): boolean;
  /** Soon after the caller commits: a delivery pass. */
  soon(): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    webhooks: Webhooks;
  }
}

interface Claimed {
  id: string;
  attempts: number;
  queued_at: Date;
  event_id: string;
  body: string;
  endpoint_id: string;
  url: string;
  allow_private: boolean;
  secret: Uint8Array;
  previous_secret: Uint8Array | null;
  previous_secret_expires_at: Date | null;
}

/** POSTs `body`; the status and the start of the answer, or throws (refused, timed out, an address not allowed). */
function post(url: URL, headers: Record<string, string>, body: string, timeoutMs: number, lookup: ReturnType<typeof checkedLookup>) {
  return new Promise<{ status: number; answer: string }>((resolve, reject) => {
    const request = (url.protocol === 'https:' ? https : http).request(
      url,
      { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }, lookup },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          if (size < ANSWER_BYTES) chunks.push(chunk);
          size += chunk.length;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, answer: Buffer.concat(chunks).subarray(0, ANSWER_BYTES).toString('utf8') }));
        response.on('error', reject);
      },
    );
    // The whole exchange, not only an idle socket: an endpoint that dribbles its answer times out too.
    const timer = setTimeout(() => request.destroy(new Error(`No answer within ${timeoutMs / 1000} s`)), timeoutMs);
    request.on('close', () => clearTimeout(timer));
    request.on('error', reject);
    request.end(body);
  });
}

export const webhooksPlugin = fp<{ production: boolean; timeoutMs?: number }>(
  async (app, options) => {
    const timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    /** Names this server on the rows it claims. */
    const server = randomUUID();
    const queueFor = async (tx: Queryable, eventId: string, endpoints: string, params: unknown[]) =>
      tx.query(
        `INSERT INTO webhook_deliveries (event_id, endpoint_id, next_attempt_at, queued_at)
         SELECT $1, id, $2, $2 FROM webhook_endpoints WHERE disabled_at IS NULL AND ${endpoints}`,
        [eventId, app.now(), ...params],
      );
    const recordEvent = async (tx: Queryable, driverId: string | null, sequence: number | null, type: string, data: Record<string, unknown>) => {
      const id = `msg_${randomUUID().replaceAll('-', '')}`;
      const now = app.now();
      const payload = JSON.stringify({ type, timestamp: now.toISOString(), data });
      await tx.query('INSERT INTO webhook_events (id, driver_id, type, sequence, payload, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
        id,
        driverId,
        type,
        sequence,
        payload,
        now,
      ]);
      return id;
    };

    const webhooks: Webhooks = {
      async emit(tx, driverId, type, data) {
        const { rows } = await tx.query<{ sequence: string }>(
          `INSERT INTO webhook_sequences (driver_id, last_sequence) VALUES ($1, 1)
           ON CONFLICT (driver_id) DO UPDATE SET last_sequence = webhook_sequences.last_sequence + 1 RETURNING last_sequence AS sequence`,
          [driverId],
        );
        const sequence = Number(rows[0]!.sequence);
        // The operator's own id for the driver, so their systems need no lookup (gone with an erased driver's row).
        const driver = await tx.query<{ external_id: string | null }>('SELECT external_id FROM drivers WHERE id = $1', [driverId]);
        const externalId = driver.rows[0]?.external_id ?? null;
        const id = await recordEvent(tx, driverId, sequence, type, { driverId, sequence, externalId, ...data });
        await queueFor(tx, id, '(cardinality(event_types) = 0 OR $3 = ANY (event_types))', [type]);
        // Every sign-up, decision and change a driver goes through passes here: one place counts them all.
        app.metrics.driverEvents.inc({ type });
        webhooks.soon();
      },
      async forget(tx, driverId) {
        await webhooks.emit(tx, driverId, 'driver.erased', {});
        await tx.query("DELETE FROM webhook_events WHERE driver_id = $1 AND type <> 'driver.erased'", [driverId]);
        await tx.query('DELETE FROM webhook_sequences WHERE driver_id = $1', [driverId]);
      },
      async sendTest(tx, endpointId) {
        const id = await recordEvent(tx, null, null, 'webhook.test', { endpointId });
        await queueFor(tx, id, 'id = $3', [endpointId]);
        webhooks.soon();
      },
      deliverDue,
      newSecret(endpointId) {
        const secret = `whsec_${randomBytes(32).toString('base64')}`;
        return { secret, sealed: app.cipher.encrypt(secret, webhookSecretContext(endpointId)) };
      },
      openSecret: (endpointId, sealed) => app.cipher.decrypt(sealed, webhookSecretContext(endpointId)).toString(),
      opens(endpointId, sealed) {
        try {
          new Webhook(webhooks.openSecret(endpointId, sealed));
          return true;
        } catch {
          return false;
        }
      },
      soon() {
        // One pass for the events of one change (and of any made meanwhile).
        delivery.soon();
      },
    };

    const passFailed = (error: unknown) => app.log.warn({ error: String(error) }, 'Webhook delivery pass failed');
    const delivery = passSoon(app, () => deliverDue(), passFailed);
    let delivering: Promise<number> | null = null;
    let deliveringAgain: Promise<number> | null = null;
    /** One pass at a time in this process (other servers are kept off each row by its claim); a call during a pass gets one more after it. */
    function deliverDue(): Promise<number> {
      if (delivery.closing) return Promise.resolve(0);
      if (!delivering) {
        delivering = deliverClaimed().finally(() => (delivering = null));
        return delivering;
      }
      deliveringAgain ??= delivering
        .catch(() => 0)
        .then(() => {
          deliveringAgain = null;
          return deliverDue();
        });
      return deliveringAgain;
    }

    async function deliverClaimed(): Promise<number> {
      let delivered = 0;
      for (;;) {
        const rows = await claim();
        const limit = pLimit(PARALLEL_POSTS);
        const results = await Promise.all(rows.map((row) => limit(() => attempt(row))));
        delivered += results.filter(Boolean).length;
        if (rows.length === 0) return delivered;
      }
    }

    /**
     * The deliveries due, claimed for this server for longer than an attempt takes. A delivery
     * waits while an earlier event of the same driver is pending to the same endpoint.
     */
    async function claim(): Promise<Claimed[]> {
      const now = app.now();
      const { rows } = await app.db.query<Claimed>(
        `UPDATE webhook_deliveries d SET claimed_until = $2, claimed_by = $3, attempts = d.attempts + 1, last_attempt_at = $1
         FROM webhook_events e, webhook_endpoints w
         WHERE d.id IN (
           SELECT c.id FROM webhook_deliveries c
             JOIN webhook_events ce ON ce.id = c.event_id
             JOIN webhook_endpoints cw ON cw.id = c.endpoint_id
           WHERE c.status = 'pending' AND c.next_attempt_at <= $1 AND (c.claimed_until IS NULL OR c.claimed_until < $1) AND cw.disabled_at IS NULL
             AND NOT EXISTS (
               SELECT 1 FROM webhook_deliveries p JOIN webhook_events pe ON pe.id = p.event_id
               WHERE p.endpoint_id = c.endpoint_id AND p.status = 'pending' AND pe.driver_id = ce.driver_id AND pe.sequence < ce.sequence)
           ORDER BY c.next_attempt_at, c.id LIMIT ${BATCH} FOR UPDATE OF c SKIP LOCKED)
           AND e.id = d.event_id AND w.id = d.endpoint_id
         RETURNING d.id, d.attempts, d.queued_at, e.id AS event_id, e.payload::text AS body, w.id AS endpoint_id, w.url, w.allow_private,
           w.secret, w.previous_secret, w.previous_secret_expires_at`,
        [now, new Date(now.getTime() + timeoutMs + MINUTE_MS), server],
      );
      return rows;
    }

    /** The delivery's signature header at `now`: with the endpoint's secret, and its previous one while that still signs. */
    function signature(row: Claimed, now: Date): string {
      const secrets = [webhooks.openSecret(row.endpoint_id, row.secret)];
      if (row.previous_secret && row.previous_secret_expires_at && new Date(row.previous_secret_expires_at) > now)
        secrets.push(webhooks.openSecret(row.endpoint_id, row.previous_secret));
      return secrets.map((secret) => new Webhook(secret).sign(row.event_id, now, row.body)).join(' ');
    }

    /** One attempt: the delivery marked delivered, or scheduled again, or failed for good, or held for its endpoint's secret. */
    async function attempt(row: Claimed): Promise<boolean> {
      const now = app.now();
      let signed: string;
      try {
        signed = signature(row, now);
      } catch (error) {
        await holdForSecret(row, error);
        return false;
      }
      const headers = {
        'user-agent': 'Onramp-Webhooks/1.0',
        'webhook-id': row.event_id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signed,
      };
      const rules = { production: options.production, allowPrivate: row.allow_private };
      let status: number | null = null;
      let answer: string;
      try {
        const url = new URL(row.url);
        const refused = await addressRefusal(url, rules);
        if (refused) throw new Error(refused);
        ({ status, answer } = await post(url, headers, row.body, timeoutMs, checkedLookup(rules)));
      } catch (error) {
        answer = error instanceof Error ? error.message : String(error);
      }
      const ok = status !== null && status >= 200 && status < 300;
      if (ok) {
        await app.db.query(
          `UPDATE webhook_deliveries SET status = 'delivered', delivered_at = $2, last_status_code = $3, last_answer = $4, claimed_until = NULL WHERE id = $1`,
          [row.id, app.now(), status, answer.slice(0, ANSWER_BYTES)],
        );
        return true;
      }
      const givenUp = now.getTime() - new Date(row.queued_at).getTime() >= RETRY_FOR_MS;
      // Full jitter on the upper half: servers retrying one endpoint after its outage spread out.
      const wait = Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** (row.attempts - 1)) * (0.5 + Math.random() / 2);
      await app.db.query(
        'UPDATE webhook_deliveries SET status = $2, next_attempt_at = $3, last_status_code = $4, last_answer = $5, claimed_until = NULL WHERE id = $1',
        [row.id, givenUp ? 'failed' : 'pending', new Date(now.getTime() + wait), status, answer.slice(0, ANSWER_BYTES)],
      );
      app.log.warn({ endpointId: row.endpoint_id, deliveryId: row.id, status, givenUp }, 'A webhook delivery failed');
      app.metrics.webhookFailures.inc({ outcome: givenUp ? 'given_up' : 'retried' });
      // The last answer's status code, or why there was none (the server's own words: a timeout, a refused connection).
      if (givenUp) await disableIfFailing(row.endpoint_id, status === null ? answer : String(status));
      return false;
    }

    /**
     * The endpoint of `row` turned off for its secret, which can't be opened or used, and the
     * delivery given back unattempted. Its owner sees why on the endpoint and its deliveries; the
     * log says which endpoint and the error's kind, never a secret.
     */
    async function holdForSecret(row: Claimed, error: unknown): Promise<void> {
      const now = app.now();
      await app.db.transaction(async (tx) => {
        await tx.query('UPDATE webhook_deliveries SET attempts = attempts - 1, last_answer = $2, claimed_until = NULL WHERE id = $1', [
          row.id,
          SECRET_UNREADABLE_ANSWER,
        ]);
        const disabled = await tx.query<{ url: string; description: string }>(
          'UPDATE webhook_endpoints SET disabled_at = $2, disabled_reason = $3, updated_at = $2 WHERE id = $1 AND disabled_at IS NULL RETURNING url, description',
          [row.endpoint_id, now, SECRET_UNREADABLE],
        );
        const endpoint = disabled.rows[0];
        if (!endpoint) return;
        await app.audit.recordAs(
          { staffId: null, actor: 'server', ip: null },
          { action: 'webhook.disable', details: { endpointId: row.endpoint_id, reason: SECRET_UNREADABLE } },
          tx,
        );
        await app.messaging.notifyStaff(tx, 'owner', 'webhookSecretUnreadable', { url: addressForEmail(endpoint.url), description: endpoint.description });
        app.log.error(
          { endpointId: row.endpoint_id, error: error instanceof Error ? error.name : typeof error },
          "A webhook endpoint's signing secret can't be opened: turned off, its deliveries held",
        );
      });
      app.metrics.webhookFailures.inc({ outcome: 'held' });
    }

    /**
     * Disables the endpoint if nothing sent to it was delivered for DISABLE_AFTER_MS, or
     * DISABLE_AFTER_FAILURES deliveries in a row failed, and tells the owners, `lastStatus` among the rest.
     */
    async function disableIfFailing(endpointId: string, lastStatus: string): Promise<void> {
      const now = app.now();
      await app.db.transaction(async (tx) => {
        const { rows } = await tx.query<{ failures: number; since: Date | null }>(
          `SELECT count(*)::int AS failures, min(f.queued_at) AS since FROM webhook_deliveries f WHERE ${failedInARow('$1')}`,
          [endpointId],
        );
        const { failures, since } = rows[0]!;
        const failingFor = since ? now.getTime() - new Date(since).getTime() : 0;
        if (failures < DISABLE_AFTER_FAILURES && failingFor < DISABLE_AFTER_MS) return;
        const disabled = await tx.query<{ url: string; description: string }>(
          `UPDATE webhook_endpoints SET disabled_at = $2, disabled_reason = 'failing', updated_at = $2 WHERE id = $1 AND disabled_at IS NULL RETURNING url, description`,
          [endpointId, now],
        );
        const endpoint = disabled.rows[0];
        if (!endpoint) return;
        await app.audit.recordAs(
          { staffId: null, actor: 'server', ip: null },
          { action: 'webhook.disable', details: { endpointId, failures, failingForDays: Math.floor(failingFor / DAY_MS) } },
          tx,
        );
        await app.messaging.notifyStaff(tx, 'owner', 'webhookDisabled', {
          url: addressForEmail(endpoint.url),
          description: endpoint.description,
          failingSince: new Date(since!).toUTCString(),
          lastStatus,
        });
        app.log.error({ endpointId, failures }, 'A webhook endpoint kept failing: disabled');
      });
    }

    app.addHook('onClose', async () => {
      await deliveringAgain?.catch(() => undefined);
      await delivering?.catch(() => undefined);
    });
    everyInterval(app, { name: 'webhook delivery', intervalMs: DELIVERY_INTERVAL_MS, run: deliverDue });
    app.decorate('webhooks', webhooks);
  },
  { name: 'onramp-webhooks', decorators: { fastify: ['audit', 'cipher', 'db', 'messaging', 'metrics', 'now'] } },
);
