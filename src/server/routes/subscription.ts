/**
 * The weekly subscription (spec §4 "Payment confirmation" and "Success check", §7). The payment
 * gateway (plugins/payments.ts) is Stripe or the local sandbox; these routes decide who may pay and
 * what counts as paid, never trusting ids a browser sends on their own (docs/architecture.md, "The
 * server, and the outside services"):
 *
 * - GET createStripeSub: approved drivers only. One subscription per driver even when requests
 *   race on any number of servers: each holds the driver's lock (db.withLock, an advisory lock on
 *   PostgreSQL) while it looks and makes, so the next finds what the first made.
 * - POST validateStripeSub: the ids must be the driver's own; the provider is asked whether the
 *   invoice is paid, and that answer sets isSubscriptionPaid.
 * - POST webhook (Stripe): signature checked on the raw body, each event handled once;
 *   `invoice.paid` / `invoice.payment_failed` keep the paid flag in step with renewals, and
 *   `customer.subscription.deleted` ends it (a later createStripeSub makes a new subscription).
 */
import { refusal } from '../serverMessages.js';
import { ALREADY_PAID_REASON } from '../../shared/apiAnswers.js';
import type { FastifyInstance } from 'fastify';
import { readsItsOwnBody } from '../lib/routeSchemas.js';
import { LockBusy, type Queryable } from '../db/db.js';
import { WebhookSignatureError, type CreatedSubscription, type SubscriptionState } from '../payments/gateway.js';
import { type RouteTable, urlOf } from '../lib/routeTable.js';

/** The subscription's calls of the flow, and the provider's webhook (lib/routeTable.ts). */
export const SUBSCRIPTION_ROUTES = {
  createStripeSub: { method: 'GET', call: 'createStripeSub' },
  validateStripeSub: { method: 'POST', call: 'validateStripeSub' },
  webhook: { method: 'POST', url: '/subscription/webhook' },
} as const satisfies RouteTable;

/** How long a request waits for a concurrent one's subscription before asking the driver to retry. */
const CLAIM_WAIT_MS = 15_000;
/** Provider statuses after which a new subscription is made instead of paying the old one. */
const ENDED = new Set(['incomplete_expired', 'canceled', 'unpaid']);

interface SubscriptionRow {
  customer_id: string | null;
  subscription_id: string | null;
  payment_intent_id: string | null;
  status: string;
}

const isPaid = (state: SubscriptionState) => state.invoicePaid && (state.status === 'active' || state.status === 'trialing');

