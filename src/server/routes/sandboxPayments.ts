/**
 * The local payment sandbox's own endpoint, in place of Stripe.js's confirmPayment: the card
 * form on /add-card posts the card and the payment's client secret here, and gets Stripe's
 * answer shapes back. Registered only when the sandbox is the gateway (never with Stripe, and
 * never in production, which requires Stripe). Card numbers are never logged or stored.
 */
import { readTranslations } from '../../node/projectFiles.js';
import { localize, type Locale } from '../../shared/locales.js';
import { sandboxPayments, type SandboxPayments } from '../../shared/sandboxCard.js';
import { refusal } from '../serverMessages.js';
import type { FastifyInstance } from 'fastify';
import { readsItsOwnBody } from '../lib/routeSchemas.js';
import type { SandboxGateway } from '../payments/sandboxGateway.js';
import { type RouteTable } from '../lib/routeTable.js';

export const SANDBOX_CONFIRM_PATH = '/sandbox/confirmPayment';

/** The sandbox's confirm, registered with the API only while the sandbox is the gateway (plugins/payments.ts; lib/routeTable.ts). */
export const SANDBOX_PAYMENT_ROUTES = {
  confirm: { method: 'POST', url: SANDBOX_CONFIRM_PATH },
} as const satisfies RouteTable;

/** Client secrets are 60 to 80 characters; card fields far fewer. */
const MAX_TEXT = 200;
const textOf = (body: Record<string, unknown>, key: string) => {
  const value = body[key];
  if (typeof value !== 'string' || value.length > MAX_TEXT) throw refusal(400, 'request.textTooLong', { field: key, max: MAX_TEXT });
  return value;
};

/** The sandbox's words in each language, made once. */
const localizedWords = new Map<Locale, SandboxPayments>();
function wordsIn(locale: Locale): SandboxPayments {
  let words = localizedWords.get(locale);
  if (!words) {
    words = localize(sandboxPayments, readTranslations(locale, 'sandbox-payments.json'), locale);
    localizedWords.set(locale, words);
  }
  return words;
}

export async function sandboxPaymentRoutes(app: FastifyInstance, options: { gateway: SandboxGateway }) {
  const confirm = {
    schema: {
      body: { $ref: 'api#/$defs/sandboxConfirmBody' },
      response: { 200: { $ref: 'api#/$defs/sandboxPaid' }, '4xx': { $ref: 'api#/$defs/sandboxRefusal' } },
    },
    // The card form is read below as Stripe reads it, field by field in its own words: the schema documents it.
    ...readsItsOwnBody,
  };
  app.post(SANDBOX_PAYMENT_ROUTES.confirm.url, confirm, async (request, reply) => {
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw refusal(400, 'request.bodyNotObject');
    const fields = body as Record<string, unknown>;
    const unknown = Object.keys(fields).find((key) => !['clientSecret', 'number', 'expiry', 'cvc'].includes(key));
    if (unknown !== undefined) throw refusal(400, 'request.unknownField', { field: unknown });
    const card = { number: textOf(fields, 'number'), expiry: textOf(fields, 'expiry'), cvc: textOf(fields, 'cvc') };
    const result = await options.gateway.confirmPayment(textOf(fields, 'clientSecret'), card, wordsIn(request.locale));
    if ('paymentIntent' in result) return result;
    // Stripe's statuses: 402 for a declined card, 400 for a card it could not take, 404 for an unknown payment.
    const status = result.error.type === 'card_error' ? 402 : result.error.type === 'validation_error' ? 400 : 404;
    return reply.code(status).send({ message: result.error.message, ...result });
  });
}
