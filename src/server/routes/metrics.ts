/**
 * /metrics: what Prometheus scrapes (plugins/metrics.ts, docs/monitoring.md). In production it
 * says how busy the service is and what fails, which is for the operator alone: it answers only a
 * scraper that sends METRICS_TOKEN as a bearer, and no one while the token is unset. Outside
 * production (`npm start`), it is open unless the token is set.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { type RouteTable } from '../lib/routeTable.js';
import { bearerToken } from '../plugins/sessions.js';
import { fileAnswer } from '../lib/routeSchemas.js';
import { refusal } from '../serverMessages.js';

/** The scrape (lib/routeTable.ts). */
export const METRICS_ROUTES = {
  scrape: { method: 'GET', url: '/metrics' },
} as const satisfies RouteTable;

/** Compared as digests: equal lengths for timingSafeEqual, and no time that tells how much of the token matched. */
const digest = (token: string) => createHash('sha256').update(token).digest();

export async function metricsRoutes(app: FastifyInstance, { token, production }: { token: string | null; production: boolean }) {
  const expected = token === null ? null : digest(token);
  const open = expected === null && !production;
  const scrape = { schema: { response: { 200: fileAnswer('The metrics, in Prometheus’ text format.', 'text/plain') } } };
  app.get(METRICS_ROUTES.scrape.url, scrape, async (request, reply) => {
    if (!open) {
      const given = bearerToken(request);
      if (expected === null || given === null || !timingSafeEqual(digest(given), expected)) {
        reply.header('www-authenticate', 'Bearer');
        throw refusal(401, 'staff.metricsTokenNeeded');
      }
    }
    return reply.type(app.metrics.contentType).send(await app.metrics.exposition());
  });
}
