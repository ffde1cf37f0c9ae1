/**
 * /metrics: what Prometheus scrapes (plugins/metrics.ts, docs/monitoring.md). In production it
 * says how busy the service is and what fails, which is for the operator alone: it is served only
 * with METRICS_TOKEN set, to a scraper that sends the token as a bearer. Outside production
 * (`npm start`), it is open unless the token is set.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { type RouteTable } from '../lib/routeTable.js';
import { bearerToken } from '../plugins/sessions.js';

/** The scrape (lib/routeTable.ts). */
export const METRICS_ROUTES = {
  scrape: { method: 'GET', url: '/metrics' },
} as const satisfies RouteTable;

/** What a scrape without the token, or with another, is answered. */
export const METRICS_REFUSED_MESSAGE = 'The metrics need the bearer token METRICS_TOKEN sets.';

/** Compared as digests: equal lengths for timingSafeEqual, and no time that tells how much of the token matched. */
const digest = (token: string) => createHash('sha256').update(token).digest();

export async function metricsRoutes(app: FastifyInstance, { token, production }: { token: string | null; production: boolean }) {
  if (token === null && production) return;
  const expected = token === null ? null : digest(token);
  app.get(METRICS_ROUTES.scrape.url, async (request, reply) => {
    if (expected) {
      const given = bearerToken(request);
      if (given === null || !timingSafeEqual(digest(given), expected)) {
        return reply.code(401).header('www-authenticate', 'Bearer').send({ message: METRICS_REFUSED_MESSAGE });
      }
    }
    return reply.type(app.metrics.contentType).send(await app.metrics.exposition());
  });
}
