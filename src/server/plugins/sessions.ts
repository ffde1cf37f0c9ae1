/**
 * Bearer tokens, sent back as `Authorization: Bearer` (never read from the `token` cookie the
 * client also keeps, so a forged cross-site request carries no credentials; docs/architecture.md,
 * "Security rules the code keeps"). Only a token's SHA-256 is stored. Three kinds:
 *
 * - a session: made by a sign-in (an ID token exchanged at /auth/signIn or the social sign-up),
 *   by the sign-up's verified email code, or by a resume link. It lasts a day at most, expires
 *   after 30 idle minutes, and can be ended (/auth/signOut; a new password ends the others).
 * - a sign-up token: what the email sign-up hands out. It is good only for sending and checking
 *   that sign-up's email code, so a code is bound to the sign-up that asked for it.
 * - a resume link's token: single use, taken only by a route that opts in
 *   (`config: { tokenKinds: [..., 'resume'] }`, GET /driver/status/:id alone), which exchanges it
 *   at once for a session (`exchangeResume`) in the same transaction that deletes it.
 *
 * A route takes sessions only unless its config names other kinds; any other token answers as an
 * unknown one. Ending a session ends it on every instance: the tokens are read from the database.
 *
 * A new password ends the driver's other sessions and sign-up tokens within VALID_SINCE_TTL_MS,
 * with no sign-in needed: Firebase moves the user's "valid since" (tokensValidAfterTime) when the
 * password changes or their tokens are revoked, and a token made before it counts as ended. That
 * time is asked of Firebase at most once per user per VALID_SINCE_TTL_MS on each instance (the
 * status poll, every few seconds, must neither ask Firebase each time nor add a query), and kept
 * for the most recent MAX_VALID_SINCE_USERS users.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../db/db.js';
import { STATUS_COLUMNS, type StatusRow } from '../lib/driverStatus.js';
import { signInAgain } from '../errors.js';
import fp from 'fastify-plugin';

export const SESSION_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** ASVS 3.3.2 (L2): re-authenticate after 30 minutes idle. */
export const SESSION_IDLE_MS = 30 * 60 * 1000;
/** Long enough to read an email and ask for a code again; short enough that a lost one is soon worthless. */
export const SIGNUP_TOKEN_LIFETIME_MS = 60 * 60 * 1000;
/** How recent a sign-in must be for a sensitive change (replacing the payout account). */
export const FRESH_SIGN_IN_MS = 5 * 60 * 1000;
/** last_seen_at is written at most this often per session: a status poll every few seconds must not write every time. */
const LAST_SEEN_GRANULARITY_MS = 60 * 1000;
/** How long a user's Firebase "valid since" is used before it is asked again: a new password ends other sessions within it. */
export const VALID_SINCE_TTL_MS = 30 * 1000;
/** The users whose "valid since" an instance keeps (about 100 bytes each); the least recently asked go first. */
const MAX_VALID_SINCE_USERS = 20_000;

export type TokenKind = 'session' | 'resume' | 'signup';

export interface IssuedToken {
  token: string;
  expiresAt: Date;
}

/** Who a live token belongs to, and how they got it. */
export interface TokenHolder {
  driverId: string;
  kind: TokenKind;
  /** When the driver last signed in with Firebase for this token; null when it came from a code or a link. */
  authenticatedAt: Date | null;
  /** Where the driver stood when the token was checked, read in the same query (GET /driver/status answers it). */
  standing: StatusRow;
}

