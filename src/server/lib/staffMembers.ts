/**
 * Adding a staff member: what an owner does on the admin page (routes/staff.ts), what
 * `npm run admin -- staff add` does from a terminal (src/cli/admin.ts), the first owner's bootstrap among others,
 * and what `npm start` does for the local ready-made owner (main.ts). One path for all three.
 *
 * The person's Firebase account is made if there is none, without a password: they choose one from
 * the invitation an owner's adding sends them (inviteStaff), or with "Forgot password?" on the admin
 * page; either only whoever reads the mailbox can follow. Such an account is bound to the staff row at once. An account that existed before is bound at its first
 * sign-in, and only if Firebase has verified its email: otherwise anyone could have made an account
 * with a staff member's address and signed in as them (routes/staff.ts).
 */
import { randomBytes } from 'node:crypto';
import { httpErrors } from '@fastify/sensible';
import type { FastifyInstance } from 'fastify';
import { INVITATION_FRAGMENT, ROLE_LABELS, type StaffRole } from '../../shared/review.js';
import { STAFF_ROLES } from '../../shared/generated/staff.js';
import type { Queryable } from '../db/db.js';
import { hashSecret } from './secretHash.js';
import { refusal } from '../serverMessages.js';
import type { AuditActor } from './auditRecord.js';
import { staffContract } from '../../shared/contracts/index.js';

/** The person's email and roles: the routes' schema (contracts/staff.schema.json staffBody) states them, and the admin command checks its arguments with the same words. */
const { email: emailRule, roles: rolesRule } = staffContract.$defs.staffBody.properties;

/** What an email must look like to be a staff member's, around spaces (Firebase checks it again). */
const EMAIL_PATTERN = new RegExp(emailRule.pattern, 'u');

export function staffEmailOf(value: unknown): string {
  if (typeof value !== 'string' || value.length > emailRule.maxLength || !EMAIL_PATTERN.test(value.trim())) throw httpErrors.badRequest(emailRule.errorMessage);
  return value.trim().toLowerCase();
}

export function staffRolesOf(value: unknown): StaffRole[] {
  if (!Array.isArray(value) || value.length === 0) throw httpErrors.badRequest(rolesRule.errorMessage);
  if (value.some((role) => !(STAFF_ROLES as readonly unknown[]).includes(role))) throw httpErrors.badRequest(rolesRule.errorMessage);
  // In one order whatever was sent, each once.
  return STAFF_ROLES.filter((role) => value.includes(role));
}

const isUniqueViolation = (error: unknown) => (error as { code?: unknown }).code === '23505';

/** Adds a person with roles, as `by` (recorded as who added them, and in the audit record). Answers their id. */
export async function addStaff(
  app: FastifyInstance,
  person: { email: string; roles: StaffRole[]; firebaseUid?: string },
  by: AuditActor & { actor: string },
): Promise<string> {
  const uid = person.firebaseUid ?? (await app.identity.ensureAccount(person.email).then((account) => (account.created ? account.uid : null)));
  try {
    return await app.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: string }>(
        'INSERT INTO staff (email, firebase_uid, roles, added_by, added_at) VALUES ($1, $2, $3, $4, $5) RETURNING id',
        [person.email, uid, person.roles, by.actor, app.now()],
      );
      await app.audit.recordAs(by, { action: 'staff.add', details: { email: person.email, roles: person.roles } }, tx);
      return rows[0]!.id;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw refusal(409, 'staff.alreadyStaff');
    throw error;
  }
}

/**
 * The local ready-made owner of a data folder (`npm start`, never production): their emulator
 * account, made again whenever the emulator forgot it, and on the folder's first start (their
 * address never yet among the staff) a staff member with every role. Answers whether they are a
 * staff member now (an owner may have removed them since).
 */
export async function ensureLocalOwner(app: FastifyInstance, owner: { email: string; password: string }): Promise<boolean> {
  const account = await app.identity.ensureAccount(owner.email, { password: owner.password, emailVerified: true });
  const { rows } = await app.db.query('SELECT 1 FROM staff WHERE email = $1', [owner.email]);
  if (rows.length === 0) {
    await addStaff(app, { email: owner.email, roles: [...STAFF_ROLES], firebaseUid: account.uid }, { staffId: null, actor: 'npm start', ip: null });
    return true;
  }
  // A restarted emulator gives the account a new id.
  const bound = await app.db.query('UPDATE staff SET firebase_uid = $2 WHERE email = $1 AND removed_at IS NULL RETURNING id', [owner.email, account.uid]);
  return bound.rows.length > 0;
}

/** How long an invitation's link works: long enough for a weekend, short enough that a forgotten email goes stale. */
export const INVITATION_LIFETIME_MS = 3 * 24 * 60 * 60 * 1000;

/**
 * Emails the person a link to choose their password, within `tx`: one that works once, for
 * INVITATION_LIFETIME_MS, whose token lives only in the email (sealed until sent) and, as its
 * SHA-256, here. A newer invitation revokes the ones before it. Answers when its link stops working.
 */
export async function inviteStaff(
  app: FastifyInstance,
  tx: Queryable,
  person: { id: string; email: string; roles: readonly StaffRole[] },
  by: AuditActor & { actor: string },
): Promise<Date> {
  const token = randomBytes(32).toString('base64url');
  const now = app.now();
  const expiresAt = new Date(now.getTime() + INVITATION_LIFETIME_MS);
  await tx.query('UPDATE staff_invitations SET revoked_at = $2 WHERE staff_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL', [person.id, now]);
  await tx.query('INSERT INTO staff_invitations (staff_id, token_hash, sent_by, sent_at, expires_at) VALUES ($1, $2, $3, $4, $5)', [
    person.id,
    hashSecret(token),
    by.actor,
    now,
    expiresAt,
  ]);
  await app.messaging.notifyStaff(tx, { staffId: person.id }, 'staffInvitation', {
    invitedBy: by.actor,
    roles: person.roles.map((role) => ROLE_LABELS[role]).join(', '),
    invitationUrl: `${app.messaging.adminUrl}#${INVITATION_FRAGMENT}=${token}`,
    expiresAt: expiresAt.toISOString().slice(0, 16).replace('T', ' '),
  });
  await app.audit.recordAs(by, { action: 'staff.invite', details: { email: person.email, expiresAt: expiresAt.toISOString() } }, tx);
  return expiresAt;
}

/**
 * Adds a person and emails them an invitation: an owner's "Add" on the admin page, and `staff add`
 * from a terminal for anyone but the first owner. Answers their id and when the link stops working.
 */
export async function addAndInviteStaff(
  app: FastifyInstance,
  person: { email: string; roles: StaffRole[] },
  by: AuditActor & { actor: string },
): Promise<{ id: string; expiresAt: Date }> {
  const id = await addStaff(app, person, by);
  const expiresAt = await app.db.transaction((tx) => inviteStaff(app, tx, { id, ...person }, by));
  return { id, expiresAt };
}
