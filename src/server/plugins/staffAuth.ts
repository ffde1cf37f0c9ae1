/**
 * Who may use the admin API: a staff member, as themselves (docs/operations.md, "Staff: signing in,
 * roles, the audit record"). Two credentials, both sent as `Authorization: Bearer` and both stored
 * only as a SHA-256:
 *
 * - a staff session: made by POST /admin/session from a fresh Firebase ID token (routes/staff.ts).
 *   It ends after 15 idle minutes, 8 hours after the sign-in, at sign-out, when the person is
 *   removed, and when their password changes, however it was changed: Firebase moves their "valid
 *   since", and a session made before it ends, as a driver's does (plugins/sessions.ts). Apart from drivers' sessions (plugins/sessions.ts): neither opens the other's routes.
 * - a staff key (`onramp-key-…`): what the command line and scripts act with, for one person,
 *   made by that person signed in (or by `npm run admin -- staff add`) and revocable by an owner.
 *
 * - an integration's key (`onramp-integration-…`): a partner's system, not a person, with the single
 *   role `integration` (routes/integrations.ts). A route open to any staff member is not open to it.
 *
 * Every request reads the person and their roles afresh: a removal or a role taken away holds from
 * the next request, on every instance. A route says which roles may call it in its config
 * (`staffRoles`; any staff member when absent) and whether it needs a sign-in at most 5 minutes old
 * (`freshSignIn`, which a key never is). What staff do is written to the audit record (plugins/audit.ts).
 */
import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { IntegrationRole, StaffRole } from '../../shared/review.js';
import { STAFF_ROLES } from '../../shared/generated/staff.js';
import type { Queryable } from '../db/db.js';
import { hashSecret } from '../lib/secretHash.js';
import { SIGN_IN_AGAIN_REASON } from '../../shared/apiAnswers.js';
import { refusal } from '../serverMessages.js';
import { bearerToken, FRESH_SIGN_IN_MS } from './sessions.js';
import fp from 'fastify-plugin';

/** ASVS 3.3.2 (L3 for staff): re-authenticate after 15 idle minutes, and after 8 hours whatever happens. */
export const STAFF_SESSION_IDLE_MS = 15 * 60 * 1000;
export const STAFF_SESSION_LIFETIME_MS = 8 * 60 * 60 * 1000;
/** last_seen_at / last_used_at are written at most this often per credential. */
const LAST_SEEN_GRANULARITY_MS = 60 * 1000;

export const STAFF_KEY_PREFIX = 'onramp-key-';
export const INTEGRATION_KEY_PREFIX = 'onramp-integration-';
const SESSION_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const KEY_PATTERN = new RegExp(`^${STAFF_KEY_PREFIX}[A-Za-z0-9_-]{43}$`);
const INTEGRATION_KEY_PATTERN = new RegExp(`^${INTEGRATION_KEY_PREFIX}[A-Za-z0-9_-]{43}$`);

export const INTEGRATION_ROLE: IntegrationRole = 'integration';
/** A role a route may be opened to: a person's, or an integration's. */
export type Role = StaffRole | IntegrationRole;
/** A person's roles among a holder's (what a route for persons reads: requireStaff let no integration in). */
export const personRolesOf = (holder: StaffHolder): StaffRole[] => holder.roles.filter((role): role is StaffRole => role !== INTEGRATION_ROLE);

/** A refusal the admin page answers by asking the staff member to sign in again, without leaving. */
const SIGN_IN_AGAIN = { reason: SIGN_IN_AGAIN_REASON };

/** A signed-in staff member (or an integration), as read for this request. */
export interface StaffHolder {
  id: string;
  /** The person's email; `integration:<name>` for an integration (the audit record's actor). */
  email: string;
  roles: Role[];
  via: 'session' | 'key';
  /** When they typed their password (a session); null for a key. */
  authenticatedAt: Date | null;
  /** A session's end at the latest; null for a key. */
  expiresAt: Date | null;
}

