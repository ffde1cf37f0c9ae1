/**
 * Contract tests of the Stripe gateway: the real SDK talks HTTP to a local Stripe-shaped server,
 * and each test checks what reaches "Stripe" and what the gateway makes of Stripe's answer.
 */
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookSignatureError, type PaymentGateway } from '../../../src/server/payments/gateway.js';
import { createStripeGateway, type StripeGatewayOptions } from '../../../src/server/payments/stripeGateway.js';
import { signedEvent, startFakeStripe, stripeEvent, type FakeStripe, type StripeObject } from '../../support/fakeStripe.js';

const SECRET_KEY = 'sk_test_onramp0123456789abcdef';
const WEBHOOK_SECRET = 'whsec_onramp0123456789abcdef';
const EXPANSIONS = ['latest_invoice.confirmation_secret', 'latest_invoice.payments'];

let fake: FakeStripe;
let stripe: PaymentGateway;
beforeAll(async () => {
  fake = await startFakeStripe();
  stripe = gateway();
});
afterAll(() => fake.close());

function gateway(overrides: Partial<StripeGatewayOptions> = {}): PaymentGateway {
  return createStripeGateway({ secretKey: SECRET_KEY, priceId: fake.priceId, webhookSecret: WEBHOOK_SECRET, apiBase: fake.url, ...overrides });
}

let drivers = 0;
async function newDriver() {
  drivers += 1;
  const driverId = `drv_${drivers}`;
  const customerId = await stripe.createCustomer({ driverId, email: `driver${drivers}@example.com` });
  return { driverId, customerId, idempotencyKey: `subscription:${driverId}` };
}

function requestsTo(method: string, path: string) {
  return fake.requests.filter((request) => request.method === method && request.path === path);
}

describe('createCustomer', () => {
  it('creates a customer with the email and the driver id, keyed by the driver so a retry makes no second one', async () => {
    const before = fake.created.customers;
    const customerId = await stripe.createCustomer({ driverId: 'drv_customer', email: 'ana@example.com' });
    const again = await stripe.createCustomer({ driverId: 'drv_customer', email: 'ana@example.com' });

    expect(customerId).toMatch(/^cus_/);
    expect(again).toBe(customerId);
    expect(fake.created.customers - before).toBe(1);
    const [request] = requestsTo('POST', '/v1/customers').slice(-1);
    expect(request!.params).toEqual({ email: 'ana@example.com', metadata: { driverId: 'drv_customer' } });
    expect(request!.headers['idempotency-key']).toBe('customer:drv_customer');
  });

  it('sends a Stripe-Version of basil (2025-03-31) or later, when invoices lost payment_intent', async () => {
    await stripe.createCustomer({ driverId: 'drv_version', email: 'version@example.com' });
    const version = fake.requests.at(-1)!.headers['stripe-version'];
    expect(version).toMatch(/^\d{4}-\d{2}-\d{2}\.[a-z]+$/);
    expect(String(version).slice(0, 10) >= '2025-03-31').toBe(true);
  });

  it('passes on Stripe refusing a wrong secret key, without the key in the error', async () => {
    const liveKey = 'sk_live_onramp0123456789abcdef';
    const error = await gateway({ secretKey: liveKey })
      .createCustomer({ driverId: 'drv_key', email: 'key@example.com' })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ type: 'StripeAuthenticationError', statusCode: 401, message: 'Invalid API Key provided: sk_live_****cdef' });
    expect(JSON.stringify(error)).not.toContain(liveKey);
  });
});

