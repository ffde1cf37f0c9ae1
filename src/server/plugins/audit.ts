/**
 * The audit record (docs/operations.md, "Staff: signing in, roles, the audit record"): every
 * decision, export, erasure, resume link, opening of a driver's record or document, staff change
 * and sign-in, failed ones too, as one row of audit_events: who, what, which driver, when, from
 * where. The table is append-only (migration 010: a trigger refuses UPDATE, DELETE and TRUNCATE,
 * and no role but its owner may do them), so this plugin only ever inserts. A row never holds a
 * driver's PII: the driver is named by id.
 */
import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../db/db.js';
import type { AuditAction } from '../../shared/review.js';
import fp from 'fastify-plugin';

/** Who a row names when no staff member is signed in: the terminal's bootstrap, a failed sign-in. */
export interface AuditActor {
  staffId: string | null;
  /** The staff member's email, `terminal:<user>`, or the email a failed sign-in gave. */
  actor: string | null;
  ip: string | null;
}

export interface AuditEntry {
  action: AuditAction;
  driverId?: string | null;
  details?: Record<string, unknown>;
}

export interface Audit {
  /** A row for what the request's staff member did, from the request's address. */
  record(request: FastifyRequest, entry: AuditEntry, db?: Queryable): Promise<void>;
  /** A row for someone not signed in as staff. */
  recordAs(actor: AuditActor, entry: AuditEntry, db?: Queryable): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    audit: Audit;
  }
}

export const auditPlugin = fp(
  async (app) => {
    const recordAs: Audit['recordAs'] = async (actor, entry, db = app.db) => {
      await db.query('INSERT INTO audit_events (at, staff_id, actor, action, driver_id, ip, details) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
        app.now(),
        actor.staffId,
        actor.actor,
        entry.action,
        entry.driverId ?? null,
        actor.ip,
        JSON.stringify(entry.details ?? {}),
      ]);
    };
    app.decorate('audit', {
      recordAs,
      record: (request, entry, db) => recordAs({ staffId: request.staff?.id ?? null, actor: request.staff?.email ?? null, ip: request.ip ?? null }, entry, db),
    } satisfies Audit);
  },
  { name: 'onramp-audit', decorators: { fastify: ['db', 'now'] } },
);
