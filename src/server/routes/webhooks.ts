/**
 * The signed webhooks' admin API (owners): endpoints, their secrets and deliveries
 * (plugins/webhooks.ts; contracts: src/shared/webhooks.schema.json). Every change is on the audit
 * record; a secret is answered once, when it is made.
 *
 * - GET /admin/webhooks: the endpoints, and every event type one may ask for.
 * - POST /admin/webhooks `{ url, eventTypes?, description?, allowPrivate? }`: 201 `{ endpoint, secret }`.
 * - POST /admin/webhooks/:id `{ url?, eventTypes?, description?, allowPrivate?, enabled? }`: the endpoint changed.
 * - POST /admin/webhooks/:id/remove: the endpoint and its deliveries gone.
 * - POST /admin/webhooks/:id/rotate: `{ endpoint, secret }`, a new secret; the old one signs beside it for a day.
 * - POST /admin/webhooks/:id/test: a `webhook.test` event to this endpoint.
 * - GET /admin/webhooks/:id/deliveries?limit&status: its deliveries, newest first.
 * - POST /admin/webhooks/:id/deliveries/:deliveryId/resend: that delivery queued again.
 * - POST /admin/webhooks/:id/replay `{ from, to }`: every event of [from, to) it takes queued again.
 */
import { httpErrors } from '@fastify/sensible';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isUuid, type Queryable } from '../db/db.js';
import { checkBodiesBySchema } from '../lib/bodySchemas.js';
import { ADMIN_PREFIX, type RouteTable } from '../lib/routeTable.js';
import { addressRefusal } from '../lib/webhookAddress.js';
import { DRIVER_EVENT_TYPES, failedInARow, PREVIOUS_SECRET_MS } from '../plugins/webhooks.js';
import { refusal } from '../serverMessages.js';
import type {
  WebhookDeliveriesQuery,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookEndpoint,
  WebhookEndpointBody,
  WebhookEndpointChange,
  WebhookEndpointList,
  WebhookQueued,
  WebhookReplayBody,
  WebhookSecret,
} from '../../shared/generated/webhooks.js';
import webhooksSchema from '../../shared/webhooks.schema.json';

/** A url the schema's pattern lets through but no URL parser reads: refused in the schema's own words. */
const BAD_URL = webhooksSchema.$defs.webhookEndpointBody.properties.url.errorMessage;

const DELIVERIES_PAGE = 50;

interface EndpointRow {
  id: string;
  url: string;
  event_types: string[];
  description: string;
  allow_private: boolean;
  disabled_at: Date | null;
  disabled_reason: string | null;
  previous_secret_expires_at: Date | null;
  consecutive_failures: number;
  created_at: Date;
  updated_at: Date;
}

const iso = (date: Date | null) => (date ? new Date(date).toISOString() : null);

const ENDPOINT_COLUMNS = `e.id, e.url, e.event_types, e.description, e.allow_private, e.disabled_at, e.disabled_reason, e.previous_secret_expires_at,
  e.created_at, e.updated_at,
  (SELECT count(*)::int FROM webhook_deliveries f WHERE ${failedInARow('e.id')}) AS consecutive_failures`;