export interface Sessions {
  /** A new session for the driver. `authenticatedAt`: when they signed in with Firebase, if they just did. */
  start(driverId: string, authenticatedAt: Date | null, db?: Queryable): Promise<IssuedToken>;
  /** A sign-up token (SIGNUP_TOKEN_LIFETIME_MS) for the email sign-up of this driver. */
  startSignup(driverId: string, authenticatedAt: Date | null): Promise<IssuedToken>;
  /** A resume link's token for the driver, living `lifetimeMs`: single-use, and no session until exchanged. */
  issueResume(driverId: string, lifetimeMs: number): Promise<IssuedToken>;
  /** The holder of a live token of any kind, or null. */
  holderOf(token: string): Promise<TokenHolder | null>;
  /** Ends one token (sign-out, or a sign-up token once its code was verified). */
  end(token: string, db?: Queryable): Promise<void>;
  /** Ends the driver's sessions and sign-up tokens made before `before` (a new password). */
  endOlderThan(driverId: string, before: Date): Promise<void>;
  /**
   * Deletes the driver's live resume token and starts a session in its place, within `tx` (the
   * caller's transaction, so the two stand or fall together). The new session, or null when the
   * resume token is gone: used already (by a concurrent request too), or expired.
   */
  exchangeResume(tx: Queryable, token: string, driverId: string): Promise<IssuedToken | null>;
  /** Whether the holder signed in with Firebase within FRESH_SIGN_IN_MS. */
  isFresh(holder: TokenHolder): boolean;
  /** The Firebase user's "valid since", as asked at most once per VALID_SINCE_TTL_MS (staff sessions end by it too). */
  validSince(uid: string): Promise<Date | null>;
}

