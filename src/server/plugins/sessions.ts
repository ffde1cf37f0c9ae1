/**
 * Sessions: the bearer token handed out after the email code (or a social sign-up) and sent
 * back as `Authorization: Bearer`. Only its SHA-256 is stored. It is read from that header
 * only, never from the `token` cookie the client also keeps, so a forged cross-site request
 * carries no credentials (research/anchors-security.md §2a).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { unauthorized } from '../errors.js';
import { shared } from './shared.js';

export const SESSION_LIFETIME_MS = 24 * 60 * 60 * 1000;
export const TOKEN_NOT_FOUND = 'Token not found';
export const SESSION_EXPIRED = 'Session expired, Please relogin';

export interface IssuedSession {
  token: string;
  expiresAt: Date;
}

export interface Sessions {
  /** A new token for the driver, for a day (SESSION_LIFETIME_MS). */
  start(driverId: string): Promise<string>;
  /** A new token for the driver that lives `lifetimeMs` (a resume link's is short). */
  issue(driverId: string, lifetimeMs: number): Promise<IssuedSession>;
  /** The driver a live token belongs to, or null. */
  driverOf(token: string): Promise<string | null>;
}

declare module 'fastify' {
  interface FastifyInstance {
    sessions: Sessions;
    /** preHandler for driver-scoped routes: sets `request.driverId` or answers 401. */
    requireDriver: (request: FastifyRequest) => Promise<void>;
  }
  interface FastifyRequest {
    driverId: string;
  }
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
/** 32 random bytes in base64url. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1] ?? null;
}

/**
 * Known live sessions, so a driver-scoped request (the status poll above all, DESIGN §6) does
 * not pay a database round trip just to find its driver. Sessions are never changed once made
 * and cannot be revoked yet; when they can, revoking must drop the entry here too (and other
 * server instances keep theirs for at most SESSION_CACHE_MS).
 */
const SESSION_CACHE_MS = 60_000;
const SESSION_CACHE_SIZE = 10_000;

export const sessionsPlugin = shared(async (app) => {
  const cache = new Map<string, { driverId: string; expiresAt: number; cachedUntil: number }>();
  const issue = async (driverId: string, lifetimeMs: number): Promise<IssuedSession> => {
    const token = randomBytes(32).toString('base64url');
    const now = app.now();
    const expiresAt = new Date(now.getTime() + lifetimeMs);
    await app.db.query('INSERT INTO sessions (token_hash, driver_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [
      hashToken(token),
      driverId,
      now,
      expiresAt,
    ]);
    return { token, expiresAt };
  };
  const sessions: Sessions = {
    issue,
    start: async (driverId) => (await issue(driverId, SESSION_LIFETIME_MS)).token,
    async driverOf(token) {
      if (!TOKEN_PATTERN.test(token)) return null;
      const hash = hashToken(token);
      const now = app.now().getTime();
      const cached = cache.get(hash);
      if (cached && cached.cachedUntil > now) return cached.expiresAt > now ? cached.driverId : null;
      const { rows } = await app.db.query<{ driver_id: string; expires_at: Date }>(
        'SELECT driver_id, expires_at FROM sessions WHERE token_hash = $1 AND expires_at > $2',
        [hash, new Date(now)],
      );
      const row = rows[0];
      if (!row) return null;
      if (cache.size >= SESSION_CACHE_SIZE) cache.clear();
      cache.set(hash, { driverId: row.driver_id, expiresAt: new Date(row.expires_at).getTime(), cachedUntil: now + SESSION_CACHE_MS });
      return row.driver_id;
    },
  };
  app.decorate('sessions', sessions);
  app.decorateRequest('driverId', '');
  app.decorate('requireDriver', async (request: FastifyRequest) => {
    const token = bearerToken(request);
    if (!token) throw unauthorized(TOKEN_NOT_FOUND);
    const driverId = await sessions.driverOf(token);
    if (!driverId) throw unauthorized(SESSION_EXPIRED);
    request.driverId = driverId;
  });
});