export interface StaffAuth {
  /** A new staff session for the person, who signed in with Firebase at `authenticatedAt`. */
  startSession(staffId: string, authenticatedAt: Date): Promise<{ token: string; expiresAt: Date }>;
  endSession(token: string): Promise<void>;
  /** Ends the person's sessions made before `before` (a new password). */
  endOlderThan(staffId: string, before: Date): Promise<void>;
  /** A new key for the person: the key itself is answered once and never kept. */
  createKey(staffId: string, label: string, db?: Queryable): Promise<{ id: string; key: string }>;
  /** A new key for an integration, the same way. */
  createIntegrationKey(integrationId: string, db?: Queryable): Promise<{ id: string; key: string }>;
}

declare module 'fastify' {
  interface FastifyInstance {
    staffAuth: StaffAuth;
    /** onRequest hook of the admin API: 401 (no, ended or unknown credential), 403 (a driver's session, a role not given, not fresh). */
    requireStaff: (request: FastifyRequest) => Promise<void>;
  }
  interface FastifyRequest {
    /** The staff member of an admin request (set by requireStaff). */
    staff: StaffHolder | null;
  }
  interface FastifyContextConfig {
    /** The roles any one of which may call the admin route; any person on the staff when absent. */
    staffRoles?: readonly Role[];
    /** The route needs a sign-in at most FRESH_SIGN_IN_MS old (export, erase). */
    freshSignIn?: boolean;
  }
}

interface HolderRow {
  id: string;
  email: string;
  roles: Role[];
  authenticated_at: Date | null;
  expires_at: Date | null;
  seen: Date | null;
}

interface SessionRow extends HolderRow {
  created_at: Date;
  firebase_uid: string;
}

