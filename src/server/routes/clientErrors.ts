/**
 * POST /client-errors: a fault of the browser app's own code (a throw that is a bug, not a network
 * failure nor a refusal), as the page reports it (src/client/runtime/faults.ts), written to the
 * log as a warning for whoever runs the server. The body (src/shared/clientErrorReport.schema.json)
 * names the error, its frames in our scripts, the build and the route pattern, and takes nothing
 * else: no form value, no address with its values, nothing on a second line. The reports taken are
 * counted per client address across every server instance, so neither a page in a loop nor a
 * stranger fills the log.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { ServerConfig } from '../config.js';
import { sharedLimitStore } from '../plugins/rateLimitStore.js';
import { checkBodiesBySchema } from '../lib/bodySchemas.js';
import { refusal } from '../serverMessages.js';
import { CLIENT_ERRORS_PATH } from '../../shared/apiAnswers.js';
import type { ClientErrorReport } from '../../shared/generated/clientErrorReport.js';
import { type RouteTable } from '../lib/routeTable.js';

/** The browser's fault reports (lib/routeTable.ts). */
export const CLIENT_ERROR_ROUTES = {
  report: { method: 'POST', url: CLIENT_ERRORS_PATH },
} as const satisfies RouteTable;

/** A page reports each of its faults once (the browser keeps count), so a handful a minute is plenty for one address. */
const REPORTS_PER_MINUTE = 10;

export async function clientErrorRoutes(app: FastifyInstance, options: { counters: ServerConfig['sharedCounters'] }) {
  checkBodiesBySchema(app);
  await app.register(rateLimit, {
    max: REPORTS_PER_MINUTE,
    timeWindow: 60_000,
    ...(await sharedLimitStore(app, options.counters)),
    keyGenerator: (request) => `client-errors:${request.ip}`,
    // Counted once a report is taken (after its schema): what is refused writes nothing to the log.
    hook: 'preHandler',
    errorResponseBuilder: () => refusal(429, 'auth.tooManyRequests'),
  });

  app.post<{ Body: ClientErrorReport }>(
    CLIENT_ERROR_ROUTES.report.url,
    { schema: { body: { $ref: 'client-error-report' }, response: { 204: { description: 'The report is taken.', type: 'null' } } } },
    async (request, reply) => {
      const { name, message, stack, build, route } = request.body;
      request.log.warn({ clientError: { name, message, stack, build, route } }, 'The browser app failed: a fault of its own code');
      return reply.code(204).send();
    },
  );
}
