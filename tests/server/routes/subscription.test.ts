import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { startFakeStripe, signedEvent, stripeEvent, type FakeStripe } from '../../support/fakeStripe.js';
import {
  approvedDriver,
  bearer,
  json,
  outbox,
  post,
  sendVehicle,
  verifiedDriver,
  startTestServer,
  type TestDriver,
  type TestServer,
} from '../../support/server.js';

let server: TestServer;
let app: FastifyInstance;
let fake: FakeStripe;
/** The same server with Stripe (the local Stripe-shaped server) as the gateway. */
let stripeApp: FastifyInstance;
const WEBHOOK_SECRET = 'whsec_test_secret';

beforeAll(async () => {
  server = await startTestServer();
  app = server.app;
  fake = await startFakeStripe();
  stripeApp = await server.buildAnother({
    payments: {
      kind: 'stripe',
      secretKey: 'sk_test_onramp',
      publishableKey: 'pk_test_onramp',
      priceId: fake.priceId,
      webhookSecret: WEBHOOK_SECRET,
      apiBase: fake.url,
    },
  });
});
afterAll(async () => {
  await server.close();
  await fake.close();
});

/**
 * Both instances deliver notices in the background, each into its own local outbox: a notice is in
 * either. Each instance's pass is waited for: a pass of one skips the notices the other's claimed.
 */
const outboxes = async () => {
  await Promise.all([app, stripeApp].map((instance) => instance.messaging.deliverDue()));
  return [...(await outbox(app)), ...(await outbox(stripeApp))];
};

interface Created {
  clientSecret: string;
  stripeSubscriptionId: string;
  paymentIntentId: string;
}

const createSub = (token: string, on = app) => on.inject({ method: 'GET', url: '/subscription/createStripeSub', headers: bearer(token) });
const validate = (token: string, body: Record<string, unknown>, on = app) => post(on, '/subscription/validateStripeSub', token, body);
const confirm = (body: Record<string, unknown>) => app.inject({ method: 'POST', url: '/sandbox/confirmPayment', payload: body });
const card = (number: string) => ({ number, expiry: '12 / 40', cvc: '123' });
const paidFlag = async (driver: TestDriver) =>
  (await server.db.query<{ paid: boolean }>('SELECT is_subscription_paid AS paid FROM drivers WHERE id = $1', [driver.driverId])).rows[0]!.paid;

async function subscribed(driver: TestDriver, on = app): Promise<Created> {
  const response = await createSub(driver.token, on);
  expect(response.statusCode, response.body).toBe(200);
  return json<Created>(response);
}

async function paid(driver: TestDriver): Promise<Created> {
  const created = await subscribed(driver);
  const confirmed = await confirm({ clientSecret: created.clientSecret, ...card('4242 4242 4242 4242') });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  const response = await validate(driver.token, { stripeSubscriptionId: created.stripeSubscriptionId, paymentIntentId: created.paymentIntentId });
  expect(json(response)).toEqual({ status: true });
  return created;
}

