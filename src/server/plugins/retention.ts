/**
 * Retention: flows/retention.json says how many days each kind of record is kept, and once a day
 * one server instance deletes what is past its time. Every instance looks each hour; the first to
 * write the day's row of retention_passes (its primary key) runs that day's pass, the others find
 * it taken. Each kind is found through an index on its time (migration 023), so a pass with
 * nothing to do reads next to nothing.
 *
 * - A driver is deleted by the erasure a privacy officer makes (routes/adminPrivacy.ts
 *   eraseDriver): their Firebase account, rows, documents and the driver.erased webhook alike. One
 *   that can't be erased now (Firebase away) is left for the next pass.
 * - A stored document goes after its row, written down in file_removals in the transaction that
 *   deletes the row (lib/fileRemovals.ts): a store that fails half-way leaves it written down, and
 *   the next pass removes it first.
 * - What the pass deleted, by kind, is one row of the audit record (`retention.pass`, by
 *   "retention") and the metrics (plugins/metrics.ts).
 */
import fp from 'fastify-plugin';
import { loadRetention } from '../../node/projectFiles.js';
import type { Retention as RetentionFile } from '../../shared/generated/retention.js';
import type { Queryable } from '../db/db.js';
import { everyInterval } from '../lib/backgroundPass.js';
import { removeQueuedFiles } from '../lib/fileRemovals.js';
import { eraseDriver, purgeDeletedRows, type PrivacyActor } from '../routes/adminPrivacy.js';
import { deleteUntakenUploads } from './uploads.js';

/** How often each server looks whether today's pass has run. */
const LOOK_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** How the pass names itself in the audit record and in privacy_requests. */
const RETENTION_ACTOR: PrivacyActor = { staffId: null, actor: 'retention', ip: null };

export type RetentionKind = keyof RetentionFile['keepForDays'];

/** What a pass did: the records deleted by kind, and what it left for the next one. */
export interface RetentionPass {
  deleted: Record<RetentionKind, number>;
  /** Drivers past their time that could not be erased now. */
  driversLeft: number;
  /** Stored documents whose rows are gone that could not be removed now. */
  filesLeft: number;
}

export interface Retention {
  /** Runs today's pass (by the server's clock) unless an instance ran it already; answers what it did, or null. The hourly look calls it, and tests. */
  runDue(): Promise<RetentionPass | null>;
}

declare module 'fastify' {
  interface FastifyInstance {
    retention: Retention;
  }
}

/** `WITH gone AS (<delete … RETURNING 1>)`, counted. */
const counted = (deletion: string) => `WITH gone AS (${deletion} RETURNING 1) SELECT count(*)::int AS count FROM gone`;

/** The kinds one statement deletes, each given its cutoff ($1): what is older goes. */
export const DELETIONS = {
  retainedPaymentRecords: counted('DELETE FROM retained_payment_records WHERE kept_at < $1'),
  sentNotices: counted("DELETE FROM outgoing_notices WHERE status = 'sent' AND sent_at < $1"),
  failedNotices: counted("DELETE FROM outgoing_notices WHERE status = 'failed' AND created_at < $1"),
  driverSessions: counted('DELETE FROM sessions WHERE expires_at < $1'),
  staffSessions: counted('DELETE FROM staff_sessions WHERE expires_at < $1'),
  expiredCodes: counted('DELETE FROM otp_codes WHERE expires_at < $1'),
  launchLinks: counted('DELETE FROM launch_links WHERE expires_at < $1'),
  // Its deliveries go with it (ON DELETE CASCADE); one still being retried keeps it.
  webhookEvents: counted(
    "DELETE FROM webhook_events e WHERE e.created_at < $1 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')",
  ),
  paymentEvents: counted('DELETE FROM payment_events WHERE received_at < $1'),
} as const satisfies Partial<Record<RetentionKind, string>>;

/** The drivers each driver kind erases: past their time ($1) since they last changed anything. */
export const DRIVERS = {
  rejectedDrivers: "SELECT id, firebase_uid FROM drivers WHERE status = 'rejected' AND updated_at < $1",
  unfinishedDrivers: 'SELECT id, firebase_uid FROM drivers WHERE submitted_at IS NULL AND updated_at < $1',
} as const satisfies Partial<Record<RetentionKind, string>>;

/**
 * An erasure's records (privacy_requests) and the audit rows naming the erased driver, once the
 * erasure is older than `cutoff`; counted. Through the database's own function (migration 023): the
 * server's role may not delete from the audit record, and the function deletes these rows alone.
 */
