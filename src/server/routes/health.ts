/**
 * For load balancers and orchestrators: /healthz says the process is up and answering (restart it
 * if not); /readyz says it can serve drivers, i.e. the database answers and it is not stopping
 * (send no new traffic if not).
 */
import type { FastifyInstance } from 'fastify';
import { SERVER_MESSAGES } from '../serverMessages.js';
import { type RouteTable } from '../lib/routeTable.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Set once a stop has begun (shutdown.ts): the server still serves, but asks for no new traffic. */
    draining: boolean;
  }
}

/** The probes (lib/routeTable.ts). */
export const HEALTH_ROUTES = {
  liveness: { method: 'GET', url: '/healthz' },
  readiness: { method: 'GET', url: '/readyz' },
} as const satisfies RouteTable;

/** What /readyz answers a balancer once the server is stopping. */
export const STOPPING_MESSAGE = 'This server is stopping: send requests to another one.';

/** A readiness probe that waits longer than its caller's timeout tells it nothing. */
const READINESS_TIMEOUT_MS = 2_000;

export async function healthRoutes(app: FastifyInstance) {
  app.get(HEALTH_ROUTES.liveness.url, { schema: { response: { 200: { $ref: 'api#/$defs/health' } } } }, async () => ({ status: 'ok' }));

  // 503 while stopping or while the database does not answer: a balancer sends requests elsewhere.
  const readiness = { schema: { response: { 200: { $ref: 'api#/$defs/health' }, 503: { $ref: 'api-error#' } } } };
  app.get(HEALTH_ROUTES.readiness.url, readiness, async (request, reply) => {
    if (app.draining) return reply.code(503).send({ message: STOPPING_MESSAGE });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${READINESS_TIMEOUT_MS} ms`)), READINESS_TIMEOUT_MS);
    });
    try {
      await Promise.race([app.db.ping(), timedOut]);
      return { status: 'ready' };
    } catch (error) {
      request.log.warn({ error: error instanceof Error ? error.message : String(error) }, 'Not ready: the database does not answer');
      return reply.code(503).send({ message: SERVER_MESSAGES.request.unavailable });
    } finally {
      clearTimeout(timer);
    }
  });
}
