/**
 * A webhook receiver for trying the signed webhooks locally (docs/integrations.md): point an
 * endpoint at http://127.0.0.1:3000/dev/webhooks. Each webhook POSTed here is verified with
 * standardwebhooks against the secrets of the endpoints that point here (the current one, and the
 * previous one while it still signs), and the last ones are kept in memory: GET /dev/webhooks
 * shows them, newest first. Registered by dev.ts, so never in production.
 */
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import type { RouteTable } from '../lib/routeTable.js';
import { readsItsOwnBody } from '../lib/routeSchemas.js';

/** The local receiver (lib/routeTable.ts). */
export const DEV_WEBHOOK_ROUTES = {
  receive: { method: 'POST', url: '/dev/webhooks' },
  received: { method: 'GET', url: '/dev/webhooks' },
} as const satisfies RouteTable;
/** The receiver's answer to a webhook no endpoint pointing here signed. */
export const NOT_SIGNED_HERE = 'No endpoint pointing here signed this webhook.';
/** How many received webhooks are kept. */
const KEPT = 100;

interface ReceivedWebhook {
  receivedAt: string;
  /** The webhook-id header: the event's id. */
  id: string | null;
  /** The endpoint whose secret verified it; null: none did. */
  verifiedFor: string | null;
  /** The signatures the webhook-signature header held (two after a rotation). */
  signatures: number;
  body: unknown;
}

const header = (value: string | string[] | undefined) => (typeof value === 'string' ? value : null);

export async function webhookReceiverRoutes(app: FastifyInstance) {
  const received: ReceivedWebhook[] = [];
  // The signature is over the exact bytes sent: the body is read as text, not parsed.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  const receive = {
    schema: { body: { $ref: 'api#/$defs/signedWebhook' }, response: { 200: { $ref: 'api#/$defs/webhookTaken' } } },
    // The body is the webhook's signed bytes, checked by its signature: the schema documents it.
    ...readsItsOwnBody,
  };
  app.post(DEV_WEBHOOK_ROUTES.receive.url, receive, async (request) => {
    const body = String(request.body ?? '');
    const headers = {
      'webhook-id': header(request.headers['webhook-id']) ?? '',
      'webhook-timestamp': header(request.headers['webhook-timestamp']) ?? '',
      'webhook-signature': header(request.headers['webhook-signature']) ?? '',
    };
    const { rows } = await app.db.query<{ id: string; secret: Uint8Array; previous_secret: Uint8Array | null }>(
      `SELECT id, secret, CASE WHEN previous_secret_expires_at > $2 THEN previous_secret END AS previous_secret
       FROM webhook_endpoints WHERE url LIKE '%' || $1`,
      [DEV_WEBHOOK_ROUTES.receive.url, app.now()],
    );
    const verifiedFor =
      rows.find((row) =>
        [row.secret, row.previous_secret].some((sealed) => {
          if (!sealed) return false;
          try {
            new Webhook(app.webhooks.openSecret(row.id, sealed)).verify(body, headers);
            return true;
          } catch {
            return false;
          }
        }),
      )?.id ?? null;
    // What an endpoint pointing here signed is one of our events, shown as JSON; anything else is
    // kept as the text it was (a body nested thousands deep would not be answered again as JSON).
    let parsed: unknown = body;
    if (verifiedFor) {
      try {
        parsed = JSON.parse(body);
      } catch {
        // Kept as the text it was.
      }
    }
    received.unshift({
      receivedAt: app.now().toISOString(),
      id: headers['webhook-id'] || null,
      verifiedFor,
      signatures: headers['webhook-signature'].split(' ').filter(Boolean).length,
      body: parsed,
    });
    received.length = Math.min(received.length, KEPT);
    if (!verifiedFor) throw app.httpErrors.badRequest(NOT_SIGNED_HERE);
    return { received: true };
  });

  app.get(DEV_WEBHOOK_ROUTES.received.url, { schema: { response: { 200: { $ref: 'api#/$defs/receivedWebhooks' } } } }, async () => ({ received }));
}
