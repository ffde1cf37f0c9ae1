/**
 * A local Stripe-shaped HTTP server for the Stripe gateway's contract tests: the official
 * stripe-mock cannot be had offline, and stripe-stateful-mock has no invoices or payment intents.
 * It answers only the calls the gateway makes, with the
 * objects API 2026-10-28.endive returns, and behaves like Stripe where the gateway depends on it:
 * secret-key auth, idempotent creates, basil's invoice shape, refused expansions, Stripe's errors.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/** Form-encoded parameters with Stripe's brackets unfolded: `items[0][price]` → `{ items: [{ price }] }`. */
export type Params = { [name: string]: Param };
export type Param = string | Param[] | Params;

export interface RecordedRequest {
  method: string;
  path: string;
  /** The form body of a POST, the query of a GET. */
  params: Params;
  /** Lower-cased, as node gives them: `idempotency-key`, `stripe-version`, `authorization`… */
  headers: IncomingHttpHeaders;
}

export interface FakeStripe {
  /** For the gateway's `apiBase`. */
  url: { host: string; port: number; protocol: 'http' };
  /** A weekly price of $199 (19900 usd): a first invoice with a payment to confirm. */
  priceId: string;
  /** A weekly price of $0: Stripe pays its first invoice at once, so there is nothing to confirm. */
  freePriceId: string;
  requests: RecordedRequest[];
  /** Objects really made; a replayed idempotent request makes none. */
  created: { customers: number; subscriptions: number };
  /** What the fake holds for a subscription: the objects and its first payment's ids. */
  stored(subscriptionId: string): { subscription: StripeObject; invoice: StripeObject; paymentIntentId: string | null; clientSecret: string | null };
  /** Does the next request's work, then drops the connection unanswered, as a network failure would. */
  loseNextAnswer(): void;
  /** The first payment succeeded (the card was confirmed): returns the invoice as a webhook event carries it. */
  payInvoice(subscriptionId: string): StripeObject;
  /** The first payment was declined; the invoice stays open for another card. Returns the invoice as an event carries it. */
  failInvoice(subscriptionId: string): StripeObject;
  close(): Promise<void>;
}

export type StripeObject = Record<string, unknown>;

interface StoredInvoice {
  invoice: StripeObject;
  /** Includable fields: Stripe returns them only when expanded. */
  confirmationSecret: StripeObject | null;
  payments: StripeObject[];
}

class StripeApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: { type: string; message: string; code?: string; param?: string },
  ) {
    super(body.message);
  }
}

const EXPANDABLE = new Set(['latest_invoice', 'latest_invoice.confirmation_secret', 'latest_invoice.payments']);

