/**
 * The funnel's order, as the flow has it, written into the database (migration 027), where each
 * driver's progress row keeps the last funnel step they passed and since when, for the Drivers list's
 * filters. When the flow changes that order, every driver's stop and the funnel's running totals are
 * written again, in one transaction holding progress_steps, so no progress is recorded by the old
 * order meanwhile.
 */
import type { Db } from '../db/db.js';

/** Writes `recordedAs` (the funnel's steps as progress_steps names them, in order); answers whether the order changed. */
export async function writeFunnelOrder(db: Db, recordedAs: string[]): Promise<boolean> {
  return db.transaction(async (tx) => {
    // Progress is recorded under ROW EXCLUSIVE (record_driver_progress inserts steps): it waits for this.
    await tx.query('LOCK TABLE progress_steps IN SHARE ROW EXCLUSIVE MODE');
    const { rows } = await tx.query<{ step: string }>('SELECT step FROM progress_steps WHERE funnel_index IS NOT NULL ORDER BY funnel_index');
    if (rows.length === recordedAs.length && rows.every((row, index) => row.step === recordedAs[index])) return false;
    await tx.query('INSERT INTO progress_steps (step) SELECT unnest($1::text[]) ON CONFLICT (step) DO NOTHING', [recordedAs]);
    await tx.query(
      'UPDATE progress_steps SET funnel_index = array_position($1::text[], step) - 1 WHERE funnel_index IS DISTINCT FROM array_position($1::text[], step) - 1',
      [recordedAs],
    );
    await tx.query(`UPDATE driver_progress p SET stopped_after = stop.stopped_after, stopped_since = stop.stopped_since
      FROM driver_progress q LEFT JOIN LATERAL funnel_stop(q.signed_up_at, q.passed) stop ON true
      WHERE q.driver_id = p.driver_id AND (p.stopped_after, p.stopped_since) IS DISTINCT FROM (stop.stopped_after, stop.stopped_since)`);
    // The running totals count each step's time since the step before it (migration 032).
    await tx.query('SELECT rebuild_funnel_totals()');
    return true;
  });
}
