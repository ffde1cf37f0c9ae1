/**
 * Invitations: how a person an owner added chooses their first password (lib/staffMembers.ts
 * inviteStaff sends the email). Contracts: src/shared/contracts/staff.schema.json.
 *
 * - POST /admin/staff/:id/invitation: a new invitation (the ones before it stop working), for a
 *   person who has not set a password yet (owners).
 * - POST /admin/staff/:id/invitation/revoke: the waiting invitation stops working (owners).
 * - POST /admin/invitation `{ token }`: whom the link is for, and until when (the page says it).
 * - POST /admin/invitation/accept `{ token, password }`: the person's Firebase account gets the
 *   password and a verified email (only the mailbox's reader had the link), is bound to them, and
 *   the link is spent. They then sign in as anyone does.
 *
 * The token travels in the link's fragment and in these bodies, never in a URL a server logs. The
 * two open routes are limited per address like the sign-in, in a count of their own; a link that
 * is unknown, spent, revoked, replaced or expired gets one answer, saying none of which.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerConfig } from '../config.js';
import { isUuid, type Queryable } from '../db/db.js';
import { checkBodiesBySchema } from '../lib/bodySchemas.js';
import { ADMIN_PREFIX, type RouteTable } from '../lib/routeTable.js';
import { inviteStaff } from '../lib/staffMembers.js';
import { sharedLimitStore } from '../plugins/rateLimitStore.js';
import { hashSecret } from '../lib/secretHash.js';
import { refusal } from '../serverMessages.js';
import type { AcceptInvitationBody, Invitation, InvitationAccepted, InvitationBody, StaffRole } from '../../shared/review.js';

/** Invitations to choose a first password (lib/routeTable.ts). */
export const STAFF_INVITATION_ROUTES = {
  invite: { method: 'POST', url: `${ADMIN_PREFIX}/staff/:id/invitation` },
  revoke: { method: 'POST', url: `${ADMIN_PREFIX}/staff/:id/invitation/revoke` },
  read: { method: 'POST', url: `${ADMIN_PREFIX}/invitation` },
  accept: { method: 'POST', url: `${ADMIN_PREFIX}/invitation/accept` },
} as const satisfies RouteTable;

/** The working invitation a link's token names, with its person; null for any other token. */
async function invitationOf(app: FastifyInstance, db: Queryable, token: string, lock = false) {
  const { rows } = await db.query<{ id: string; staff_id: string; email: string; expires_at: Date }>(
    `SELECT i.id, i.staff_id, st.email, i.expires_at FROM staff_invitations i JOIN staff st ON st.id = i.staff_id
     WHERE i.token_hash = $1 AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > $2 AND st.removed_at IS NULL
     ${lock ? 'FOR UPDATE OF i' : ''}`,
    [hashSecret(token), app.now()],
  );
  return rows[0] ?? null;
}

type StaffParams = { Params: { id: string } };

export async function staffInvitationRoutes(
  app: FastifyInstance,
  options: { rateLimit: { max: number; windowMs: number }; counters: ServerConfig['sharedCounters'] },
) {
  const owners = { config: { staffRoles: ['owner'] as const }, onRequest: app.requireStaff };
  checkBodiesBySchema(app);

  /** The person of an owner's call: 404 for one unknown or removed. */
  async function personOf(request: FastifyRequest<StaffParams>, db: Queryable) {
    const id = request.params.id;
    const { rows } = isUuid(id)
      ? await db.query<{ id: string; email: string; roles: StaffRole[]; active: boolean }>(
          `SELECT st.id, st.email, st.roles,
             EXISTS (SELECT 1 FROM staff_invitations i WHERE i.staff_id = st.id AND i.accepted_at IS NOT NULL)
             OR EXISTS (SELECT 1 FROM audit_events a WHERE a.staff_id = st.id AND a.action = 'staff.sign-in') AS active
           FROM staff st WHERE st.id = $1 AND st.removed_at IS NULL FOR UPDATE OF st`,
          [id],
        )
      : { rows: [] };
    const person = rows[0];
    if (!person) throw refusal(404, 'staff.unknownStaff');
    return person;
  }

  app.post<StaffParams>(STAFF_INVITATION_ROUTES.invite.url, { ...owners, schema: { response: { 200: { $ref: 'api#/$defs/done' } } } }, async (request) => {
    await app.db.transaction(async (tx) => {
      const person = await personOf(request, tx);
      if (person.active) throw refusal(409, 'staff.alreadyActive');
      await inviteStaff(app, tx, person, { staffId: request.staff!.id, actor: request.staff!.email, ip: request.ip });
    });
    return { success: true };
  });

  app.post<StaffParams>(STAFF_INVITATION_ROUTES.revoke.url, { ...owners, schema: { response: { 200: { $ref: 'api#/$defs/done' } } } }, async (request) => {
    await app.db.transaction(async (tx) => {
      const person = await personOf(request, tx);
      const { rows } = await tx.query(
        'UPDATE staff_invitations SET revoked_at = $2 WHERE staff_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2 RETURNING id',
        [person.id, app.now()],
      );
      if (rows.length === 0) throw refusal(404, 'staff.noInvitation');
      await app.audit.record(request, { action: 'staff.invite-revoke', details: { email: person.email } }, tx);
    });
    return { success: true };
  });

  // The link's own routes: open, limited per address.
  await app.register(async (open) => {
    await open.register(rateLimit, {
      max: options.rateLimit.max,
      timeWindow: options.rateLimit.windowMs,
      ...(await sharedLimitStore(open, options.counters)),
      keyGenerator: (request) => `staff-invitation:${request.ip}`,
      errorResponseBuilder: () => refusal(429, 'auth.tooManyRequests'),
    });

    open.post<{ Body: InvitationBody }>(
      STAFF_INVITATION_ROUTES.read.url,
      { schema: { body: { $ref: 'staff#/$defs/invitationBody' }, response: { 200: { $ref: 'staff#/$defs/invitation' } } } },
      async (request): Promise<Invitation> => {
        const invitation = await invitationOf(app, app.db, request.body.token);
        if (!invitation) throw refusal(404, 'staff.invitationInvalid');
        return { email: invitation.email, expiresAt: new Date(invitation.expires_at).toISOString() };
      },
    );

    open.post<{ Body: AcceptInvitationBody }>(
      STAFF_INVITATION_ROUTES.accept.url,
      { schema: { body: { $ref: 'staff#/$defs/acceptInvitationBody' }, response: { 200: { $ref: 'staff#/$defs/invitationAccepted' } } } },
      async (request): Promise<InvitationAccepted> =>
        // Locked and spent in one transaction: the same link sent twice at once sets one password.
        app.db.transaction(async (tx) => {
          const invitation = await invitationOf(app, tx, request.body.token, true);
          if (!invitation) throw refusal(404, 'staff.invitationInvalid');
          const account = await app.identity.ensureAccount(invitation.email, { password: request.body.password, emailVerified: true });
          await tx.query('UPDATE staff SET firebase_uid = $2 WHERE id = $1', [invitation.staff_id, account.uid]);
          await tx.query('UPDATE staff_invitations SET accepted_at = $2 WHERE id = $1', [invitation.id, app.now()]);
          await app.audit.recordAs(
            { staffId: invitation.staff_id, actor: invitation.email, ip: request.ip },
            { action: 'staff.invite-accept', details: { email: invitation.email } },
            tx,
          );
          return { email: invitation.email };
        }),
    );
  });
}