export const staffAuthPlugin = fp(
  async (app) => {
    const sessionHolder = async (token: string): Promise<StaffHolder | null> => {
      const now = app.now();
      const hash = hashSecret(token);
      const { rows } = await app.db.query<SessionRow>(
        `SELECT st.id, st.email, st.roles, ss.authenticated_at, ss.expires_at, ss.last_seen_at AS seen, ss.created_at, st.firebase_uid
         FROM staff_sessions ss JOIN staff st ON st.id = ss.staff_id
         WHERE ss.token_hash = $1 AND ss.expires_at > $2 AND ss.last_seen_at > $3 AND st.removed_at IS NULL`,
        [hash, now, new Date(now.getTime() - STAFF_SESSION_IDLE_MS)],
      );
      const row = rows[0];
      if (!row) return null;
      const since = await app.sessions.validSince(row.firebase_uid);
      if (since && new Date(row.created_at).getTime() < since.getTime()) {
        await staffAuth.endOlderThan(row.id, since);
        return null;
      }
      if (now.getTime() - new Date(row.seen!).getTime() > LAST_SEEN_GRANULARITY_MS) {
        await app.db.query('UPDATE staff_sessions SET last_seen_at = $2 WHERE token_hash = $1', [hash, now]);
      }
      return {
        id: row.id,
        email: row.email,
        roles: row.roles,
        via: 'session',
        authenticatedAt: new Date(row.authenticated_at!),
        expiresAt: new Date(row.expires_at!),
      };
    };

    const keyHolder = async (key: string): Promise<StaffHolder | null> => {
      const now = app.now();
      const hash = hashSecret(key);
      const { rows } = await app.db.query<HolderRow>(
        `SELECT st.id, st.email, st.roles, k.last_used_at AS seen
         FROM staff_keys k JOIN staff st ON st.id = k.staff_id
         WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND st.removed_at IS NULL`,
        [hash],
      );
      const row = rows[0];
      if (!row) return null;
      if (!row.seen || now.getTime() - new Date(row.seen).getTime() > LAST_SEEN_GRANULARITY_MS) {
        await app.db.query('UPDATE staff_keys SET last_used_at = $2 WHERE key_hash = $1', [hash, now]);
      }
      return { id: row.id, email: row.email, roles: row.roles, via: 'key', authenticatedAt: null, expiresAt: null };
    };

    const integrationHolder = async (key: string): Promise<StaffHolder | null> => {
      const now = app.now();
      const hash = hashSecret(key);
      const { rows } = await app.db.query<{ id: string; name: string; seen: Date | null }>(
        `SELECT i.id, i.name, k.last_used_at AS seen FROM integration_keys k JOIN integrations i ON i.id = k.integration_id
         WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
        [hash],
      );
      const row = rows[0];
      if (!row) return null;
      if (!row.seen || now.getTime() - new Date(row.seen).getTime() > LAST_SEEN_GRANULARITY_MS) {
        await app.db.query('UPDATE integration_keys SET last_used_at = $2 WHERE key_hash = $1', [hash, now]);
      }
      return { id: row.id, email: `${INTEGRATION_ROLE}:${row.name}`, roles: [INTEGRATION_ROLE], via: 'key', authenticatedAt: null, expiresAt: null };
    };

    /** The staff member (or integration) a bearer token names, or null (unknown, expired, revoked, removed). */
    const holderOf = async (token: string): Promise<StaffHolder | null> => {
      if (KEY_PATTERN.test(token)) return keyHolder(token);
      if (INTEGRATION_KEY_PATTERN.test(token)) return integrationHolder(token);
      if (SESSION_PATTERN.test(token)) return sessionHolder(token);
      return null;
    };

    const staffAuth: StaffAuth = {
      async startSession(staffId, authenticatedAt) {
        const token = randomBytes(32).toString('base64url');
        const now = app.now();
        const expiresAt = new Date(now.getTime() + STAFF_SESSION_LIFETIME_MS);
        await app.db.query(
          'INSERT INTO staff_sessions (token_hash, staff_id, created_at, last_seen_at, expires_at, authenticated_at) VALUES ($1, $2, $3, $3, $4, $5)',
          [hashSecret(token), staffId, now, expiresAt, authenticatedAt],
        );
        return { token, expiresAt };
      },
      async endSession(token) {
        if (SESSION_PATTERN.test(token)) await app.db.query('DELETE FROM staff_sessions WHERE token_hash = $1', [hashSecret(token)]);
      },
      async endOlderThan(staffId, before) {
        await app.db.query('DELETE FROM staff_sessions WHERE staff_id = $1 AND created_at < $2', [staffId, before]);
      },
      async createKey(staffId, label, db = app.db) {
        const key = `${STAFF_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
        const { rows } = await db.query<{ id: string }>('INSERT INTO staff_keys (key_hash, staff_id, label, created_at) VALUES ($1, $2, $3, $4) RETURNING id', [
          hashSecret(key),
          staffId,
          label,
          app.now(),
        ]);
        return { id: rows[0]!.id, key };
      },
      async createIntegrationKey(integrationId, db = app.db) {
        const key = `${INTEGRATION_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
        const { rows } = await db.query<{ id: string }>(
          'INSERT INTO integration_keys (key_hash, integration_id, created_at) VALUES ($1, $2, $3) RETURNING id',
          [hashSecret(key), integrationId, app.now()],
        );
        return { id: rows[0]!.id, key };
      },
    };
    app.decorate('staffAuth', staffAuth);
    app.decorateRequest('staff', null);

    app.decorate('requireStaff', async (request: FastifyRequest) => {
      const token = bearerToken(request);
      if (!token) throw refusal(401, 'staff.signInRequired', SIGN_IN_AGAIN);
      const staff = await holderOf(token);
      if (!staff) {
        // A driver who found the admin page is told why, rather than "sign in".
        if ((await app.sessions.holderOf(token))?.kind === 'session') throw refusal(403, 'staff.driversCannot');
        throw refusal(401, 'staff.sessionEnded', SIGN_IN_AGAIN);
      }
      request.staff = staff;
      const { freshSignIn } = request.routeOptions.config;
      // A route for any staff member is for any person: an integration's role is never among them.
      const staffRoles = request.routeOptions.config.staffRoles ?? STAFF_ROLES;
      if (!staffRoles.some((role) => staff.roles.includes(role))) {
        throw refusal(403, 'staff.roleNeeded', { roles: staffRoles.join(' or ') });
      }
      if (freshSignIn && !(staff.authenticatedAt && app.now().getTime() - staff.authenticatedAt.getTime() <= FRESH_SIGN_IN_MS)) {
        throw refusal(403, 'staff.freshSignIn', SIGN_IN_AGAIN);
      }
    });
  },
  { name: 'onramp-staff-auth', decorators: { fastify: ['sessions', 'db', 'now'] } },
);
