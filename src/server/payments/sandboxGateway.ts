/**
 * The local stand-in for Stripe (docs/architecture.md, "The server, and the outside services"): a
 * payment provider that keeps its records in the app's own database and behaves like Stripe's test
 * mode. A subscription starts `incomplete` with an open first invoice; confirming its payment with
 * 4242 4242 4242 4242 pays the invoice and activates it, while the decline test cards answer with
 * Stripe's decline messages (flows/sandbox-payments.json). It never sends webhooks, so
 * validateStripeSub is what marks a driver paid here, exactly as it does after a Stripe payment.
 */
import { randomBytes } from 'node:crypto';
import type { SubscriptionPlan } from '../config.js';
import type { Db } from '../db/db.js';
import { cardErrors, sandboxPayments, testCardOutcome, type CardField, type SandboxCard, type SandboxPayments } from '../../shared/sandboxCard.js';
import { WebhookSignatureError, type PaymentGateway, type SubscriptionState } from './gateway.js';

/** Like Stripe.js's `confirmPayment` answer. */
export type SandboxConfirmation =
  | { paymentIntent: { id: string; status: 'succeeded' } }
  | { error: { type: 'validation_error'; message: string; errors: Partial<Record<CardField, string>> } }
  | { error: { type: 'card_error'; code: string; message: string } }
  | { error: { type: 'invalid_request_error'; message: string } };

export interface SandboxGateway extends PaymentGateway {
  readonly kind: 'sandbox';
  /** Stripe.js's confirmPayment, for the sandbox card form: authorised by the client secret alone; its messages in the language of `words`. */
  confirmPayment(clientSecret: string, card: SandboxCard, words?: SandboxPayments): Promise<SandboxConfirmation>;
}

const randomId = (prefix: string) => `${prefix}_sandbox_${randomBytes(12).toString('hex')}`;

interface SandboxRow {
  id: string;
  customer_id: string;
  payment_intent_id: string;
  client_secret: string;
  status: string;
  invoice_status: string;
}

export function createSandboxGateway(db: Db, plan: SubscriptionPlan, now: () => Date): SandboxGateway {
  const stateOf = (row: SandboxRow): SubscriptionState => ({
    subscriptionId: row.id,
    customerId: row.customer_id,
    status: row.status,
    invoicePaid: row.invoice_status === 'paid',
    paymentIntentIds: [row.payment_intent_id],
    clientSecret: row.invoice_status === 'paid' ? null : row.client_secret,
  });

  return {
    kind: 'sandbox',

    async createCustomer() {
      return randomId('cus');
    },

    async createSubscription({ customerId, idempotencyKey }) {
      const paymentIntentId = randomId('pi');
      const inserted = await db.query<SandboxRow>(
        `INSERT INTO sandbox_subscriptions (id, customer_id, idempotency_key, payment_intent_id, client_secret, status, invoice_status, amount_cents, created_at)
         VALUES ($1, $2, $3, $4, $5, 'incomplete', 'open', $6, $7)
         ON CONFLICT (idempotency_key) DO NOTHING RETURNING *`,
        [randomId('sub'), customerId, idempotencyKey, paymentIntentId, `${paymentIntentId}_secret_${randomBytes(16).toString('hex')}`, plan.amountCents, now()],
      );
      // A retried request with the same key gets the subscription the first one made, as Stripe's idempotency does.
      const row = inserted.rows[0] ?? (await db.query<SandboxRow>('SELECT * FROM sandbox_subscriptions WHERE idempotency_key = $1', [idempotencyKey])).rows[0]!;
      return { customerId: row.customer_id, subscriptionId: row.id, paymentIntentId: row.payment_intent_id, clientSecret: row.client_secret };
    },

    async retrieveSubscription(subscriptionId) {
      const { rows } = await db.query<SandboxRow>('SELECT * FROM sandbox_subscriptions WHERE id = $1', [subscriptionId]);
      if (!rows[0]) throw new Error(`No such subscription: ${subscriptionId}`);
      return stateOf(rows[0]);
    },

    parseWebhook() {
      throw new WebhookSignatureError('Webhooks are not configured.');
    },

    async confirmPayment(clientSecret, card, words = sandboxPayments) {
      const { rows } = await db.query<SandboxRow>('SELECT * FROM sandbox_subscriptions WHERE client_secret = $1', [clientSecret]);
      const row = rows[0];
      if (!row) return { error: { type: 'invalid_request_error', message: words.messages.unknownPayment } };
      if (row.invoice_status === 'paid') return { paymentIntent: { id: row.payment_intent_id, status: 'succeeded' } };
      const errors = cardErrors(card, now(), words);
      const first = Object.values(errors)[0];
      if (first) return { error: { type: 'validation_error', message: first, errors } };
      const outcome = testCardOutcome(card, words);
      if (outcome.outcome === 'declined') {
        return { error: { type: 'card_error', code: outcome.code ?? 'card_declined', message: outcome.message ?? words.messages.notTestCard } };
      }
      await db.query(`UPDATE sandbox_subscriptions SET status = 'active', invoice_status = 'paid' WHERE id = $1`, [row.id]);
      return { paymentIntent: { id: row.payment_intent_id, status: 'succeeded' } };
    },
  };
}
