/**
 * Sessions: the bearer token handed out after the email code (or a social sign-up) and sent
 * back as `Authorization: Bearer`. Only its SHA-256 is stored. It is read from that header
 * only, never from the `token` cookie the client also keeps, so a forged cross-site request
 * carries no credentials (research/anchors-security.md §2a).
 *
 * A resume link's token is stored the same way but is another kind ('resume'): it is not a
 * session. Only a route that opts in (`config: { acceptsResumeToken: true }`, GET
 * /driver/status/:id alone) takes one, and that route exchanges it at once for a normal
 * session (`exchangeResume`), deleting it in the same transaction: single use. Every other
 * route answers a resume token as it answers an unknown one.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../db/db.js';
import { unauthorized } from '../errors.js';
import { shared } from './shared.js';

export const SESSION_LIFETIME_MS = 24 * 60 * 60 * 1000;
export const TOKEN_NOT_FOUND = 'Token not found';
export const SESSION_EXPIRED = 'Session expired, Please relogin';

/** A row of `sessions`: a normal session, or a resume link's single-use token. */
export type TokenKind = 'session' | 'resume';

export interface IssuedSession {
  token: string;
  expiresAt: Date;
}

export interface Sessions {
  /** A new session token for the driver, for a day (SESSION_LIFETIME_MS). */
  start(driverId: string): Promise<string>;
  /** A resume link's token for the driver, living `lifetimeMs`: single-use, and no session until exchanged. */
  issueResume(driverId: string, lifetimeMs: number): Promise<IssuedSession>;
  /** The driver a live session token belongs to, or null (also for a resume token). */
  driverOf(token: string): Promise<string | null>;
  /** The driver and kind of a live token of either kind, or null. Resume tokens are never cached. */
  holderOf(token: string): Promise<{ driverId: string; kind: TokenKind } | null>;
  /**
   * Deletes the driver's live resume token and starts a session in its place, within `tx` (the
   * caller's transaction, so the two stand or fall together). The new session token, or null
   * when the resume token is gone: used already (by a concurrent request too), or expired.
   */
  exchangeResume(tx: Queryable, token: string, driverId: string): Promise<string | null>;
}

declare module 'fastify' {
  interface FastifyInstance {
    sessions: Sessions;
    /**
     * preHandler for driver-scoped routes: sets `request.driverId` or answers 401. Only a route
     * with `config.acceptsResumeToken` takes a resume token, and then sets `request.resumeToken`.
     */
    requireDriver: (request: FastifyRequest) => Promise<void>;
  }
  interface FastifyRequest {
    driverId: string;
    /** The resume token this request came with (a route that accepts one must exchange it), or null. */
    resumeToken: string | null;
  }
  interface FastifyContextConfig {
    /** The route takes a resume link's token as well as a session, and exchanges it. */
    acceptsResumeToken?: boolean;
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
 * server instances keep theirs for at most SESSION_CACHE_MS). Resume tokens are never cached:
 * they are deleted when used, and every use must reach the database to find out whether it was
 * the first.
 */
const SESSION_CACHE_MS = 60_000;
const SESSION_CACHE_SIZE = 10_000;

export const sessionsPlugin = shared(async (app) => {
  const cache = new Map<string, { driverId: string; expiresAt: number; cachedUntil: number }>();

  const issue = async (db: Queryable, driverId: string, lifetimeMs: number, kind: TokenKind): Promise<IssuedSession> => {
    const token = randomBytes(32).toString('base64url');
    const now = app.now();
    const expiresAt = new Date(now.getTime() + lifetimeMs);
    await db.query('INSERT INTO sessions (token_hash, driver_id, created_at, expires_at, kind) VALUES ($1, $2, $3, $4, $5)', [
      hashToken(token),
      driverId,
      now,
      expiresAt,
      kind,
    ]);
    return { token, expiresAt };
  };

  const holderOf: Sessions['holderOf'] = async (token) => {
    if (!TOKEN_PATTERN.test(token)) return null;
    const hash = hashToken(token);
    const now = app.now().getTime();
    const cached = cache.get(hash);
    if (cached && cached.cachedUntil > now) return cached.expiresAt > now ? { driverId: cached.driverId, kind: 'session' } : null;
    const { rows } = await app.db.query<{ driver_id: string; expires_at: Date; kind: TokenKind }>(
      'SELECT driver_id, expires_at, kind FROM sessions WHERE token_hash = $1 AND expires_at > $2',
      [hash, new Date(now)],
    );
    const row = rows[0];
    if (!row) return null;
    if (row.kind !== 'session') return { driverId: row.driver_id, kind: row.kind };
    if (cache.size >= SESSION_CACHE_SIZE) cache.clear();
    cache.set(hash, { driverId: row.driver_id, expiresAt: new Date(row.expires_at).getTime(), cachedUntil: now + SESSION_CACHE_MS });
    return { driverId: row.driver_id, kind: 'session' };
  };

  const sessions: Sessions = {
    start: async (driverId) => (await issue(app.db, driverId, SESSION_LIFETIME_MS, 'session')).token,
    issueResume: (driverId, lifetimeMs) => issue(app.db, driverId, lifetimeMs, 'resume'),
    holderOf,
    async driverOf(token) {
      const holder = await holderOf(token);
      return holder?.kind === 'session' ? holder.driverId : null;
    },
    async exchangeResume(tx, token, driverId) {
      if (!TOKEN_PATTERN.test(token)) return null;
      // The DELETE decides: of two requests with one token, the second finds no row (PostgreSQL
      // makes it wait for the first one's commit; PGlite runs one transaction at a time).
      const { rows } = await tx.query(
        "DELETE FROM sessions WHERE token_hash = $1 AND kind = 'resume' AND driver_id = $2 AND expires_at > $3 RETURNING driver_id",
        [hashToken(token), driverId, app.now()],
      );
      if (rows.length === 0) return null;
      return (await issue(tx, driverId, SESSION_LIFETIME_MS, 'session')).token;
    },
  };
  app.decorate('sessions', sessions);
  app.decorateRequest('driverId', '');
  app.decorateRequest('resumeToken', null);
  app.decorate('requireDriver', async (request: FastifyRequest) => {
    const token = bearerToken(request);
    if (!token) throw unauthorized(TOKEN_NOT_FOUND);
    const holder = await holderOf(token);
    // A resume token where none is taken answers like an unknown one: it is no session (yet).
    if (!holder || (holder.kind === 'resume' && request.routeOptions.config.acceptsResumeToken !== true)) throw unauthorized(SESSION_EXPIRED);
    request.driverId = holder.driverId;
    request.resumeToken = holder.kind === 'resume' ? token : null;
  });
});