declare module 'fastify' {
  interface FastifyInstance {
    sessions: Sessions;
    /**
     * preHandler for driver-scoped routes: sets `request.driverId` and `request.token`, or answers
     * 401. The route's `config.tokenKinds` says which kinds it takes (sessions only by default).
     */
    requireDriver: (request: FastifyRequest) => Promise<void>;
  }
  interface FastifyRequest {
    driverId: string;
    /** The bearer token the request came with, and who holds it (set by requireDriver). */
    token: { value: string; holder: TokenHolder } | null;
  }
  interface FastifyContextConfig {
    /** The kinds of token the route takes; sessions only when absent. */
    tokenKinds?: readonly TokenKind[];
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

interface TokenRow extends StatusRow {
  driver_id: string;
  kind: TokenKind;
  authenticated_at: Date | null;
  last_seen_at: Date;
  created_at: Date;
  firebase_uid: string;
}

/**
 * A live token's holder and where they stand, in one query (the status poll's only one): $1 the
 * token's hash, $2 now, $3 the idle cut-off (holderQueryParams).
 */
export const HOLDER_QUERY = `SELECT s.driver_id, s.kind, s.authenticated_at, s.last_seen_at, s.created_at, d.firebase_uid, ${STATUS_COLUMNS}
       FROM sessions s JOIN drivers d ON d.id = s.driver_id
       WHERE s.token_hash = $1 AND s.expires_at > $2 AND (s.kind <> 'session' OR s.last_seen_at > $3)`;
export const holderQueryParams = (token: string, now: Date) => [hashToken(token), now, new Date(now.getTime() - SESSION_IDLE_MS)];
/** HOLDER_QUERY's name as a prepared statement: it runs for every signed-in request, and planning its join cost more than running it. */
export const HOLDER_STATEMENT = 'session-holder';

export const sessionsPlugin = fp(
  async (app) => {
    const issue = async (db: Queryable, driverId: string, kind: TokenKind, lifetimeMs: number, authenticatedAt: Date | null): Promise<IssuedToken> => {
      const token = randomBytes(32).toString('base64url');
      const now = app.now();
      const expiresAt = new Date(now.getTime() + lifetimeMs);
      await db.query(
        'INSERT INTO sessions (token_hash, driver_id, kind, created_at, last_seen_at, expires_at, authenticated_at) VALUES ($1, $2, $3, $4, $4, $5, $6)',
        [hashToken(token), driverId, kind, now, expiresAt, authenticatedAt],
      );
      return { token, expiresAt };
    };

    /** Each user's Firebase "valid since", as last asked, until `until`; a lookup under way is shared. */
    const validSince = new Map<string, { since: Promise<Date | null>; until: number }>();
    const validSinceOf = (uid: string): Promise<Date | null> => {
      const now = app.now().getTime();
      const kept = validSince.get(uid);
      if (kept && kept.until > now) return kept.since;
      // Firebase unreachable (identity logs it): the last time known, or none, until asked again.
      const since = app.identity.tokensValidSince(uid).catch(() => kept?.since ?? null);
      validSince.delete(uid);
      validSince.set(uid, { since, until: now + VALID_SINCE_TTL_MS });
      if (validSince.size > MAX_VALID_SINCE_USERS) validSince.delete(validSince.keys().next().value!);
      return since;
    };

    const holderOf: Sessions['holderOf'] = async (token) => {
      if (!TOKEN_PATTERN.test(token)) return null;
      const now = app.now();
      const params = holderQueryParams(token, now);
      const { rows } = await app.db.prepared<TokenRow>(HOLDER_STATEMENT, HOLDER_QUERY, params);
      const row = rows[0];
      if (!row) return null;
      if (row.kind !== 'resume') {
        const since = await validSinceOf(row.firebase_uid);
        if (since && new Date(row.created_at).getTime() < since.getTime()) {
          await sessions.endOlderThan(row.driver_id, since);
          return null;
        }
      }
      if (row.kind === 'session' && now.getTime() - new Date(row.last_seen_at).getTime() > LAST_SEEN_GRANULARITY_MS) {
        await app.db.query('UPDATE sessions SET last_seen_at = $2 WHERE token_hash = $1', [params[0], now]);
      }
      const { driver_id, kind, authenticated_at, last_seen_at: _seen, created_at: _created, firebase_uid: _uid, ...standing } = row;
      return { driverId: driver_id, kind, authenticatedAt: authenticated_at ? new Date(authenticated_at) : null, standing };
    };

    const sessions: Sessions = {
      start: (driverId, authenticatedAt, db = app.db) => issue(db, driverId, 'session', SESSION_LIFETIME_MS, authenticatedAt),
      startSignup: (driverId, authenticatedAt) => issue(app.db, driverId, 'signup', SIGNUP_TOKEN_LIFETIME_MS, authenticatedAt),
      issueResume: (driverId, lifetimeMs) => issue(app.db, driverId, 'resume', lifetimeMs, null),
      holderOf,
      async end(token, db = app.db) {
        if (TOKEN_PATTERN.test(token)) await db.query('DELETE FROM sessions WHERE token_hash = $1', [hashToken(token)]);
      },
      async endOlderThan(driverId, before) {
        await app.db.query("DELETE FROM sessions WHERE driver_id = $1 AND kind <> 'resume' AND created_at < $2", [driverId, before]);
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
        return issue(tx, driverId, 'session', SESSION_LIFETIME_MS, null);
      },
      isFresh: (holder) => holder.authenticatedAt !== null && app.now().getTime() - holder.authenticatedAt.getTime() <= FRESH_SIGN_IN_MS,
      validSince: validSinceOf,
    };
    app.decorate('sessions', sessions);
    app.decorateRequest('driverId', '');
    app.decorateRequest('token', null);
    app.decorate('requireDriver', async (request: FastifyRequest) => {
      const token = bearerToken(request);
      // In the request's language, read only for a refusal (the status poll passes here).
      const messages = () => app.callReader.flowIn(request.locale).messages;
      if (!token) throw signInAgain(401, messages().tokenMissing);
      const holder = await holderOf(token);
      const kinds = request.routeOptions.config.tokenKinds ?? ['session'];
      // A token of a kind the route does not take answers like an unknown one.
      if (!holder || !kinds.includes(holder.kind)) throw signInAgain(401, messages().sessionExpired);
      request.driverId = holder.driverId;
      request.token = { value: token, holder };
      // What the driver sends from the app is in the language they use it in now: their notices follow it (messaging.ts).
      if (request.method !== 'GET') {
        await app.db.query('UPDATE drivers SET locale = $2 WHERE id = $1 AND locale <> $2', [holder.driverId, request.locale]);
      }
    });
  },
  { name: 'onramp-sessions', decorators: { fastify: ['callReader', 'db', 'identity', 'now'] } },
);
