/**
 * The payment gateway port (docs/architecture.md, "The server, and the outside services"): what the
 * subscription routes need of a card payment provider. Two adapters implement it, picked by
 * configuration: Stripe (stripeGateway.ts) when a secret key is set, and the project's sandbox
 * (sandboxGateway.ts), which behaves like Stripe's test mode, for `npm start` and the tests. The
 * routes never know which one they talk to.
 */

/** What the browser needs to show the card form and confirm the first payment. */
export interface CreatedSubscription {
  customerId: string;
  subscriptionId: string;
  paymentIntentId: string;
  /** The first invoice's confirmation secret (Stripe: `latest_invoice.confirmation_secret.client_secret`). */
  clientSecret: string;
}

/** A subscription as the provider reports it now. */
export interface SubscriptionState {
  subscriptionId: string;
  customerId: string;
  /** The provider's subscription status: incomplete, active, incomplete_expired, past_due, canceled… */
  status: string;
  /** Whether the latest invoice is paid (basil: `latest_invoice.status === 'paid'`). */
  invoicePaid: boolean;
  /** The payment intents that paid or tried to pay the latest invoice (`latest_invoice.payments`). */
  paymentIntentIds: string[];
  /** The latest invoice's confirmation secret, to confirm again after a declined card. */
  clientSecret: string | null;
}

/** A provider event the server acts on; anything else is acknowledged and ignored. */
export interface PaymentEvent {
  /** The provider's event id, for at-most-once handling (deliveries repeat). */
  id: string;
  type: 'invoice.paid' | 'invoice.payment_failed' | 'customer.subscription.deleted' | 'other';
  /** The subscription the event is about (an invoice's, or the one that ended), when there is one. */
  subscriptionId: string | null;
}

export class WebhookSignatureError extends Error {
  constructor(message = 'The webhook signature could not be verified.') {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}

export interface PaymentGateway {
  /** "stripe" or "sandbox": the browser picks its card form by it. */
  readonly kind: 'stripe' | 'sandbox';
  /** A customer for the driver; called once per driver, its id is kept. */
  createCustomer(driver: { driverId: string; email: string }): Promise<string>;
  /**
   * A weekly subscription whose first invoice waits for the card (Stripe: `payment_behavior:
   * 'default_incomplete'`, expanding `latest_invoice.confirmation_secret` and
   * `latest_invoice.payments`). `idempotencyKey` makes a retried request create nothing new.
   */
  createSubscription(request: { customerId: string; driverId: string; idempotencyKey: string }): Promise<CreatedSubscription>;
  retrieveSubscription(subscriptionId: string): Promise<SubscriptionState>;
  /** Verifies a webhook delivery's signature on the raw body; throws WebhookSignatureError. */
  parseWebhook(rawBody: Buffer, signature: string | undefined): PaymentEvent;
}
