/**
 * Local-only helpers; app.ts does not register this file in production (they answer 404 there).
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { fileAnswer } from '../lib/routeSchemas.js';
import type { LiveState } from '../../shared/liveState.js';
import { type RouteTable } from '../lib/routeTable.js';
import { webhookReceiverRoutes } from './devWebhooks.js';

/** The local helpers (lib/routeTable.ts); the live stream only under `npm run dev`. */
export const DEV_ROUTES = {
  outbox: { method: 'GET', url: '/dev/outbox' },
  events: { method: 'GET', url: '/dev/events' },
} as const satisfies RouteTable;

/** How soon a page's EventSource tries again after the stream ends (the server restarted). */
const RECONNECT_MS = 300;

export async function devRoutes(app: FastifyInstance) {
  /** The codes and notices the server "sent" (when the local outbox stands in for SMTP or Twilio), newest first, so a developer or a test can sign in. */
  app.get(DEV_ROUTES.outbox.url, { schema: { response: { 200: { $ref: 'api#/$defs/outbox' } } } }, async () => app.messaging.outbox?.list() ?? []);
  await app.register(webhookReceiverRoutes);

  const { live } = app;
  if (!live) return;
  const streams = new Set<ServerResponse>();

  /**
   * Under `npm run dev`: a Server-Sent Events stream of the live state (plugins/callReader.ts), sent on
   * connecting and after each edit; the page's dev client (src/client/dev/) follows it.
   */
  app.get(
    DEV_ROUTES.events.url,
    { schema: { response: { 200: fileAnswer('The live state, as Server-Sent Events.', 'text/event-stream') } } },
    (request, reply) => {
      reply.hijack();
      const stream = reply.raw;
      stream.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
      const send = (state: LiveState) => stream.write(`data: ${JSON.stringify(state)}\n\n`);
      stream.write(`retry: ${RECONNECT_MS}\n\n`);
      send(live.state);
      const unsubscribe = live.subscribe(send);
      streams.add(stream);
      request.raw.once('close', () => {
        unsubscribe();
        streams.delete(stream);
      });
    },
  );

  // An open stream would keep the server from closing (a restart after the flow's routes changed).
  app.addHook('preClose', async () => {
    for (const stream of streams) stream.end();
  });
}
