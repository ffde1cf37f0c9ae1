/**
 * The payment gateway port (gateway.ts) on Stripe's API, through the official SDK, which pins API
 * version 2026-10-28.endive. Since 2025-03-31.basil an invoice has no `payment_intent`: the first
 * payment's client secret is `latest_invoice.confirmation_secret` and its payment intent is in
 * `latest_invoice.payments`, both fields Stripe only returns when expanded.
 */
import Stripe from 'stripe';
import { WebhookSignatureError, type PaymentEvent, type PaymentGateway, type SubscriptionState } from './gateway.js';

export interface StripeGatewayOptions {
  secretKey: string;
  /** The weekly price (price_…) every driver subscribes to. */
  priceId: string;
  /** The webhook endpoint's signing secret (whsec_…); null refuses every delivery. */
  webhookSecret: string | null;
  /** Another address for the API (the contract tests' local Stripe-shaped server); api.stripe.com when absent. */
  apiBase?: { host: string; port: number; protocol: 'http' | 'https' };
}

const INVOICE_EXPANSIONS = ['latest_invoice.confirmation_secret', 'latest_invoice.payments'];

export function createStripeGateway({ secretKey, priceId, webhookSecret, apiBase }: StripeGatewayOptions): PaymentGateway {
  // The SDK's retries resend the same Idempotency-Key, so a retried create makes nothing new.
  const stripe = new Stripe(secretKey, { telemetry: false, maxNetworkRetries: 2, timeout: 20_000, ...apiBase });

  return {
    kind: 'stripe',

    async createCustomer({ driverId, email }) {
      const customer = await stripe.customers.create({ email, metadata: { driverId } }, { idempotencyKey: `customer:${driverId}` });
      return customer.id;
    },

    async createSubscription({ customerId, driverId, idempotencyKey }) {
      const subscription = await stripe.subscriptions.create(
        {
          customer: customerId,
          items: [{ price: priceId }],
          payment_behavior: 'default_incomplete',
          payment_settings: { save_default_payment_method: 'on_subscription' },
          expand: INVOICE_EXPANSIONS,
          metadata: { driverId },
        },
        { idempotencyKey },
      );
      const state = stateOf(subscription);
      const [paymentIntentId] = state.paymentIntentIds;
      if (!state.clientSecret || !paymentIntentId) {
        throw new Error(
          `Stripe subscription ${subscription.id}: its first invoice has no payment to confirm (no confirmation secret or payment intent) — ` +
            'set STRIPE_PRICE_ID to a recurring price with a non-zero amount and no trial.',
        );
      }
      return { customerId: state.customerId, subscriptionId: state.subscriptionId, paymentIntentId, clientSecret: state.clientSecret };
    },

    async retrieveSubscription(subscriptionId) {
      return stateOf(await stripe.subscriptions.retrieve(subscriptionId, { expand: INVOICE_EXPANSIONS }));
    },

    parseWebhook(rawBody, signature) {
      if (!webhookSecret) throw new WebhookSignatureError('Webhooks are not configured.');
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signature ?? '', webhookSecret);
      } catch {
        // The SDK's reason (bad signature, stale timestamp, unparsable body) stays out of logs and answers.
        throw new WebhookSignatureError();
      }
      if (event.type === 'invoice.paid' || event.type === 'invoice.payment_failed') {
        // The endpoint's API version shapes the payload: `parent` needs basil (2025-03-31) or newer.
        const subscription = event.data.object.parent?.subscription_details?.subscription;
        return { id: event.id, type: event.type, subscriptionId: subscription ? idOf(subscription) : null } satisfies PaymentEvent;
      }
      // Canceled, at the driver's or the operator's request or after failed renewals: access ends.
      if (event.type === 'customer.subscription.deleted') return { id: event.id, type: event.type, subscriptionId: event.data.object.id };
      return { id: event.id, type: 'other', subscriptionId: null };
    },
  };
}

function stateOf(subscription: Stripe.Subscription): SubscriptionState {
  const invoice = subscription.latest_invoice;
  if (typeof invoice === 'string') throw new Error(`Stripe returned subscription ${subscription.id} without its latest invoice expanded.`);
  return {
    subscriptionId: subscription.id,
    customerId: idOf(subscription.customer),
    status: subscription.status,
    invoicePaid: invoice?.status === 'paid',
    paymentIntentIds: (invoice?.payments?.data ?? []).flatMap(({ payment }) => (payment.payment_intent ? [idOf(payment.payment_intent)] : [])),
    clientSecret: invoice?.confirmation_secret?.client_secret ?? null,
  };
}

/** Stripe gives a related object as its id, or as the object when expanded. */
function idOf(reference: string | { id: string }): string {
  return typeof reference === 'string' ? reference : reference.id;
}