describe('createSubscription', () => {
  it('asks for a weekly subscription whose first invoice waits for the card, and returns what the browser needs to confirm it', async () => {
    const { driverId, customerId, idempotencyKey } = await newDriver();
    const created = await stripe.createSubscription({ customerId, driverId, idempotencyKey });

    const [request] = requestsTo('POST', '/v1/subscriptions').slice(-1);
    expect(request!.params).toEqual({
      customer: customerId,
      items: [{ price: fake.priceId }],
      payment_behavior: 'default_incomplete',
      payment_settings: { save_default_payment_method: 'on_subscription' },
      expand: EXPANSIONS,
      metadata: { driverId },
    });
    expect(request!.headers['idempotency-key']).toBe(idempotencyKey);

    const stored = fake.stored(created.subscriptionId);
    expect(stored.subscription).toMatchObject({ object: 'subscription', customer: customerId, status: 'incomplete' });
    expect(created).toEqual({ customerId, subscriptionId: stored.subscription.id, paymentIntentId: stored.paymentIntentId, clientSecret: stored.clientSecret });
    expect(created.clientSecret).toMatch(new RegExp(`^${created.paymentIntentId}_secret_`));
  });

  it('returns the same subscription when retried with the same idempotency key, and Stripe makes only one', async () => {
    const request = await newDriver();
    const before = fake.created.subscriptions;
    const first = await stripe.createSubscription(request);
    const retried = await stripe.createSubscription(request);
    expect(retried).toEqual(first);
    expect(fake.created.subscriptions - before).toBe(1);
  });

  it('makes one subscription for two concurrent requests with the same key', async () => {
    const request = await newDriver();
    const before = fake.created.subscriptions;
    const [one, two] = await Promise.all([stripe.createSubscription(request), stripe.createSubscription(request)]);
    expect(two).toEqual(one);
    expect(fake.created.subscriptions - before).toBe(1);
  });

  it('retries a connection lost after Stripe made the subscription with the same key, and gets that subscription', async () => {
    const request = await newDriver();
    const before = fake.created.subscriptions;
    fake.loseNextAnswer();
    const created = await stripe.createSubscription(request);

    const attempts = requestsTo('POST', '/v1/subscriptions').filter((sent) => sent.headers['idempotency-key'] === request.idempotencyKey);
    expect(attempts).toHaveLength(2);
    expect(fake.created.subscriptions - before).toBe(1);
    expect(created.subscriptionId).toBe(fake.stored(created.subscriptionId).subscription.id);
  });

  it("passes on Stripe's resource_missing error for a price Stripe does not know", async () => {
    const request = await newDriver();
    await expect(gateway({ priceId: 'price_unknown' }).createSubscription(request)).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 400,
      code: 'resource_missing',
      param: 'items[0][price]',
      message: "No such price: 'price_unknown'",
    });
  });

  it('says which subscription and what to fix when the first invoice has no payment to confirm ($0 price)', async () => {
    const request = await newDriver();
    const error = (await gateway({ priceId: fake.freePriceId })
      .createSubscription(request)
      .catch((caught: unknown) => caught)) as Error;
    const subscriptionId = /sub_\w+/.exec(error.message)?.[0];
    expect(error.message).toBe(
      `Stripe subscription ${subscriptionId}: its first invoice has no payment to confirm (no confirmation secret or payment intent) — ` +
        'set STRIPE_PRICE_ID to a recurring price with a non-zero amount and no trial.',
    );
    expect(fake.stored(subscriptionId!).subscription.status).toBe('active');
  });
});

describe('retrieveSubscription', () => {
  it('reports an unpaid incomplete subscription, then an active paid one once its first invoice is paid', async () => {
    const created = await stripe.createSubscription(await newDriver());
    const { subscriptionId, customerId, paymentIntentId, clientSecret } = created;

    expect(await stripe.retrieveSubscription(subscriptionId)).toEqual({
      subscriptionId,
      customerId,
      status: 'incomplete',
      invoicePaid: false,
      paymentIntentIds: [paymentIntentId],
      clientSecret,
    });
    const request = fake.requests.at(-1)!;
    expect(request).toMatchObject({ method: 'GET', path: `/v1/subscriptions/${subscriptionId}`, params: { expand: EXPANSIONS } });

    fake.payInvoice(subscriptionId);
    expect(await stripe.retrieveSubscription(subscriptionId)).toEqual({
      subscriptionId,
      customerId,
      status: 'active',
      invoicePaid: true,
      paymentIntentIds: [paymentIntentId],
      clientSecret,
    });
  });

  it('keeps a declined first payment incomplete and unpaid, with the same secret to confirm another card', async () => {
    const { subscriptionId, paymentIntentId, clientSecret } = await stripe.createSubscription(await newDriver());
    fake.failInvoice(subscriptionId);
    expect(await stripe.retrieveSubscription(subscriptionId)).toMatchObject({
      status: 'incomplete',
      invoicePaid: false,
      paymentIntentIds: [paymentIntentId],
      clientSecret,
    });
  });

  it("passes on Stripe's resource_missing error for an unknown subscription", async () => {
    await expect(stripe.retrieveSubscription('sub_unknown')).rejects.toMatchObject({
      statusCode: 404,
      code: 'resource_missing',
      message: "No such subscription: 'sub_unknown'",
    });
  });
});