async function deleteErasedDriverRecords(tx: Queryable, cutoff: Date): Promise<number> {
  const { rows } = await tx.query<{ count: number }>('SELECT delete_erased_driver_records($1) AS count', [cutoff]);
  return rows[0]!.count;
}

export const retentionPlugin = fp<{ embeddedDatabase: boolean }>(
  async (app, options) => {
    const { keepForDays } = loadRetention();
    const cutoffOf = (kind: RetentionKind, now: Date) => new Date(now.getTime() - keepForDays[kind] * DAY_MS);

    async function eraseExpired(kind: keyof typeof DRIVERS, now: Date): Promise<{ erased: number; left: number }> {
      const { rows } = await app.db.query<{ id: string; firebase_uid: string }>(DRIVERS[kind], [cutoffOf(kind, now)]);
      let erased = 0;
      for (const driver of rows) {
        try {
          if (await eraseDriver(app, { id: driver.id, firebaseUid: driver.firebase_uid }, RETENTION_ACTOR, app.log)) erased += 1;
        } catch (error) {
          app.log.warn(
            { driverId: driver.id, kind, error: String(error) },
            'A driver past their time could not be erased now; the next retention pass tries again',
          );
        }
      }
      return { erased, left: rows.length - erased };
    }

    /** The pass, and the time up to which it looked at files sent ahead. */
    async function pass(now: Date): Promise<{ done: RetentionPass; untakenBefore: Date }> {
      // What an earlier pass could not remove, first.
      await removeQueuedFiles(app.db, app.uploads);
      const rejected = await eraseExpired('rejectedDrivers', now);
      const unfinished = await eraseExpired('unfinishedDrivers', now);
      const erasedDriverRecords = await app.db.transaction((tx) => deleteErasedDriverRecords(tx, cutoffOf('erasedDriverRecords', now)));
      const single = {} as Record<keyof typeof DELETIONS, number>;
      for (const [kind, sql] of Object.entries(DELETIONS) as [keyof typeof DELETIONS, string][]) {
        single[kind] = (await app.db.query<{ count: number }>(sql, [cutoffOf(kind, now)])).rows[0]!.count;
      }
      // Files sent ahead are looked at from where the last finished pass stopped.
      const previous = await app.db.query<{ checked: { untakenUploads?: string } }>(
        'SELECT checked FROM retention_passes WHERE finished_at IS NOT NULL ORDER BY day DESC LIMIT 1',
      );
      const from = previous.rows[0]?.checked.untakenUploads;
      const untakenBefore = cutoffOf('untakenUploads', now);
      const untaken = await deleteUntakenUploads(app.db, untakenBefore, from ? new Date(from) : null, now);
      const files = await removeQueuedFiles(app.db, app.uploads);
      if (rejected.erased + unfinished.erased > 0) await purgeDeletedRows(app, app.log, options.embeddedDatabase);
      const deleted = {
        rejectedDrivers: rejected.erased,
        unfinishedDrivers: unfinished.erased,
        erasedDriverRecords,
        ...single,
        untakenUploads: untaken.length,
      };
      return { done: { deleted, driversLeft: rejected.left + unfinished.left, filesLeft: files.left }, untakenBefore };
    }

    async function runDue(): Promise<RetentionPass | null> {
      const now = app.now();
      const day = now.toISOString().slice(0, 10);
      const { rows } = await app.db.query('INSERT INTO retention_passes (day, started_at) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING day', [day, now]);
      // Another instance has today's.
      if (rows.length === 0) return null;
      const started = performance.now();
      const { done, untakenBefore } = await pass(now);
      await app.audit.recordAs(RETENTION_ACTOR, { action: 'retention.pass', details: { ...done } });
      await app.db.query('UPDATE retention_passes SET finished_at = $2, checked = $3 WHERE day = $1', [
        day,
        app.now(),
        // Where the next pass starts looking at files sent ahead.
        JSON.stringify({ untakenUploads: untakenBefore.toISOString() }),
      ]);
      for (const [kind, count] of Object.entries(done.deleted)) app.metrics.retentionDeleted.inc({ kind }, count);
      app.metrics.retentionPassSeconds.set((performance.now() - started) / 1000);
      app.log.info({ ...done }, 'Retention pass done');
      return done;
    }

    everyInterval(app, { name: 'retention', intervalMs: LOOK_INTERVAL_MS, run: runDue });
    app.decorate('retention', { runDue } satisfies Retention);
  },
  { name: 'onramp-retention', decorators: { fastify: ['audit', 'db', 'identity', 'metrics', 'now', 'uploads', 'webhooks'] } },
);