export async function subscriptionRoutes(app: FastifyInstance) {
  const reader = app.callReader;
  const gateway = app.payments;

  /** Any provider failure is the provider's: a 502 with words the driver can act on, details in the log. */
  async function provider<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      app.log.error({ error: { type: (error as Error).name, message: (error as Error).message } }, 'Payment provider call failed');
      throw refusal(502, 'subscription.providerDown');
    }
  }

  async function approvedDriver(driverId: string): Promise<{ email: string; paid: boolean }> {
    const { rows } = await app.db.query<{ email: string; status: string; is_subscription_paid: boolean }>(
      'SELECT email, status, is_subscription_paid FROM drivers WHERE id = $1',
      [driverId],
    );
    const driver = rows[0];
    // Steps in order (research: subscription before approval → 403).
    if (!driver || driver.status !== 'approved') throw refusal(403, 'subscription.notApproved');
    return { email: driver.email, paid: driver.is_subscription_paid };
  }

  const rowOf = async (db: Queryable, driverId: string) =>
    (await db.query<SubscriptionRow>('SELECT customer_id, subscription_id, payment_intent_id, status FROM subscriptions WHERE driver_id = $1', [driverId]))
      .rows[0];

  /** Whether the driver's subscription is paid, and a webhook when that changes (in `tx`, the change's transaction). */
  async function setPaid(tx: Queryable, driverId: string, paid: boolean) {
    const { rows } = await tx.query(
      'UPDATE drivers SET is_subscription_paid = $2, updated_at = $3 WHERE id = $1 AND is_subscription_paid IS DISTINCT FROM $2 RETURNING id',
      [driverId, paid, app.now()],
    );
    if (rows.length > 0) await app.webhooks.emit(tx, driverId, paid ? 'subscription.paid' : 'subscription.ended', {});
  }

  /** Marks the driver's row as a new attempt at a subscription; its time names the attempt to the provider. */
  async function beginAttempt(driverId: string): Promise<Date> {
    const now = app.now();
    await app.db.query(
      `INSERT INTO subscriptions (driver_id, status, claimed_at, updated_at) VALUES ($1, 'creating', $2, $2)
       ON CONFLICT (driver_id) DO UPDATE SET status = 'creating', claimed_at = $2, updated_at = $2`,
      [driverId, now],
    );
    return now;
  }

  async function createFor(driverId: string, email: string, row: SubscriptionRow | undefined): Promise<CreatedSubscription> {
    const attempt = await beginAttempt(driverId);
    try {
      let customerId = row?.customer_id ?? null;
      if (!customerId) {
        customerId = await provider(() => gateway.createCustomer({ driverId, email }));
        await app.db.query('UPDATE subscriptions SET customer_id = $2 WHERE driver_id = $1', [driverId, customerId]);
      }
      const created = await provider(() =>
        gateway.createSubscription({ customerId: customerId!, driverId, idempotencyKey: `subscription:${driverId}:${attempt.getTime()}` }),
      );
      await app.db.query(`UPDATE subscriptions SET subscription_id = $2, payment_intent_id = $3, status = 'incomplete', updated_at = $4 WHERE driver_id = $1`, [
        driverId,
        created.subscriptionId,
        created.paymentIntentId,
        app.now(),
      ]);
      return created;
    } catch (error) {
      // The driver's retry makes a new attempt rather than asking the provider about this one.
      await app.db.query(`UPDATE subscriptions SET status = 'failed', updated_at = $2 WHERE driver_id = $1`, [driverId, app.now()]);
      throw error;
    }
  }

  app.register(async (scoped) => {
    scoped.addHook('preHandler', app.requireDriver);

    scoped.get(
      urlOf(SUBSCRIPTION_ROUTES.createStripeSub, reader.flow),
      { schema: { response: { 200: { $ref: 'api#/$defs/subscriptionCreated' } } } },
      async (request) => {
        const driverId = request.driverId;
        const driver = await approvedDriver(driverId);
        if (driver.paid) throw refusal(409, 'subscription.alreadyActive', { reason: ALREADY_PAID_REASON });
        try {
          return await app.db.withLock(`subscription:${driverId}`, CLAIM_WAIT_MS, async () => {
            // Read under the lock: a request that waited sees what the one before it made.
            const row = await rowOf(app.db, driverId);
            if (row?.subscription_id && row.status !== 'failed' && !ENDED.has(row.status)) {
              const state = await provider(() => gateway.retrieveSubscription(row.subscription_id!));
              if (isPaid(state)) {
                await app.db.transaction((tx) => setPaid(tx, driverId, true));
                throw refusal(409, 'subscription.alreadyActive', { reason: ALREADY_PAID_REASON });
              }
              if (!ENDED.has(state.status) && state.clientSecret) {
                // The same subscription again (a reload, a declined card): pay its open invoice.
                return { clientSecret: state.clientSecret, stripeSubscriptionId: state.subscriptionId, paymentIntentId: row.payment_intent_id };
              }
              // It ended at the provider: a new one is made below.
              await app.db.query('UPDATE subscriptions SET status = $2 WHERE driver_id = $1', [driverId, state.status]);
            }
            const created = await createFor(driverId, driver.email, row);
            return { clientSecret: created.clientSecret, stripeSubscriptionId: created.subscriptionId, paymentIntentId: created.paymentIntentId };
          });
        } catch (error) {
          // Another request has been making the driver's subscription for longer than a driver should wait.
          if (error instanceof LockBusy) throw refusal(409, 'subscription.busy');
          throw error;
        }
      },
    );

    scoped.post(
      urlOf(SUBSCRIPTION_ROUTES.validateStripeSub, reader.flow),
      { schema: { response: { 200: { $ref: 'api#/$defs/subscriptionChecked' } } } },
      async (request) => {
        const driverId = request.driverId;
        await approvedDriver(driverId);
        const { context } = reader.json('validateStripeSub', request, { expects: ['subscriptionId', 'paymentIntent'] });
        const { subscriptionId, paymentIntent: paymentIntentId } = context;
        const row = await rowOf(app.db, driverId);
        if (!row?.subscription_id || row.subscription_id !== subscriptionId) throw refusal(403, 'subscription.notYours');
        const state = await provider(() => gateway.retrieveSubscription(subscriptionId));
        if (state.customerId !== row.customer_id || !state.paymentIntentIds.includes(paymentIntentId)) throw refusal(403, 'subscription.notYours');
        const status = isPaid(state);
        await app.db.transaction(async (tx) => {
          await tx.query('UPDATE subscriptions SET status = $2, updated_at = $3 WHERE driver_id = $1', [driverId, state.status, app.now()]);
          await setPaid(tx, driverId, status);
        });
        return { status };
      },
    );
  });

  // Stripe signs the exact bytes it sent: this route keeps JSON bodies raw.
  app.register(async (webhook) => {
    webhook.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    // An invoice event with its lines is tens of kilobytes, more than the JSON limit of driver calls.
    const event = {
      bodyLimit: 1024 * 1024,
      schema: { body: { $ref: 'api#/$defs/webhookEvent' }, response: { 200: { $ref: 'api#/$defs/webhookReceived' } } },
      // The body is the event's signed bytes, checked by the gateway: the schema documents it.
      ...readsItsOwnBody,
    };
    webhook.post(SUBSCRIPTION_ROUTES.webhook.url, event, async (request) => {
      const signature = request.headers['stripe-signature'];
      let event;
      try {
        event = gateway.parseWebhook(request.body as Buffer, typeof signature === 'string' ? signature : undefined);
      } catch (error) {
        if (error instanceof WebhookSignatureError) throw app.httpErrors.badRequest(error.message);
        throw error;
      }
      const handled = await app.db.transaction(async (tx) => {
        const fresh = await tx.query('INSERT INTO payment_events (id, type, received_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING RETURNING id', [
          event.id,
          event.type,
          app.now(),
        ]);
        if (fresh.rows.length === 0) return false;
        if (event.type !== 'other' && event.subscriptionId) {
          const paid = event.type === 'invoice.paid';
          const owner = (await tx.query<{ driver_id: string }>('SELECT driver_id FROM subscriptions WHERE subscription_id = $1', [event.subscriptionId]))
            .rows[0];
          if (owner) await setPaid(tx, owner.driver_id, paid);
          const status = paid ? 'active' : event.type === 'customer.subscription.deleted' ? 'canceled' : null;
          if (status)
            await tx.query('UPDATE subscriptions SET status = $2, updated_at = $3 WHERE subscription_id = $1', [event.subscriptionId, status, app.now()]);
          // A payment that failed, or a subscription that ended, is the driver's to know: they can't take rides.
          const notice =
            event.type === 'invoice.payment_failed' ? 'subscriptionFailed' : event.type === 'customer.subscription.deleted' ? 'subscriptionEnded' : null;
          if (notice && owner) await app.messaging.notify(tx, owner.driver_id, notice, {});
        }
        return true;
      });
      return { received: true, duplicate: !handled };
    });
  });
}
