/** The shapes of a row of the audit record (plugins/audit.ts writes them; lib/ and the routes name who and what). */
import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../db/db.js';
import type { AuditAction } from '../../shared/review.js';

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
  /** Who the request's staff member is, as a row names them. */
  actorOf(request: FastifyRequest): AuditActor;
  /** A row for someone not signed in as staff. */
  recordAs(actor: AuditActor, entry: AuditEntry, db?: Queryable): Promise<void>;
}