describe('parseWebhook', () => {
  let subscriptionId: string;
  let paidInvoice: StripeObject;
  beforeAll(async () => {
    ({ subscriptionId } = await stripe.createSubscription(await newDriver()));
    paidInvoice = fake.payInvoice(subscriptionId);
  });

  it('reads a signed invoice.paid delivery as the event id and the subscription it paid', () => {
    const event = stripeEvent('invoice.paid', paidInvoice);
    const { body, signature } = signedEvent(WEBHOOK_SECRET, event);
    expect(stripe.parseWebhook(body, signature)).toEqual({ id: event.id, type: 'invoice.paid', subscriptionId });
  });

  it('reads a signed invoice.payment_failed delivery with its subscription', async () => {
    const declined = await stripe.createSubscription(await newDriver());
    const event = stripeEvent('invoice.payment_failed', fake.failInvoice(declined.subscriptionId));
    const { body, signature } = signedEvent(WEBHOOK_SECRET, event);
    expect(stripe.parseWebhook(body, signature)).toEqual({ id: event.id, type: 'invoice.payment_failed', subscriptionId: declined.subscriptionId });
  });

  it('reads the subscription whether the invoice names it by id or carries it expanded, and none for an invoice without one', () => {
    const expanded = stripeEvent('invoice.paid', {
      ...paidInvoice,
      parent: {
        type: 'subscription_details',
        quote_details: null,
        subscription_details: { metadata: {}, subscription: { id: subscriptionId, object: 'subscription' } },
      },
    });
    const oneOff = stripeEvent('invoice.paid', { ...paidInvoice, parent: null });
    expect(stripe.parseWebhook(...deliver(expanded))).toMatchObject({ subscriptionId });
    expect(stripe.parseWebhook(...deliver(oneOff))).toEqual({ id: oneOff.id, type: 'invoice.paid', subscriptionId: null });
  });

  it('maps customer.subscription.deleted to the subscription that ended', () => {
    const event = stripeEvent('customer.subscription.deleted', { ...fake.stored(subscriptionId).subscription, status: 'canceled' });
    expect(stripe.parseWebhook(...deliver(event))).toEqual({ id: event.id, type: 'customer.subscription.deleted', subscriptionId });
  });

  it("acknowledges any other event type as 'other', with no subscription", () => {
    const event = stripeEvent('customer.subscription.updated', fake.stored(subscriptionId).subscription);
    expect(stripe.parseWebhook(...deliver(event))).toEqual({ id: event.id, type: 'other', subscriptionId: null });
  });

  it('refuses a body changed after signing, a signature made with another secret, and a missing signature', () => {
    const { body, signature } = signedEvent(WEBHOOK_SECRET, stripeEvent('invoice.paid', paidInvoice));
    const tampered = Buffer.from(body.toString().replace(subscriptionId, 'sub_someone_else'));
    const forged = signedEvent('whsec_another_secret', stripeEvent('invoice.paid', paidInvoice));

    for (const [rawBody, header] of [
      [tampered, signature],
      [forged.body, forged.signature],
      [body, undefined],
    ] as const) {
      expect(() => stripe.parseWebhook(rawBody, header)).toThrow(WebhookSignatureError);
      expect(() => stripe.parseWebhook(rawBody, header)).toThrow('The webhook signature could not be verified.');
    }
  });

  it("refuses a delivery signed more than Stripe's 300 s tolerance ago, and takes one within it", () => {
    const event = stripeEvent('invoice.paid', paidInvoice);
    const nowSeconds = Math.floor(Date.now() / 1000);
    const stale = signedEvent(WEBHOOK_SECRET, event, nowSeconds - 301);
    const recent = signedEvent(WEBHOOK_SECRET, event, nowSeconds - 290);
    expect(() => stripe.parseWebhook(stale.body, stale.signature)).toThrow(WebhookSignatureError);
    expect(stripe.parseWebhook(recent.body, recent.signature)).toMatchObject({ id: event.id, type: 'invoice.paid' });
  });

  it('refuses every delivery when no webhook secret is configured', () => {
    const { body, signature } = signedEvent(WEBHOOK_SECRET, stripeEvent('invoice.paid', paidInvoice));
    const parse = () => gateway({ webhookSecret: null }).parseWebhook(body, signature);
    expect(parse).toThrow(WebhookSignatureError);
    expect(parse).toThrow('Webhooks are not configured.');
  });
});

// The contract tests mean something only while the local server refuses what Stripe refuses.
describe('the local Stripe-shaped server', () => {
  it("refuses basil's removed latest_invoice.payment_intent expansion, and returns the invoice as a bare id unexpanded", async () => {
    const sdk = new Stripe(SECRET_KEY, { telemetry: false, ...fake.url });
    const { subscriptionId } = await stripe.createSubscription(await newDriver());
    await expect(sdk.subscriptions.retrieve(subscriptionId, { expand: ['latest_invoice.payment_intent'] })).rejects.toMatchObject({
      statusCode: 400,
      type: 'StripeInvalidRequestError',
      message: 'This property cannot be expanded (payment_intent).',
    });
    expect((await sdk.subscriptions.retrieve(subscriptionId)).latest_invoice).toBe(fake.stored(subscriptionId).invoice.id);
  });

  it('answers 401 without a secret key', async () => {
    const response = await fetch(`http://${fake.url.host}:${fake.url.port}/v1/customers`, { method: 'POST' });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: {
        type: 'invalid_request_error',
        message:
          "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
      },
    });
  });
});

function deliver(event: StripeObject): [Buffer, string] {
  const { body, signature } = signedEvent(WEBHOOK_SECRET, event);
  return [body, signature];
}
