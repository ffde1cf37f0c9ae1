/**
 * Documents that expire, for reviewers: GET /admin/expiring lists the drivers with a
 * document (flows/notices.json's expiries) that expires within `days` days (the first notice's
 * days unless asked otherwise, at most a year: the query's contract) or has expired, the soonest first, at most
 * MAX_DRIVERS; and the review queue marks the documents past their date (expiredByDriver). The
 * list names drivers: each reading is in the audit record.
 */
import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db/db.js';
import { loadNotices } from '../../node/projectFiles.js';
import type { ExpiringDocument, ExpiringList, ExpiringQuery, ReviewStatus } from '../../shared/review.js';
import { checkBodiesBySchema } from '../lib/bodySchemas.js';
import { addDays, daysUntil, expiredDocuments, renewalWindowDays, type Expiries } from '../lib/expiries.js';
import { ADMIN_PREFIX, type RouteTable } from '../lib/routeTable.js';

/** The documents that expire soon (lib/routeTable.ts). */
export const EXPIRY_ROUTES = {
  expiring: { method: 'GET', url: `${ADMIN_PREFIX}/expiring` },
} as const satisfies RouteTable;

/** The most drivers one list holds: the soonest dates first, which are the ones to act on. */
const MAX_DRIVERS = 500;

/** Today for the reviewers' lists: UTC's day. */
const todayOf = (now: Date) => now.toISOString().slice(0, 10);

/** The dates of the documents' steps, by driver and step. */
async function documentAnswers(db: Queryable, expiries: Expiries, driverIds: string[]): Promise<Map<string, Map<string, Record<string, unknown>>>> {
  const steps = [...new Set(expiries.documents.map((document) => document.step))];
  const { rows } = await db.query<{ driver_id: string; step: string; answers: Record<string, unknown> }>(
    'SELECT driver_id, step, answers FROM step_answers WHERE driver_id = ANY($1::uuid[]) AND step = ANY($2::text[])',
    [driverIds, steps],
  );
  const byDriver = new Map<string, Map<string, Record<string, unknown>>>();
  for (const row of rows) {
    const answersByStep = byDriver.get(row.driver_id) ?? new Map<string, Record<string, unknown>>();
    answersByStep.set(row.step, row.answers);
    byDriver.set(row.driver_id, answersByStep);
  }
  return byDriver;
}

/** The names of each listed driver's documents past their date (only drivers with one are keys). */
export async function expiredByDriver(db: Queryable, driverIds: string[], now: Date): Promise<Map<string, string[]>> {
  const { expiries } = loadNotices();
  const expired = new Map<string, string[]>();
  if (driverIds.length === 0 || expiries.documents.length === 0) return expired;
  for (const [driverId, answersByStep] of await documentAnswers(db, expiries, driverIds)) {
    const names = expiredDocuments(expiries, answersByStep, todayOf(now));
    if (names.length > 0) expired.set(driverId, names);
  }
  return expired;
}

export async function expiryRoutes(app: FastifyInstance) {
  const { expiries } = loadNotices();
  const reviewers = { config: { staffRoles: ['reviewer'] as const }, onRequest: app.requireStaff };
  checkBodiesBySchema(app);

  app.get<{ Querystring: ExpiringQuery }>(
    EXPIRY_ROUTES.expiring.url,
    { ...reviewers, schema: { querystring: { $ref: 'review#/$defs/expiringQuery' }, response: { 200: { $ref: 'review#/$defs/expiringList' } } } },
    async (request): Promise<ExpiringList> => {
      const days = request.query.days ?? renewalWindowDays(expiries);
      const today = todayOf(app.now());
      const { rows } = await app.db.query<{ id: string; email: string; name: string | null; status: ReviewStatus; document: number; expires_on: string }>(
        `SELECT d.id, d.email, d.review_name AS name, d.status, doc.document::int AS document, a.answers ->> doc.field AS expires_on
       FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS doc (step, field, document)
       JOIN step_answers a ON a.step = doc.step
       JOIN drivers d ON d.id = a.driver_id
       WHERE a.answers ->> doc.field ~ '^\\d{4}-\\d{2}-\\d{2}$' AND a.answers ->> doc.field <= $3
       ORDER BY a.answers ->> doc.field, d.id
       LIMIT $4`,
        [expiries.documents.map((document) => document.step), expiries.documents.map((document) => document.date), addDays(today, days), MAX_DRIVERS * 4],
      );
      const drivers = new Map<string, ExpiringList['drivers'][number]>();
      for (const row of rows) {
        const document = expiries.documents[row.document - 1]!;
        const daysLeft = daysUntil(row.expires_on, today);
        if (daysLeft === null) continue;
        const entry: ExpiringDocument = { step: document.step, field: document.date, name: document.name, expiresOn: row.expires_on, daysLeft };
        const driver = drivers.get(row.id);
        if (driver) driver.documents.push(entry);
        else if (drivers.size < MAX_DRIVERS) drivers.set(row.id, { id: row.id, email: row.email, name: row.name, status: row.status, documents: [entry] });
      }
      await app.audit.record(request, { action: 'drivers.expiring', details: { days, drivers: drivers.size } });
      return { days, drivers: [...drivers.values()] };
    },
  );
}