describe('GET /subscription/createStripeSub', () => {
  it('refuses a driver who is not approved yet with 403', async () => {
    const driver = await verifiedDriver(app);
    await sendVehicle(app, driver);
    const response = await createSub(driver.token);
    expect(response.statusCode).toBe(403);
    expect(json(response)).toEqual({ message: 'Your profile must be approved before you subscribe.' });
  });

  it('refuses a request without a token with "Token not found"', async () => {
    const response = await app.inject({ method: 'GET', url: '/subscription/createStripeSub' });
    expect(response.statusCode).toBe(401);
    expect(json(response)).toEqual({ message: 'Token not found', reason: 'signInAgain' });
  });

  it('answers an approved driver with the client secret and the ids, and the same subscription when asked again', async () => {
    const driver = await approvedDriver(server);
    const first = await subscribed(driver);
    expect(first.clientSecret).toMatch(/^pi_sandbox_\w+_secret_\w+$/);
    expect(first.stripeSubscriptionId).toMatch(/^sub_sandbox_/);
    expect(first.paymentIntentId).toMatch(/^pi_sandbox_/);
    expect(await subscribed(driver)).toEqual(first);
  });

  it('makes one subscription for two concurrent requests', async () => {
    const driver = await approvedDriver(server);
    const [a, b] = await Promise.all([createSub(driver.token), createSub(driver.token)]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(json(a)).toEqual(json(b));
    const { rows } = await server.db.query(
      'SELECT 1 FROM sandbox_subscriptions s JOIN subscriptions d ON d.customer_id = s.customer_id WHERE d.driver_id = $1',
      [driver.driverId],
    );
    expect(rows).toHaveLength(1);
  });

  it('makes one subscription for requests to two servers at once, each waiting for the one before', async () => {
    const other = await server.buildAnother();
    const driver = await approvedDriver(server);
    const answers = await Promise.all([createSub(driver.token), createSub(driver.token, other), createSub(driver.token, other), createSub(driver.token)]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200]);
    expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
    const { rows } = await server.db.query(
      'SELECT 1 FROM sandbox_subscriptions s JOIN subscriptions d ON d.customer_id = s.customer_id WHERE d.driver_id = $1',
      [driver.driverId],
    );
    expect(rows).toHaveLength(1);
  });

  it('answers 409 once the subscription is paid', async () => {
    const driver = await approvedDriver(server);
    await paid(driver);
    const response = await createSub(driver.token);
    expect(response.statusCode).toBe(409);
    expect(json(response)).toEqual({ message: 'Your subscription is already active.', reason: 'alreadyPaid' });
  });
});

describe('POST /sandbox/confirmPayment (the local stand-in for Stripe.js)', () => {
  let created: Created;
  beforeAll(async () => {
    created = await subscribed(await approvedDriver(server));
  });

  it.each([
    ['4000 0000 0000 0002', 'card_declined', 'Your card was declined.'],
    ['4000 0000 0000 9995', 'insufficient_funds', 'Your card has insufficient funds.'],
    ['5555 5555 5555 4444', 'card_declined', 'Your card was declined. This test mode takes test cards only, such as 4242 4242 4242 4242.'],
  ])('declines %s with 402 and "%s"', async (number, code, message) => {
    const response = await confirm({ clientSecret: created.clientSecret, ...card(number) });
    expect(response.statusCode).toBe(402);
    expect(json(response)).toEqual({ message, error: { type: 'card_error', code, message } });
  });

  it.each([
    [{ number: '4242 4242 4242 4241' }, 'number', 'Your card number is invalid.'],
    [{ number: '4242' }, 'number', 'Your card number is incomplete.'],
    [{ expiry: '01 / 20' }, 'expiry', "Your card's expiration date is in the past."],
    [{ expiry: '13 / 40' }, 'expiry', "Your card's expiration date is invalid."],
    [{ cvc: '1' }, 'cvc', "Your card's security code is incomplete."],
  ])('refuses %o with 400 and the field message', async (change, field, message) => {
    const response = await confirm({ clientSecret: created.clientSecret, ...card('4242424242424242'), ...change });
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message, error: { type: 'validation_error', message, errors: { [field]: message } } });
  });

  it('answers 404 for a client secret it does not know, and 400 for an unknown field', async () => {
    const unknown = await confirm({ clientSecret: 'pi_x_secret_y', ...card('4242424242424242') });
    expect(unknown.statusCode).toBe(404);
    expect(json(unknown).message).toBe('This payment could not be found. Please reload the page and try again.');
    const extra = await confirm({ clientSecret: created.clientSecret, ...card('4242424242424242'), amount: 1 });
    expect(extra.statusCode).toBe(400);
    expect(json(extra)).toEqual({ message: 'Unknown field: amount' });
  });

  it('is not served when Stripe is the gateway', async () => {
    const response = await stripeApp.inject({
      method: 'POST',
      url: '/sandbox/confirmPayment',
      payload: { clientSecret: created.clientSecret, ...card('4242424242424242') },
    });
    expect(response.statusCode).toBe(404);
  });
});

