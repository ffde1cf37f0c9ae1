/**
 * Who may use the admin API: whoever holds ADMIN_TOKEN (config.ts), sent as
 * `Authorization: Bearer <token>` like a driver's session. There are no admin accounts yet,
 * so the token is the administrator; what they decide is recorded under `reviewer`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { bearerToken } from './sessions.js';
import fp from 'fastify-plugin';

export const ADMIN_AUTH_MESSAGES = {
  tokenRequired: 'Admin token required.',
  driversCannot: 'Drivers cannot use the admin API.',
} as const;

declare module 'fastify' {
  interface FastifyInstance {
    /** onRequest hook for the admin API: answers 401 (no or wrong token) or 403 (a driver's token). */
    requireAdmin: (request: FastifyRequest) => Promise<void>;
    /** Who made an admin decision, as recorded with it: which admin token, never the token itself. */
    adminReviewer: string;
  }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

export const adminAuthPlugin = fp<{ adminToken: string }>(
  async (app, options) => {
    // Digests have one length whatever was sent, so timingSafeEqual compares in constant time
    // and the comparison says nothing about the token's length either.
    const expected = sha256(options.adminToken);
    const isAdminToken = (token: string) => timingSafeEqual(sha256(token), expected);

    // A fingerprint tells decisions made with a rotated token apart; 48 bits reveal nothing usable.
    app.decorate('adminReviewer', `admin-token:${expected.toString('hex').slice(0, 12)}`);

    app.decorate('requireAdmin', async (request: FastifyRequest) => {
      const token = bearerToken(request);
      if (!token) throw app.httpErrors.unauthorized(ADMIN_AUTH_MESSAGES.tokenRequired);
      if (isAdminToken(token)) return;
      // A driver who found the admin page gets told why, rather than "wrong token".
      if ((await app.sessions.holderOf(token))?.kind === 'session') throw app.httpErrors.forbidden(ADMIN_AUTH_MESSAGES.driversCannot);
      throw app.httpErrors.unauthorized(ADMIN_AUTH_MESSAGES.tokenRequired);
    });
  },
  { name: 'onramp-admin-auth', decorators: { fastify: ['httpErrors', 'sessions'] } },
);
