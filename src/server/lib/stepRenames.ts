/**
 * The flow's "renamed" steps, carried into the stored data: what the server stored under a step's
 * old name (answers, their files, the fixes asked for, the decisions' fixes, reminders and document
 * notices sent, progress) is moved to its new name, so the driver's answers, the review and the
 * insights keep it. The lint refuses a step that stored data may name (flows/recorded-steps.json)
 * leaving the flow unless it is renamed there, so nothing stored is orphaned by an edit of the flow.
 *
 * Each rename is made once, in one transaction, by the first server to start with it: its row in
 * step_renames (migration 015) claims it, so servers starting together make it once, and a server
 * started again does nothing.
 */
import type { Db } from '../db/db.js';
import type { DataCipher } from './dataCipher.js';
import { resealedUnder, type StoredAnswers } from './answers.js';

interface SealedRow {
  driver_id: string;
  answers: StoredAnswers;
  reviewed: { answers: StoredAnswers; files: Record<string, string> } | null;
}

/** Makes the renames not made yet; answers the ones it made. */
export async function applyStepRenames(db: Db, cipher: DataCipher, renamed: Record<string, string>, now: Date): Promise<string[]> {
  const made: string[] = [];
  for (const [from, to] of Object.entries(renamed)) {
    const claimed = await db.transaction(async (tx) => {
      const { rows } = await tx.query(
        'INSERT INTO step_renames (from_step, to_step, renamed_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING from_step',
        [from, to, now],
      );
      if (rows.length === 0) return false;
      // Progress first: the answers' triggers then find each driver's times already under the new name.
      await tx.query('UPDATE progress_steps SET step = $2 WHERE step = $1 AND NOT EXISTS (SELECT FROM progress_steps WHERE step = $2)', [from, to]);
      await tx.query('UPDATE step_answers SET step = $2 WHERE step = $1', [from, to]);
      // A sensitive answer is sealed bound to its step: sealed again under the new name (what the last review saw too, so it compares equal).
      const { rows: sealed } = await tx.query<SealedRow>(
        `SELECT driver_id, answers, reviewed FROM step_answers WHERE step = $1 AND (answers::text LIKE '%"$sealed"%' OR reviewed::text LIKE '%"$sealed"%')`,
        [to],
      );
      if (sealed.length > 0) {
        const reseal = (row: SealedRow, stored: StoredAnswers) => resealedUnder(cipher, row.driver_id, from, to, stored);
        await tx.query(
          `UPDATE step_answers a SET answers = r.answers, reviewed = r.reviewed
           FROM unnest($2::uuid[], $3::jsonb[], $4::jsonb[]) AS r (driver_id, answers, reviewed)
           WHERE a.driver_id = r.driver_id AND a.step = $1`,
          [
            to,
            sealed.map((row) => row.driver_id),
            sealed.map((row) => JSON.stringify(reseal(row, row.answers))),
            sealed.map((row) => (row.reviewed ? JSON.stringify({ ...row.reviewed, answers: reseal(row, row.reviewed.answers) }) : null)),
          ],
        );
      }
      for (const table of ['review_fixes', 'uploads', 'reminders_sent']) await tx.query(`UPDATE ${table} SET step = $2 WHERE step = $1`, [from, to]);
      await tx.query(
        `UPDATE driver_reviews SET fixes = (
           SELECT jsonb_agg(CASE WHEN fix ->> 'step' = $1 THEN jsonb_set(fix, '{step}', to_jsonb($2::text)) ELSE fix END ORDER BY at)
           FROM jsonb_array_elements(fixes) WITH ORDINALITY AS fix_at (fix, at))
         WHERE fixes @> jsonb_build_array(jsonb_build_object('step', $1::text))`,
        [from, to],
      );
      // A document is named by its step and date field ("addVehicle.proofInsuranceExpiryDate", lib/expiries.ts).
      await tx.query("UPDATE document_notices_sent SET document = $2 || substr(document, length($1) + 1) WHERE starts_with(document, $1 || '.')", [from, to]);
      return true;
    });
    if (claimed) made.push(`${from} → ${to}`);
  }
  return made;
}