describe('POST /subscription/validateStripeSub', () => {
  it('answers status false before the payment and true after it, and sets isSubscriptionPaid', async () => {
    const driver = await approvedDriver(server);
    const created = await subscribed(driver);
    const ids = { stripeSubscriptionId: created.stripeSubscriptionId, paymentIntentId: created.paymentIntentId };
    expect(json(await validate(driver.token, ids))).toEqual({ status: false });
    expect((await confirm({ clientSecret: created.clientSecret, ...card('4000000000000002') })).statusCode).toBe(402);
    expect(json(await validate(driver.token, ids))).toEqual({ status: false });
    expect((await confirm({ clientSecret: created.clientSecret, ...card('4242424242424242') })).statusCode).toBe(200);
    expect(json(await validate(driver.token, ids))).toEqual({ status: true });
    const status = await app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(driver.token) });
    expect(json<{ data: { isSubscriptionPaid: boolean } }>(status).data.isSubscriptionPaid).toBe(true);
  });

  it("refuses another driver's subscription ids with 403 and changes nothing", async () => {
    const owner = await approvedDriver(server);
    const created = await paid(owner);
    const other = await approvedDriver(server);
    await subscribed(other);
    const response = await validate(other.token, { stripeSubscriptionId: created.stripeSubscriptionId, paymentIntentId: created.paymentIntentId });
    expect(response.statusCode).toBe(403);
    expect(json(response)).toEqual({ message: 'This subscription does not belong to your account.' });
    expect(await paidFlag(other)).toBe(false);
  });

  it('refuses a payment intent that is not the subscription’s with 403', async () => {
    const driver = await approvedDriver(server);
    const created = await subscribed(driver);
    const response = await validate(driver.token, { stripeSubscriptionId: created.stripeSubscriptionId, paymentIntentId: 'pi_sandbox_someone_else' });
    expect(response.statusCode).toBe(403);
  });

  it('refuses missing ids and unknown fields with 400', async () => {
    const driver = await approvedDriver(server);
    const missing = await validate(driver.token, {});
    expect(missing.statusCode).toBe(400);
    expect(json(missing)).toEqual({ message: 'The subscription to check is missing. Please subscribe again.' });
    const extra = await validate(driver.token, { stripeSubscriptionId: 'sub_x', paymentIntentId: 'pi_x', isSubscriptionPaid: true });
    expect(extra.statusCode).toBe(400);
    expect(json(extra)).toEqual({ message: 'Unknown field: isSubscriptionPaid' });
  });
});