function endpointOf(row: EndpointRow, now: Date): WebhookEndpoint {
  const previous = row.previous_secret_expires_at && new Date(row.previous_secret_expires_at) > now ? row.previous_secret_expires_at : null;
  return {
    id: row.id,
    url: row.url,
    eventTypes: row.event_types,
    description: row.description,
    allowPrivate: row.allow_private,
    disabledAt: iso(row.disabled_at),
    disabledReason: row.disabled_reason,
    previousSecretExpiresAt: iso(previous),
    consecutiveFailures: row.consecutive_failures,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}

interface DeliveryRow {
  id: string;
  event_id: string;
  type: string;
  driver_id: string | null;
  sequence: string | null;
  status: WebhookDelivery['status'];
  attempts: number;
  next_attempt_at: Date;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_answer: string | null;
  queued_at: Date;
  delivered_at: Date | null;
}

const deliveryOf = (row: DeliveryRow): WebhookDelivery => ({
  id: String(row.id),
  eventId: row.event_id,
  eventType: row.type,
  driverId: row.driver_id,
  sequence: row.sequence === null ? null : Number(row.sequence),
  status: row.status,
  attempts: row.attempts,
  nextAttemptAt: iso(row.next_attempt_at)!,
  lastAttemptAt: iso(row.last_attempt_at),
  lastStatusCode: row.last_status_code,
  lastAnswer: row.last_answer,
  queuedAt: iso(row.queued_at)!,
  deliveredAt: iso(row.delivered_at),
});

type EndpointParams = { Params: { id: string } };

/** Webhook endpoints and their deliveries, for owners (lib/routeTable.ts). */
export const WEBHOOK_ROUTES = {
  list: { method: 'GET', url: `${ADMIN_PREFIX}/webhooks` },
  create: { method: 'POST', url: `${ADMIN_PREFIX}/webhooks` },
  change: { method: 'POST', url: `${ADMIN_PREFIX}/webhooks/:id` },
  remove: { method: 'POST', url: `${ADMIN_PREFIX}/webhooks/:id/remove` },
  rotate: { method: 'POST', url: `${ADMIN_PREFIX}/webhooks/:id/rotate` },
  test: { method: 'POST', url: `${ADMIN_PREFIX}/webhooks/:id/test` },
  deliveries: { method: 'GET', url: `${ADMIN_PREFIX}/webhooks/:id/deliveries` },
  resend: { method: 'POST', url: `${ADMIN_PREFIX}/webhooks/:id/deliveries/:deliveryId/resend` },
  replay: { method: 'POST', url: `${ADMIN_PREFIX}/webhooks/:id/replay` },
} as const satisfies RouteTable;

export async function webhookRoutes(app: FastifyInstance, options: { production: boolean }) {
  const owners = { config: { staffRoles: ['owner'] as const }, onRequest: app.requireStaff };
  checkBodiesBySchema(app);

  async function endpoint(db: Queryable, id: string, lock = false): Promise<EndpointRow> {
    const row = isUuid(id)
      ? (await db.query<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints e WHERE e.id = $1${lock ? ' FOR UPDATE' : ''}`, [id])).rows[0]
      : undefined;
    if (!row) throw refusal(404, 'staff.unknownWebhookEndpoint');
    return row;
  }

  /** The url and event types as sent, checked beyond the schema: a known event type, an address production may call. */
  async function checked(body: Partial<WebhookEndpointBody>, allowPrivate: boolean, url: string) {
    const unknown = body.eventTypes?.find((type) => !DRIVER_EVENT_TYPES.includes(type));
    if (unknown) throw refusal(400, 'staff.unknownEventType', { type: unknown });
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw httpErrors.badRequest(BAD_URL);
    }
    const refused = await addressRefusal(parsed, { production: options.production, allowPrivate });
    if (refused) throw httpErrors.badRequest(refused);
  }

  /** The change, its audit row and its answer in one transaction. */
  const changed = async <T>(request: FastifyRequest, work: (tx: Queryable) => Promise<{ answer: T; action: Parameters<typeof app.audit.record>[1] }>) =>
    app.db.transaction(async (tx) => {
      const { answer, action } = await work(tx);
      await app.audit.record(request, action, tx);
      return answer;
    });

  app.get(
    WEBHOOK_ROUTES.list.url,
    { ...owners, schema: { response: { 200: { $ref: 'webhooks#/$defs/webhookEndpointList' } } } },
    async (): Promise<WebhookEndpointList> => {
      const { rows } = await app.db.query<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints e ORDER BY e.created_at, e.id`);
      const now = app.now();
      return { endpoints: rows.map((row) => endpointOf(row, now)), eventTypes: [...DRIVER_EVENT_TYPES] };
    },
  );

  app.post<{ Body: WebhookEndpointBody }>(
    WEBHOOK_ROUTES.create.url,
    { ...owners, schema: { body: { $ref: 'webhooks#/$defs/webhookEndpointBody' }, response: { 201: { $ref: 'webhooks#/$defs/webhookSecret' } } } },
    async (request, reply) => {
      const { url, eventTypes = [], description = '', allowPrivate = false } = request.body;
      await checked(request.body, allowPrivate, url);
      const answer = await changed<WebhookSecret>(request, async (tx) => {
        const { rows } = await tx.query<{ id: string }>('SELECT gen_random_uuid() AS id');
        const id = rows[0]!.id;
        const { secret, sealed } = app.webhooks.newSecret(id);
        const now = app.now();
        await tx.query(
          `INSERT INTO webhook_endpoints (id, url, event_types, description, allow_private, secret, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
          [id, url, eventTypes, description.trim(), allowPrivate, sealed, now],
        );
        return {
          answer: { endpoint: endpointOf(await endpoint(tx, id), now), secret },
          action: { action: 'webhook.create', details: { endpointId: id, eventTypes, allowPrivate } },
        };
      });
      return reply.code(201).send(answer);
    },
  );

  app.post<EndpointParams & { Body: WebhookEndpointChange }>(
    WEBHOOK_ROUTES.change.url,
    { ...owners, schema: { body: { $ref: 'webhooks#/$defs/webhookEndpointChange' }, response: { 200: { $ref: 'webhooks#/$defs/webhookEndpoint' } } } },
    async (request): Promise<WebhookEndpoint> => {
      const body = request.body;
      const before = await endpoint(app.db, request.params.id);
      const url = body.url ?? before.url;
      const allowPrivate = body.allowPrivate ?? before.allow_private;
      await checked(body, allowPrivate, url);
      return changed(request, async (tx) => {
        const row = await endpoint(tx, request.params.id, true);
        const now = app.now();
        const enabled = body.enabled ?? row.disabled_at === null;
        await tx.query(
          `UPDATE webhook_endpoints SET url = $2, event_types = $3, description = $4, allow_private = $5,
             disabled_at = CASE WHEN $6 THEN NULL ELSE coalesce(disabled_at, $7) END,
             disabled_reason = CASE WHEN $6 THEN NULL ELSE coalesce(disabled_reason, 'owner') END, updated_at = $7
           WHERE id = $1`,
          [row.id, url, body.eventTypes ?? row.event_types, body.description?.trim() ?? row.description, allowPrivate, enabled, now],
        );
        // Turned back on: what waited meanwhile gets three days again.
        if (enabled && row.disabled_at !== null)
          await tx.query("UPDATE webhook_deliveries SET queued_at = $2, next_attempt_at = $2 WHERE endpoint_id = $1 AND status = 'pending'", [row.id, now]);
        if (enabled) app.webhooks.soon();
        return {
          answer: endpointOf(await endpoint(tx, row.id), now),
          action: { action: 'webhook.update', details: { endpointId: row.id, changed: Object.keys(body).sort() } },
        };
      });
    },
  );

  app.post<EndpointParams>(WEBHOOK_ROUTES.remove.url, { ...owners, schema: { response: { 200: { $ref: 'api#/$defs/done' } } } }, async (request) =>
    changed(request, async (tx) => {
      const row = await endpoint(tx, request.params.id, true);
      await tx.query('DELETE FROM webhook_endpoints WHERE id = $1', [row.id]);
      return { answer: { success: true }, action: { action: 'webhook.remove', details: { endpointId: row.id } } };
    }),
  );

  app.post<EndpointParams>(
    WEBHOOK_ROUTES.rotate.url,
    { ...owners, schema: { response: { 200: { $ref: 'webhooks#/$defs/webhookSecret' } } } },
    async (request): Promise<WebhookSecret> =>
      changed(request, async (tx) => {
        const row = await endpoint(tx, request.params.id, true);
        const { secret, sealed } = app.webhooks.newSecret(row.id);
        const now = app.now();
        // A secret no server can open any more (the endpoint was turned off for it) signs nothing beside the new one.
        const old = (await tx.query<{ secret: Uint8Array }>('SELECT secret FROM webhook_endpoints WHERE id = $1', [row.id])).rows[0]!.secret;
        const previous = app.webhooks.opens(row.id, old) ? old : null;
        await tx.query('UPDATE webhook_endpoints SET previous_secret = $5, previous_secret_expires_at = $3, secret = $2, updated_at = $4 WHERE id = $1', [
          row.id,
          sealed,
          previous && new Date(now.getTime() + PREVIOUS_SECRET_MS),
          now,
          previous,
        ]);
        return {
          answer: { endpoint: endpointOf(await endpoint(tx, row.id), now), secret },
          action: { action: 'webhook.rotate', details: { endpointId: row.id } },
        };
      }),
  );

  app.post<EndpointParams>(
    WEBHOOK_ROUTES.test.url,
    { ...owners, schema: { response: { 200: { $ref: 'webhooks#/$defs/webhookQueued' } } } },
    async (request): Promise<WebhookQueued> =>
      changed(request, async (tx) => {
        const row = await endpoint(tx, request.params.id);
        await app.webhooks.sendTest(tx, row.id);
        return { answer: { queued: row.disabled_at ? 0 : 1 }, action: { action: 'webhook.test', details: { endpointId: row.id } } };
      }),
  );

  app.get<EndpointParams & { Querystring: WebhookDeliveriesQuery }>(
    WEBHOOK_ROUTES.deliveries.url,
    {
      ...owners,
      schema: { querystring: { $ref: 'webhooks#/$defs/webhookDeliveriesQuery' }, response: { 200: { $ref: 'webhooks#/$defs/webhookDeliveryPage' } } },
    },
    async (request): Promise<WebhookDeliveryPage> => {
      const row = await endpoint(app.db, request.params.id);
      const { limit = DELIVERIES_PAGE, status } = request.query;
      const { rows } = await app.db.query<DeliveryRow>(
        `SELECT d.id, d.event_id, e.type, e.driver_id, e.sequence, d.status, d.attempts, d.next_attempt_at, d.last_attempt_at, d.last_status_code,
           d.last_answer, d.queued_at, d.delivered_at
         FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
         WHERE d.endpoint_id = $1 AND ($2::text IS NULL OR d.status = $2) ORDER BY d.id DESC LIMIT $3`,
        [row.id, status ?? null, limit],
      );
      return { deliveries: rows.map(deliveryOf) };
    },
  );

  /** Queues the endpoint's deliveries of the events `where` selects ($2, $3… its parameters) again, or for the first time. */
  const requeue = (tx: Queryable, endpointId: string, where: string, params: unknown[]) =>
    tx.query(
      `INSERT INTO webhook_deliveries (event_id, endpoint_id, next_attempt_at, queued_at)
       SELECT ev.id, $1, $${params.length + 2}, $${params.length + 2} FROM webhook_events ev WHERE ${where}
       ON CONFLICT (event_id, endpoint_id) DO UPDATE SET status = 'pending', attempts = 0, next_attempt_at = EXCLUDED.next_attempt_at,
         queued_at = EXCLUDED.queued_at, claimed_until = NULL, delivered_at = NULL
       RETURNING id`,
      [endpointId, ...params, app.now()],
    );

  app.post<EndpointParams & { Params: { deliveryId: string } }>(
    WEBHOOK_ROUTES.resend.url,
    { ...owners, schema: { response: { 200: { $ref: 'webhooks#/$defs/webhookQueued' } } } },
    async (request): Promise<WebhookQueued> =>
      changed(request, async (tx) => {
        const row = await endpoint(tx, request.params.id);
        const { deliveryId } = request.params;
        const delivery = /^[1-9]\d{0,17}$/.test(deliveryId)
          ? (await tx.query<{ event_id: string }>('SELECT event_id FROM webhook_deliveries WHERE id = $1 AND endpoint_id = $2', [deliveryId, row.id])).rows[0]
          : undefined;
        if (!delivery) throw refusal(404, 'staff.unknownWebhookDelivery');
        const { rows } = await requeue(tx, row.id, 'ev.id = $2', [delivery.event_id]);
        app.webhooks.soon();
        return {
          answer: { queued: rows.length },
          action: { action: 'webhook.resend', details: { endpointId: row.id, deliveryId, eventId: delivery.event_id } },
        };
      }),
  );

  app.post<EndpointParams & { Body: WebhookReplayBody }>(
    WEBHOOK_ROUTES.replay.url,
    { ...owners, schema: { body: { $ref: 'webhooks#/$defs/webhookReplayBody' }, response: { 200: { $ref: 'webhooks#/$defs/webhookQueued' } } } },
    async (request): Promise<WebhookQueued> => {
      const from = new Date(request.body.from);
      const to = new Date(request.body.to);
      if (!(to > from)) throw refusal(400, 'staff.badReplayRange');
      return changed(request, async (tx) => {
        const row = await endpoint(tx, request.params.id);
        // The events it takes, its test events aside.
        const { rows } = await requeue(
          tx,
          row.id,
          `ev.driver_id IS NOT NULL AND ev.created_at >= $2 AND ev.created_at < $3 AND (cardinality($4::text[]) = 0 OR ev.type = ANY ($4::text[]))`,
          [from, to, row.event_types],
        );
        app.webhooks.soon();
        return {
          answer: { queued: rows.length },
          action: { action: 'webhook.replay', details: { endpointId: row.id, from: from.toISOString(), to: to.toISOString(), queued: rows.length } },
        };
      });
    },
  );
}
