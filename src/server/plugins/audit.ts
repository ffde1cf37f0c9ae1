/**
 * The audit record (docs/operations.md, "Staff: signing in, roles, the audit record"): every
 * decision, export, erasure, resume link, opening of a driver's record or document, staff change
 * and sign-in, failed ones too, as one row of audit_events: who, what, which driver, when, from
 * where. The table is append-only (migration 010: a trigger refuses UPDATE, DELETE and TRUNCATE,
 * and no role but its owner may do them), so this plugin only ever inserts. A row never holds a
 * driver's PII: the driver is named by id.
 */
import type { Audit } from '../lib/auditRecord.js';
import fp from 'fastify-plugin';

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
    const actorOf: Audit['actorOf'] = (request) => ({ staffId: request.staff?.id ?? null, actor: request.staff?.email ?? null, ip: request.ip ?? null });
    app.decorate('audit', {
      recordAs,
      actorOf,
      record: (request, entry, db) => recordAs(actorOf(request), entry, db),
    } satisfies Audit);
  },
  { name: 'onramp-audit', decorators: { fastify: ['db', 'now'] } },
);