describe('with Stripe as the gateway', () => {
  it('creates the customer and a default_incomplete subscription with the basil-era expansions, once for two concurrent requests', async () => {
    const driver = await approvedDriver(server);
    const before = fake.created.subscriptions;
    const [a, b] = await Promise.all([createSub(driver.token, stripeApp), createSub(driver.token, stripeApp)]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(json(a)).toEqual(json(b));
    expect(fake.created.subscriptions - before).toBe(1);
    const created = json<Created>(a);
    expect(created).toEqual({
      clientSecret: fake.stored(created.stripeSubscriptionId).clientSecret,
      stripeSubscriptionId: created.stripeSubscriptionId,
      paymentIntentId: fake.stored(created.stripeSubscriptionId).paymentIntentId,
    });
    const request = fake.requests.find(
      (each) => each.method === 'POST' && each.path === '/v1/subscriptions' && (each.params.metadata as Record<string, string>).driverId === driver.driverId,
    );
    expect(request?.params).toMatchObject({
      payment_behavior: 'default_incomplete',
      expand: ['latest_invoice.confirmation_secret', 'latest_invoice.payments'],
      items: [{ price: fake.priceId }],
    });
  });

  it('says paid only once Stripe reports the invoice paid', async () => {
    const driver = await approvedDriver(server);
    const created = await subscribed(driver, stripeApp);
    const ids = { stripeSubscriptionId: created.stripeSubscriptionId, paymentIntentId: created.paymentIntentId };
    expect(json(await validate(driver.token, ids, stripeApp))).toEqual({ status: false });
    fake.payInvoice(created.stripeSubscriptionId);
    expect(json(await validate(driver.token, ids, stripeApp))).toEqual({ status: true });
    expect(await paidFlag(driver)).toBe(true);
  });
});

describe('POST /subscription/webhook', () => {
  let driver: TestDriver;
  let created: Created;
  beforeAll(async () => {
    driver = await approvedDriver(server);
    created = await subscribed(driver, stripeApp);
  });

  const deliver = (delivery: { body: Buffer; signature: string }, on = stripeApp) =>
    on.inject({
      method: 'POST',
      url: '/subscription/webhook',
      headers: { 'content-type': 'application/json', 'stripe-signature': delivery.signature },
      payload: delivery.body,
    });

  it('refuses a bad signature with 400 and changes nothing', async () => {
    const event = stripeEvent('invoice.paid', fake.payInvoice(created.stripeSubscriptionId));
    const forged = signedEvent('whsec_someone_else', event);
    const response = await deliver(forged);
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message: 'The webhook signature could not be verified.' });
    expect(await paidFlag(driver)).toBe(false);
  });

  it('keeps the paid flag with invoice.paid and invoice.payment_failed, handling a repeated event once', async () => {
    const paidEvent = stripeEvent('invoice.paid', fake.payInvoice(created.stripeSubscriptionId));
    const failedEvent = stripeEvent('invoice.payment_failed', fake.failInvoice(created.stripeSubscriptionId));
    expect(json(await deliver(signedEvent(WEBHOOK_SECRET, paidEvent)))).toEqual({ received: true, duplicate: false });
    expect(await paidFlag(driver)).toBe(true);
    expect(json(await deliver(signedEvent(WEBHOOK_SECRET, failedEvent)))).toEqual({ received: true, duplicate: false });
    expect(await paidFlag(driver)).toBe(false);
    // Stripe delivers at least once: the paid event again must not undo the failure.
    expect(json(await deliver(signedEvent(WEBHOOK_SECRET, paidEvent)))).toEqual({ received: true, duplicate: true });
    expect(await paidFlag(driver)).toBe(false);
    const { rows } = await server.db.query('SELECT id FROM payment_events WHERE id = ANY($1)', [[paidEvent.id, failedEvent.id]]);
    expect(rows).toHaveLength(2);
    // The driver is told, once.
    const told = (await outboxes()).filter((entry) => entry.to === driver.email && 'notice' in entry && entry.notice === 'subscriptionFailed');
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ subject: 'Your Onramp subscription payment failed' });
  });

  it('ends access with customer.subscription.deleted; subscribing again makes a new subscription', async () => {
    const ended = await approvedDriver(server);
    const first = await subscribed(ended, stripeApp);
    await deliver(signedEvent(WEBHOOK_SECRET, stripeEvent('invoice.paid', fake.payInvoice(first.stripeSubscriptionId))));
    expect(await paidFlag(ended)).toBe(true);
    const canceled = { ...fake.stored(first.stripeSubscriptionId).subscription, status: 'canceled' };
    expect(json(await deliver(signedEvent(WEBHOOK_SECRET, stripeEvent('customer.subscription.deleted', canceled))))).toEqual({
      received: true,
      duplicate: false,
    });
    expect(await paidFlag(ended)).toBe(false);
    expect((await outboxes()).find((entry) => entry.to === ended.email && 'notice' in entry && entry.notice === 'subscriptionEnded')).toMatchObject({
      subject: 'Your Onramp subscription has ended',
    });
    const again = await subscribed(ended, stripeApp);
    expect(again.stripeSubscriptionId).not.toBe(first.stripeSubscriptionId);
  });

  it('acknowledges other event types without a change', async () => {
    const response = await deliver(signedEvent(WEBHOOK_SECRET, stripeEvent('customer.created', { id: 'cus_x', object: 'customer' })));
    expect(json(response)).toEqual({ received: true, duplicate: false });
  });

  it('refuses every delivery with the sandbox, which sends none', async () => {
    const response = await deliver(signedEvent(WEBHOOK_SECRET, stripeEvent('invoice.paid', {})), app);
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message: 'Webhooks are not configured.' });
  });
});
