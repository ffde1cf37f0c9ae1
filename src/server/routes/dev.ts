/**
 * Local-only helpers; app.ts does not register this file in production (they answer 404 there).
 */
import type { FastifyInstance } from 'fastify';

export async function devRoutes(app: FastifyInstance) {
  /** The codes the server "sent", newest first, so a developer or a test can sign in. */
  app.get('/dev/outbox', async () => app.outbox?.list() ?? []);
}