export async function startFakeStripe(): Promise<FakeStripe> {
  const prices = new Map<string, StripeObject>();
  const customers = new Map<string, StripeObject>();
  const subscriptions = new Map<string, StripeObject>();
  const invoices = new Map<string, StoredInvoice>();
  const idempotent = new Map<string, { path: string; body: string; response: string }>();
  const requests: RecordedRequest[] = [];
  const created = { customers: 0, subscriptions: 0 };
  let loseNextAnswer = false;

  const priceId = addPrice(19_900);
  const freePriceId = addPrice(0);

  function addPrice(unitAmount: number): string {
    const price = {
      id: stripeId('price'),
      object: 'price',
      active: true,
      billing_scheme: 'per_unit',
      created: now(),
      currency: 'usd',
      livemode: false,
      lookup_key: null,
      metadata: {},
      nickname: null,
      product: stripeId('prod'),
      recurring: { interval: 'week', interval_count: 1, meter: null, usage_type: 'licensed' },
      tax_behavior: 'unspecified',
      type: 'recurring',
      unit_amount: unitAmount,
      unit_amount_decimal: String(unitAmount),
    };
    prices.set(price.id, price);
    return price.id;
  }

  function createCustomer(params: Params): StripeObject {
    const customer = {
      id: stripeId('cus'),
      object: 'customer',
      address: null,
      balance: 0,
      created: now(),
      currency: null,
      default_source: null,
      delinquent: false,
      description: null,
      email: text(params.email) ?? null,
      invoice_prefix: randomBytes(4).toString('hex').toUpperCase(),
      invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
      livemode: false,
      metadata: record(params.metadata),
      name: null,
      phone: null,
      preferred_locales: [],
      shipping: null,
      tax_exempt: 'none',
      test_clock: null,
    };
    customers.set(customer.id, customer);
    created.customers += 1;
    return customer;
  }

  function createSubscription(params: Params): StripeObject {
    const customerId = text(params.customer);
    if (!customerId) throw missingParam('customer');
    if (!customers.has(customerId)) throw noSuch('customer', customerId, 'customer');
    const items = Array.isArray(params.items) ? params.items : [];
    const item = items[0];
    const requestedPrice = item && typeof item === 'object' && !Array.isArray(item) ? text(item.price) : undefined;
    if (items.length !== 1 || !requestedPrice) throw missingParam('items[0][price]');
    const price = prices.get(requestedPrice);
    if (!price) throw noSuch('price', requestedPrice, 'items[0][price]');

    const createdAt = now();
    const periodEnd = createdAt + 7 * 24 * 3600;
    const amount = price.unit_amount as number;
    const subscriptionId = stripeId('sub');
    const invoiceId = stripeId('in');
    const metadata = record(params.metadata);
    // A $0 first invoice is paid at once, without a payment, so Stripe makes no payment intent for it.
    const paid = amount === 0;
    const paymentIntentId = stripeId('pi');
    invoices.set(invoiceId, {
      invoice: {
        id: invoiceId,
        object: 'invoice',
        account_country: 'US',
        amount_due: amount,
        amount_paid: paid ? amount : 0,
        amount_remaining: paid ? 0 : amount,
        attempt_count: 0,
        attempted: false,
        auto_advance: false,
        billing_reason: 'subscription_create',
        collection_method: 'charge_automatically',
        created: createdAt,
        currency: 'usd',
        customer: customerId,
        customer_email: customers.get(customerId)!.email,
        default_payment_method: null,
        description: null,
        hosted_invoice_url: `https://invoice.stripe.com/i/${invoiceId}`,
        lines: {
          object: 'list',
          data: [
            {
              id: stripeId('il'),
              object: 'line_item',
              amount,
              currency: 'usd',
              description: `1 × subscription (at $${(amount / 100).toFixed(2)} / week)`,
              invoice: invoiceId,
              livemode: false,
              metadata: {},
              parent: { type: 'subscription_item_details', subscription_item_details: { subscription: subscriptionId } },
              period: { start: createdAt, end: periodEnd },
              pricing: { type: 'price_details', price_details: { price: price.id, product: price.product }, unit_amount_decimal: String(amount) },
              quantity: 1,
            },
          ],
          has_more: false,
          total_count: 1,
          url: `/v1/invoices/${invoiceId}/lines`,
        },
        livemode: false,
        metadata: {},
        next_payment_attempt: null,
        number: `${randomBytes(4).toString('hex').toUpperCase()}-0001`,
        parent: { type: 'subscription_details', quote_details: null, subscription_details: { metadata, subscription: subscriptionId } },
        period_start: createdAt,
        period_end: createdAt,
        status: paid ? 'paid' : 'open',
        status_transitions: { finalized_at: createdAt, marked_uncollectible_at: null, paid_at: paid ? createdAt : null, voided_at: null },
        subtotal: amount,
        total: amount,
      },
      confirmationSecret: paid ? null : { client_secret: `${paymentIntentId}_secret_${randomBytes(12).toString('hex')}`, type: 'payment_intent' },
      payments: paid
        ? []
        : [
            {
              id: stripeId('inpay'),
              object: 'invoice_payment',
              amount_paid: null,
              amount_requested: amount,
              created: createdAt,
              currency: 'usd',
              invoice: invoiceId,
              is_default: true,
              livemode: false,
              payment: { type: 'payment_intent', payment_intent: paymentIntentId },
              status: 'open',
              status_transitions: { canceled_at: null, paid_at: null },
            },
          ],
    });

    const subscription = {
      id: subscriptionId,
      object: 'subscription',
      application: null,
      billing_cycle_anchor: createdAt,
      cancel_at: null,
      cancel_at_period_end: false,
      canceled_at: null,
      collection_method: 'charge_automatically',
      created: createdAt,
      currency: 'usd',
      customer: customerId,
      default_payment_method: null,
      description: null,
      items: {
        object: 'list',
        data: [
          {
            id: stripeId('si'),
            object: 'subscription_item',
            created: createdAt,
            current_period_start: createdAt,
            current_period_end: periodEnd,
            metadata: {},
            price,
            quantity: 1,
            subscription: subscriptionId,
          },
        ],
        has_more: false,
        total_count: 1,
        url: `/v1/subscription_items?subscription=${subscriptionId}`,
      },
      latest_invoice: invoiceId,
      livemode: false,
      metadata,
      payment_settings: {
        payment_method_options: null,
        payment_method_types: null,
        save_default_payment_method: text(record(params.payment_settings).save_default_payment_method) ?? 'off',
      },
      pending_setup_intent: null,
      start_date: createdAt,
      status: paid ? 'active' : 'incomplete',
      test_clock: null,
      trial_end: null,
      trial_start: null,
    };
    subscriptions.set(subscriptionId, subscription);
    created.subscriptions += 1;
    return subscription;
  }

  function invoiceOf(subscriptionId: string): StoredInvoice {
    const subscription = subscriptions.get(subscriptionId);
    if (!subscription) throw new Error(`The fake Stripe has no subscription ${subscriptionId}.`);
    return invoices.get(subscription.latest_invoice as string)!;
  }

  function render(subscription: StripeObject, expand: string[]): StripeObject {
    if (!expand.some((path) => path.split('.')[0] === 'latest_invoice')) return subscription;
    const stored = invoices.get(subscription.latest_invoice as string)!;
    return {
      ...subscription,
      latest_invoice: {
        ...stored.invoice,
        ...(expand.includes('latest_invoice.confirmation_secret') ? { confirmation_secret: stored.confirmationSecret } : {}),
        ...(expand.includes('latest_invoice.payments')
          ? { payments: { object: 'list', data: stored.payments, has_more: false, url: `/v1/invoice_payments?invoice=${stored.invoice.id}` } }
          : {}),
      },
    };
  }

  function answer(method: string, path: string, params: Params): StripeObject {
    if (method === 'POST' && path === '/v1/customers') return createCustomer(params);
    const expand = expansions(params);
    if (method === 'POST' && path === '/v1/subscriptions') return render(createSubscription(params), expand);
    const retrieved = method === 'GET' ? /^\/v1\/subscriptions\/([^/]+)$/.exec(path) : null;
    if (retrieved) {
      const id = decodeURIComponent(retrieved[1]!);
      const subscription = subscriptions.get(id);
      if (!subscription) throw noSuch('subscription', id, 'id', 404);
      return render(subscription, expand);
    }
    throw new StripeApiError(404, {
      type: 'invalid_request_error',
      message: `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
    });
  }

  /** Stripe keeps the first answer to an Idempotency-Key and replays it; errors found before any work are not kept. */
  function answerOnce(method: string, path: string, body: string, params: Params, key: string | undefined): { json: string; replayed: boolean } {
    const previous = method === 'POST' && key ? idempotent.get(key) : undefined;
    if (previous && previous.path !== path) {
      throw new StripeApiError(400, {
        type: 'invalid_request_error',
        message: `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${previous.path}' vs '${path}'). Try using a key other than '${key}' if you meant to execute a different request.`,
      });
    }
    if (previous && previous.body !== body) {
      throw new StripeApiError(400, {
        type: 'idempotency_error',
        message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
      });
    }
    if (previous) return { json: previous.response, replayed: true };
    const json = JSON.stringify(answer(method, path, params));
    if (method === 'POST' && key) idempotent.set(key, { path, body, response: json });
    return { json, replayed: false };
  }

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', 'http://fake-stripe');
    const body = await readBody(request);
    const params = parseParams(request.method === 'GET' ? url.search : body);
    requests.push({ method: request.method ?? '', path: url.pathname, params, headers: request.headers });
    const key = header(request.headers, 'idempotency-key');
    response.setHeader('request-id', stripeId('req'));
    response.setHeader('stripe-version', header(request.headers, 'stripe-version') ?? Stripe.API_VERSION);
    if (key) response.setHeader('idempotency-key', key);
    try {
      authenticate(header(request.headers, 'authorization'));
      const { json, replayed } = answerOnce(request.method ?? '', url.pathname, body, params, key);
      if (loseNextAnswer) {
        loseNextAnswer = false;
        request.socket.destroy();
        return;
      }
      if (replayed) response.setHeader('idempotent-replayed', 'true');
      send(response, 200, json);
    } catch (error) {
      if (!(error instanceof StripeApiError)) throw error;
      send(response, error.status, JSON.stringify({ error: error.body }));
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      send(response, 500, JSON.stringify({ error: { type: 'api_error', message: `The fake Stripe failed: ${String(error)}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: { host: '127.0.0.1', port, protocol: 'http' },
    priceId,
    freePriceId,
    requests,
    created,
    stored(subscriptionId) {
      const { invoice, confirmationSecret, payments } = invoiceOf(subscriptionId);
      const payment = payments[0]?.payment as StripeObject | undefined;
      return {
        subscription: subscriptions.get(subscriptionId)!,
        invoice,
        paymentIntentId: (payment?.payment_intent as string | undefined) ?? null,
        clientSecret: (confirmationSecret?.client_secret as string | undefined) ?? null,
      };
    },
    loseNextAnswer() {
      loseNextAnswer = true;
    },
    payInvoice(subscriptionId) {
      const stored = invoiceOf(subscriptionId);
      const paidAt = now();
      const amount = stored.invoice.amount_due;
      Object.assign(stored.invoice, {
        amount_paid: amount,
        amount_remaining: 0,
        attempt_count: (stored.invoice.attempt_count as number) + 1,
        attempted: true,
        status: 'paid',
        status_transitions: { ...(stored.invoice.status_transitions as StripeObject), paid_at: paidAt },
      });
      for (const payment of stored.payments) {
        Object.assign(payment, { amount_paid: amount, status: 'paid', status_transitions: { canceled_at: null, paid_at: paidAt } });
      }
      subscriptions.get(subscriptionId)!.status = 'active';
      return { ...stored.invoice };
    },
    failInvoice(subscriptionId) {
      // Stripe keeps a declined first invoice open, with its payment intent, for another card;
      // the subscription stays incomplete until paid or until it expires after 23 hours.
      const stored = invoiceOf(subscriptionId);
      Object.assign(stored.invoice, { attempt_count: (stored.invoice.attempt_count as number) + 1, attempted: true });
      return { ...stored.invoice };
    },
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

/** An event envelope as Stripe delivers it to a webhook endpoint on the SDK's API version. */
export function stripeEvent(type: string, object: StripeObject): StripeObject {
  return {
    id: stripeId('evt'),
    object: 'event',
    api_version: Stripe.API_VERSION,
    created: now(),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

/** A webhook delivery signed as Stripe signs it: the raw body and its `Stripe-Signature` header. */
export function signedEvent(secret: string, event: StripeObject, timestamp = now()): { body: Buffer; signature: string } {
  const payload = JSON.stringify(event);
  return { body: Buffer.from(payload), signature: Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp }) };
}

/** Unfolds Stripe's bracket encoding; indexed keys (`expand[0]`) become arrays. */
export function parseParams(encoded: string): Params {
  const root: Params = {};
  for (const [key, value] of new URLSearchParams(encoded)) {
    const path = key.split('[').map((segment) => segment.replace(/]$/, ''));
    let node = root;
    path.forEach((segment, index) => {
      if (index === path.length - 1) node[segment] = value;
      else node = (node[segment] ??= {}) as Params;
    });
  }
  return withArrays(root) as Params;
}

function withArrays(param: Param): Param {
  if (typeof param === 'string' || Array.isArray(param)) return param;
  const entries = Object.entries(param).map(([name, value]) => [name, withArrays(value)] as const);
  if (entries.length > 0 && entries.every(([name]) => /^\d+$/.test(name))) {
    return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, value]) => value);
  }
  return Object.fromEntries(entries);
}

function expansions(params: Params): string[] {
  const expand = params.expand === undefined ? [] : Array.isArray(params.expand) ? params.expand : [params.expand];
  const paths = expand.filter((path): path is string => typeof path === 'string');
  const refused = paths.find((path) => !EXPANDABLE.has(path));
  if (refused) {
    // Basil removed `latest_invoice.payment_intent`; Stripe refuses it like any field that cannot expand.
    throw new StripeApiError(400, {
      type: 'invalid_request_error',
      message: `This property cannot be expanded (${refused.split('.').at(-1)}).`,
      param: 'expand',
    });
  }
  return paths;
}

function authenticate(authorization: string | undefined) {
  const key = authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : undefined;
  if (!key) {
    throw new StripeApiError(401, {
      type: 'invalid_request_error',
      message:
        "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
    });
  }
  if (!/^sk_test_\w+$/.test(key)) {
    throw new StripeApiError(401, { type: 'invalid_request_error', message: `Invalid API Key provided: ${key.slice(0, 8)}****${key.slice(-4)}` });
  }
}

function noSuch(kind: string, id: string, param: string, status = 400): StripeApiError {
  return new StripeApiError(status, { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${kind}: '${id}'`, param });
}

function missingParam(param: string): StripeApiError {
  return new StripeApiError(400, { type: 'invalid_request_error', code: 'parameter_missing', message: `Missing required param: ${param}.`, param });
}

function text(param: Param | undefined): string | undefined {
  return typeof param === 'string' ? param : undefined;
}

function record(param: Param | undefined): Params {
  return param && typeof param === 'object' && !Array.isArray(param) ? param : {};
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function send(response: ServerResponse, status: number, json: string) {
  response.writeHead(status, { 'content-type': 'application/json' }).end(json);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function stripeId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}
