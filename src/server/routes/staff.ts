/**
 * The operator's own side of the admin API: staff sign in and out, the people and their
 * roles (owners), per-person keys for the command line, and the audit record (owners). Contracts:
 * src/shared/contracts/staff.schema.json.
 *
 * - POST /admin/session `{ idToken }`: a Firebase ID token of a staff member's account exchanged for
 *   a staff session (plugins/staffAuth.ts). Rate limited per address like the drivers' sign-in; a
 *   refusal is written to the audit record with the address it came from.
 * - POST /admin/session/failed `{ email }`: the page's word that Firebase refused an email and
 *   password, in the same count. On the audit record (as the staff member it names, if any: a
 *   typed email that is nobody's is not kept); the FAILURES_TO_TELL-th in an hour as one person
 *   tells the owners by email, once. Firebase throttles guessing on its side as well.
 * - GET /admin/session: who is signed in, with their roles (the page shows what they allow).
 * - POST /admin/session/end: sign-out.
 * - GET/POST /admin/staff, POST /admin/staff/:id/roles, POST /admin/staff/:id/remove (owners). The
 *   list says who is invited and who active, each one's last sign-in and failed ones of the last
 *   24 hours; adding a person invites them (routes/staffInvitations.ts).
 * - POST /admin/keys `{ label }`: a key for the signed-in person, answered once; POST
 *   /admin/keys/:id/revoke (the key's person, or an owner).
 * - GET /admin/audit (a page, filtered) and GET /admin/audit/download?format=csv|jsonl (owners).
 *
 * Over 300 lines on purpose: these are the routes of one encapsulated plugin that share its
 * sign-in rate limit and its role checks (anyStaff, owners); the audit filter's parsing is most of
 * the rest.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fileAnswer } from '../lib/routeSchemas.js';
import type { ServerConfig } from '../config.js';
import { isUuid } from '../db/db.js';
import { checkBodiesBySchema } from '../lib/bodySchemas.js';
import { addAndInviteStaff, staffEmailOf, staffRolesOf } from '../lib/staffMembers.js';
import {
  type AuditAction,
  type AuditDownloadQuery,
  type AuditEvent,
  type AuditPage,
  type AuditQuery,
  type KeyBody,
  type SignInFailedBody,
  type StaffBody,
  type StaffList,
  type StaffMember,
  type StaffRole,
  type StaffRolesBody,
  type StaffSession,
  type StaffSignInBody,
} from '../../shared/review.js';
import { sharedLimitStore } from '../plugins/rateLimitStore.js';
import { bearerToken } from '../plugins/sessions.js';
import { personRolesOf } from '../plugins/staffAuth.js';
import { refusal } from '../serverMessages.js';
import { ADMIN_PREFIX, type RouteTable } from '../lib/routeTable.js';

/** Staff sessions, people and roles, keys and the audit record (lib/routeTable.ts). */
export const STAFF_ROUTES = {
  signIn: { method: 'POST', url: `${ADMIN_PREFIX}/session` },
  signInFailed: { method: 'POST', url: `${ADMIN_PREFIX}/session/failed` },
  session: { method: 'GET', url: `${ADMIN_PREFIX}/session` },
  signOut: { method: 'POST', url: `${ADMIN_PREFIX}/session/end` },
  staff: { method: 'GET', url: `${ADMIN_PREFIX}/staff` },
  addStaff: { method: 'POST', url: `${ADMIN_PREFIX}/staff` },
  roles: { method: 'POST', url: `${ADMIN_PREFIX}/staff/:id/roles` },
  remove: { method: 'POST', url: `${ADMIN_PREFIX}/staff/:id/remove` },
  addKey: { method: 'POST', url: `${ADMIN_PREFIX}/keys` },
  revokeKey: { method: 'POST', url: `${ADMIN_PREFIX}/keys/:id/revoke` },
  audit: { method: 'GET', url: `${ADMIN_PREFIX}/audit` },
  auditDownload: { method: 'GET', url: `${ADMIN_PREFIX}/audit/download` },
} as const satisfies RouteTable;

const AUDIT_PAGE_SIZE = 50;

/** Failed sign-ins as one person within FAILURES_WINDOW_MS at which the owners are told (once, as the count reaches it). */
export const FAILURES_TO_TELL = 5;
const FAILURES_WINDOW_MS = 60 * 60 * 1000;
/** How far back the staff list counts a person's failed sign-ins. */
const FAILURES_SHOWN_MS = 24 * 60 * 60 * 1000;

interface AuditFilter {
  action: string | null;
  actor: string | null;
  driver: string | null;
  from: Date | null;
  to: Date | null;
}

/** The audit record's filter as a query string says it (its contract checked it): an empty value filters nothing. */
function auditFilterOf(query: AuditQuery | AuditDownloadQuery): AuditFilter {
  return {
    action: query.action || null,
    actor: query.actor?.trim().toLowerCase() || null,
    driver: query.driver || null,
    from: query.from ? new Date(query.from) : null,
    to: query.to ? new Date(query.to) : null,
  };
}

interface AuditRow {
  /** The driver's review name and email (GET /admin/audit joins them; null once the driver is erased). */
  driver_name?: string | null;
  driver_email?: string | null;
  id: string;
  at: Date;
  actor: string | null;
  action: AuditAction;
  driver_id: string | null;
  ip: string | null;
  details: Record<string, unknown>;
}

/** $1-$5 the filter; the actor matches any part of the name, as typed (its wildcards taken literally). */
const AUDIT_WHERE = `($1::text IS NULL OR action = $1) AND ($2::text IS NULL OR lower(actor) LIKE $2)
  AND ($3::uuid IS NULL OR driver_id = $3) AND ($4::timestamptz IS NULL OR at >= $4) AND ($5::timestamptz IS NULL OR at < $5)`;
const filterParams = (filter: AuditFilter) => [
  filter.action,
  filter.actor ? `%${filter.actor.replace(/[\\%_]/g, (character) => `\\${character}`)}%` : null,
  filter.driver,
  filter.from,
  filter.to,
];

const auditEvent = (row: AuditRow): AuditEvent => ({
  id: String(row.id),
  at: new Date(row.at).toISOString(),
  actor: row.actor,
  action: row.action,
  driverId: row.driver_id,
  ip: row.ip,
  details: row.details,
});

/** The roles that read drivers' data anyway: they see a driver named in full in the audit record. */
const READS_DRIVERS: readonly StaffRole[] = ['reviewer', 'privacy-officer'];

/**
 * Who a row of the audit record is about, as the reader's roles allow: the name the review queue
 * shows (the email before the driver gave one) for those who read drivers' data; for others, the
 * first name and the last's initial ("Ada L."), or the email's first letter and its domain.
 */
function driverNameOf(row: AuditRow, roles: readonly StaffRole[]): string | null {
  if (!row.driver_email) return null;
  if (roles.some((role) => READS_DRIVERS.includes(role))) return row.driver_name ?? row.driver_email;
  const words = row.driver_name?.trim().split(/\s+/) ?? [];
  if (words.length > 1) return `${words[0]} ${words.at(-1)!.charAt(0)}.`;
  if (words.length === 1) return words[0]!;
  const [local = '', domain = ''] = row.driver_email.split('@');
  return `${local.charAt(0)}•••@${domain}`;
}

/** A CSV field: quoted when it must be, and never read as a formula by a spreadsheet (OWASP CSV injection). */
export function csvField(value: string | null): string {
  if (value === null) return '';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

const AUDIT_CSV_HEADER = 'id,at,actor,action,driverId,ip,details';

export async function staffRoutes(app: FastifyInstance, options: { rateLimit: { max: number; windowMs: number }; counters: ServerConfig['sharedCounters'] }) {
  const owners = { config: { staffRoles: ['owner'] as const }, onRequest: app.requireStaff };
  const anyStaff = { onRequest: app.requireStaff };
  checkBodiesBySchema(app);

  // The sign-in, limited per address like the drivers' (routes/auth.ts), in its own count.
  await app.register(async (signIn) => {
    await signIn.register(rateLimit, {
      max: options.rateLimit.max,
      timeWindow: options.rateLimit.windowMs,
      ...(await sharedLimitStore(signIn, options.counters)),
      keyGenerator: (request) => `staff-sign-in:${request.ip}`,
      errorResponseBuilder: () => refusal(429, 'auth.tooManyRequests'),
    });

    signIn.post<{ Body: StaffSignInBody }>(
      STAFF_ROUTES.signIn.url,
      { schema: { body: { $ref: 'staff#/$defs/staffSignInBody' }, response: { 200: { $ref: 'staff#/$defs/staffSession' } } } },
      async (request): Promise<StaffSession> => {
        const { idToken } = request.body;
        const failed = (actor: string | null, reason: string) =>
          app.audit.recordAs({ staffId: null, actor, ip: request.ip }, { action: 'staff.sign-in-failed', details: { reason } });
        let user: Awaited<ReturnType<typeof app.identity.verify>>;
        try {
          user = await app.identity.verify(idToken);
        } catch (error) {
          if ((error as { statusCode?: number }).statusCode === 401) await failed(null, 'token not verified');
          throw error;
        }
        const { rows } = await app.db.query<{ id: string; email: string; firebase_uid: string | null; roles: StaffSession['roles'] }>(
          'SELECT id, email, firebase_uid, roles FROM staff WHERE email = $1 AND removed_at IS NULL',
          [user.email ?? ''],
        );
        const staff = rows[0];
        if (!staff || (staff.firebase_uid !== null && staff.firebase_uid !== user.uid)) {
          await failed(user.email, staff ? 'another account with this email' : 'not a staff member');
          throw refusal(403, 'staff.notStaff');
        }
        if (staff.firebase_uid === null) {
          if (!user.emailVerified) {
            await failed(user.email, 'email not verified');
            throw refusal(403, 'staff.signInEmailNotVerified');
          }
          await app.db.query('UPDATE staff SET firebase_uid = $2 WHERE id = $1 AND firebase_uid IS NULL', [staff.id, user.uid]);
        }
        // A new password (or a revocation) moves Firebase's "valid since": sessions made before it end.
        const validSince = await app.identity.tokensValidSince(user.uid);
        if (validSince) await app.staffAuth.endOlderThan(staff.id, validSince);
        const session = await app.staffAuth.startSession(staff.id, user.authTime);
        await app.audit.recordAs({ staffId: staff.id, actor: staff.email, ip: request.ip }, { action: 'staff.sign-in' });
        return { token: session.token, email: staff.email, roles: staff.roles, via: 'session', expiresAt: session.expiresAt.toISOString() };
      },
    );

    signIn.post<{ Body: SignInFailedBody }>(
      STAFF_ROUTES.signInFailed.url,
      { schema: { body: { $ref: 'staff#/$defs/signInFailedBody' }, response: { 200: { $ref: 'api#/$defs/done' } } } },
      async (request) => {
        const { rows } = await app.db.query<{ id: string; email: string }>('SELECT id, email FROM staff WHERE email = $1 AND removed_at IS NULL', [
          request.body.email.trim().toLowerCase(),
        ]);
        const staff = rows[0];
        await app.db.transaction(async (tx) => {
          await app.audit.recordAs(
            { staffId: staff?.id ?? null, actor: staff?.email ?? null, ip: request.ip },
            { action: 'staff.sign-in-failed', details: { reason: 'wrong email or password' } },
            tx,
          );
          if (!staff) return;
          const { rows: counted } = await tx.query<{ failures: number }>(
            "SELECT count(*)::int AS failures FROM audit_events WHERE staff_id = $1 AND action = 'staff.sign-in-failed' AND at > $2",
            [staff.id, new Date(app.now().getTime() - FAILURES_WINDOW_MS)],
          );
          if (counted[0]!.failures === FAILURES_TO_TELL) {
            await app.messaging.notifyStaff(tx, 'owner', 'staffSignInFailures', { email: staff.email, failures: String(FAILURES_TO_TELL) });
          }
        });
        return { success: true };
      },
    );
  });

  app.get(
    STAFF_ROUTES.session.url,
    { ...anyStaff, schema: { response: { 200: { $ref: 'staff#/$defs/staffSession' } } } },
    async (request): Promise<StaffSession> => {
      const staff = request.staff!;
      return { email: staff.email, roles: personRolesOf(staff), via: staff.via, expiresAt: staff.expiresAt?.toISOString() ?? null };
    },
  );

  app.post(STAFF_ROUTES.signOut.url, { ...anyStaff, schema: { response: { 200: { $ref: 'api#/$defs/done' } } } }, async (request) => {
    await app.staffAuth.endSession(bearerToken(request)!);
    await app.audit.record(request, { action: 'staff.sign-out' });
    return { success: true };
  });

  // ---- people and roles (owners) ----

  /** Who is on the staff: a person is active once they set a password from an invitation or signed in, invited until then. */
  async function staffList(): Promise<StaffMember[]> {
    const { rows } = await app.db.query<{
      id: string;
      email: string;
      roles: StaffMember['roles'];
      added_by: string;
      added_at: Date;
      keys: { id: string; label: string; created_at: string; last_used_at: string | null }[] | null;
      last_sign_in_at: Date | null;
      failed_sign_ins: number;
      accepted: boolean;
      invitation: { sent_at: string; expires_at: string; revoked: boolean } | null;
    }>(
      `SELECT st.id, st.email, st.roles, st.added_by, st.added_at,
         (SELECT json_agg(json_build_object('id', k.id, 'label', k.label, 'created_at', k.created_at, 'last_used_at', k.last_used_at) ORDER BY k.created_at)
          FROM staff_keys k WHERE k.staff_id = st.id AND k.revoked_at IS NULL) AS keys,
         (SELECT max(a.at) FROM audit_events a WHERE a.staff_id = st.id AND a.action = 'staff.sign-in') AS last_sign_in_at,
         (SELECT count(*)::int FROM audit_events a WHERE a.staff_id = st.id AND a.action = 'staff.sign-in-failed' AND a.at > $1) AS failed_sign_ins,
         EXISTS (SELECT 1 FROM staff_invitations i WHERE i.staff_id = st.id AND i.accepted_at IS NOT NULL) AS accepted,
         (SELECT json_build_object('sent_at', i.sent_at, 'expires_at', i.expires_at, 'revoked', i.revoked_at IS NOT NULL)
          FROM staff_invitations i WHERE i.staff_id = st.id ORDER BY i.sent_at DESC LIMIT 1) AS invitation
       FROM staff st WHERE st.removed_at IS NULL ORDER BY st.email`,
      [new Date(app.now().getTime() - FAILURES_SHOWN_MS)],
    );
    return rows.map((row) => {
      const active = row.accepted || row.last_sign_in_at !== null;
      return {
        id: row.id,
        email: row.email,
        roles: row.roles,
        addedBy: row.added_by,
        addedAt: new Date(row.added_at).toISOString(),
        status: active ? 'active' : 'invited',
        lastSignInAt: row.last_sign_in_at && new Date(row.last_sign_in_at).toISOString(),
        failedSignIns: row.failed_sign_ins,
        invitation:
          !active && row.invitation
            ? {
                sentAt: new Date(row.invitation.sent_at).toISOString(),
                expiresAt: new Date(row.invitation.expires_at).toISOString(),
                revoked: row.invitation.revoked,
              }
            : null,
        keys: (row.keys ?? []).map((key) => ({
          id: key.id,
          label: key.label,
          createdAt: new Date(key.created_at).toISOString(),
          lastUsedAt: key.last_used_at ? new Date(key.last_used_at).toISOString() : null,
        })),
      };
    });
  }

  const asStaff = (request: FastifyRequest) => ({ staffId: request.staff!.id, actor: request.staff!.email, ip: request.ip });

  app.get(
    STAFF_ROUTES.staff.url,
    { ...owners, schema: { response: { 200: { $ref: 'staff#/$defs/staffList' } } } },
    async (): Promise<StaffList> => ({ staff: await staffList() }),
  );

  app.post<{ Body: StaffBody }>(
    STAFF_ROUTES.addStaff.url,
    { ...owners, schema: { body: { $ref: 'staff#/$defs/staffBody' }, response: { 201: { $ref: 'api#/$defs/staffAdded' } } } },
    async (request, reply) => {
      // Checked by the route's schema; stored as one form (the email lower-cased, each role once).
      const email = staffEmailOf(request.body.email);
      const roles = staffRolesOf(request.body.roles);
      const { id } = await addAndInviteStaff(app, { email, roles }, asStaff(request));
      return reply.code(201).send({ success: true, id });
    },
  );

  type StaffParams = { Params: { id: string } };

  /**
   * Changes a person's roles or removes them, in one transaction that keeps at least one owner
   * (the staff rows are locked, so two owners removing each other can't both succeed).
   */
  async function changeStaff(request: FastifyRequest<StaffParams>, roles: StaffMember['roles'] | null) {
    const id = request.params.id;
    if (!isUuid(id)) throw refusal(404, 'staff.unknownStaff');
    await app.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: string; email: string; roles: StaffMember['roles'] }>(
        'SELECT id, email, roles FROM staff WHERE removed_at IS NULL ORDER BY id FOR UPDATE',
      );
      const person = rows.find((row) => row.id === id);
      if (!person) throw refusal(404, 'staff.unknownStaff');
      const ownersAfter = rows.filter((row) => (row.id === id ? roles?.includes('owner') : row.roles.includes('owner'))).length;
      if (ownersAfter === 0) throw refusal(409, 'staff.lastOwner');
      if (roles) {
        await tx.query('UPDATE staff SET roles = $2 WHERE id = $1', [id, roles]);
        await app.audit.record(request, { action: 'staff.roles', details: { email: person.email, from: person.roles, to: roles } }, tx);
      } else {
        // Their sessions, keys and claims end with them; the row stays, as the audit record names it.
        await tx.query('UPDATE staff SET removed_at = $2 WHERE id = $1', [id, app.now()]);
        await tx.query('DELETE FROM staff_sessions WHERE staff_id = $1', [id]);
        await tx.query('UPDATE staff_keys SET revoked_at = $2, revoked_by = $3 WHERE staff_id = $1 AND revoked_at IS NULL', [
          id,
          app.now(),
          request.staff!.email,
        ]);
        await tx.query('DELETE FROM queue_claims WHERE staff_id = $1', [id]);
        await app.audit.record(request, { action: 'staff.remove', details: { email: person.email } }, tx);
      }
    });
    return { success: true };
  }

  app.post<StaffParams & { Body: StaffRolesBody }>(
    STAFF_ROUTES.roles.url,
    { ...owners, schema: { body: { $ref: 'staff#/$defs/staffRolesBody' }, response: { 200: { $ref: 'api#/$defs/done' } } } },
    async (request) => {
      const roles = staffRolesOf(request.body.roles);
      return changeStaff(request, roles);
    },
  );

  app.post<StaffParams>(STAFF_ROUTES.remove.url, { ...owners, schema: { response: { 200: { $ref: 'api#/$defs/done' } } } }, async (request) =>
    changeStaff(request, null),
  );

  // ---- keys for the command line and scripts ----

  app.post<{ Body: KeyBody }>(
    STAFF_ROUTES.addKey.url,
    { ...anyStaff, schema: { body: { $ref: 'staff#/$defs/keyBody' }, response: { 201: { $ref: 'api#/$defs/keyCreated' } } } },
    async (request, reply) => {
      const { label } = request.body;
      // A key must trace back to a person who signed in, not to another key.
      if (request.staff!.via !== 'session') throw refusal(403, 'staff.keyNeedsSession');
      const created = await app.db.transaction(async (tx) => {
        const key = await app.staffAuth.createKey(request.staff!.id, label.trim(), tx);
        await app.audit.record(request, { action: 'staff.key-create', details: { keyId: key.id, label: label.trim() } }, tx);
        return key;
      });
      return reply.code(201).send({ id: created.id, key: created.key, label: label.trim() });
    },
  );

  app.post<{ Params: { id: string } }>(
    STAFF_ROUTES.revokeKey.url,
    { ...anyStaff, schema: { response: { 200: { $ref: 'api#/$defs/done' } } } },
    async (request) => {
      const id = request.params.id;
      const staff = request.staff!;
      const key = isUuid(id)
        ? (
            await app.db.query<{ staff_id: string; email: string }>(
              'SELECT k.staff_id, st.email FROM staff_keys k JOIN staff st ON st.id = k.staff_id WHERE k.id = $1 AND k.revoked_at IS NULL',
              [id],
            )
          ).rows[0]
        : undefined;
      if (!key) throw refusal(404, 'staff.unknownKey');
      if (key.staff_id !== staff.id && !staff.roles.includes('owner')) throw refusal(403, 'staff.notYourKey');
      await app.db.transaction(async (tx) => {
        await tx.query('UPDATE staff_keys SET revoked_at = $2, revoked_by = $3 WHERE id = $1', [id, app.now(), staff.email]);
        await app.audit.record(request, { action: 'staff.key-revoke', details: { keyId: id, of: key.email } }, tx);
      });
      return { success: true };
    },
  );

  // ---- the audit record (owners) ----

  app.get<{ Querystring: AuditQuery }>(
    STAFF_ROUTES.audit.url,
    { ...owners, schema: { querystring: { $ref: 'staff#/$defs/auditQuery' }, response: { 200: { $ref: 'staff#/$defs/auditPage' } } } },
    async (request): Promise<AuditPage> => {
      const filter = auditFilterOf(request.query);
      const { limit = AUDIT_PAGE_SIZE, before } = request.query;
      const { rows } = await app.db.query<AuditRow>(
        `SELECT a.id, a.at, a.actor, a.action, a.driver_id, a.ip, a.details, d.review_name AS driver_name, d.email AS driver_email
       FROM (SELECT * FROM audit_events WHERE ${AUDIT_WHERE} AND ($6::bigint IS NULL OR id < $6) ORDER BY id DESC LIMIT $7) a
       LEFT JOIN drivers d ON d.id = a.driver_id ORDER BY a.id DESC`,
        [...filterParams(filter), before ?? null, limit + 1],
      );
      const page = rows.slice(0, limit);
      const roles = personRolesOf(request.staff!);
      return {
        events: page.map((row) => ({ ...auditEvent(row), driverName: driverNameOf(row, roles) })),
        next: rows.length > limit ? String(page.at(-1)!.id) : null,
      };
    },
  );

  app.get<{ Querystring: AuditDownloadQuery }>(
    STAFF_ROUTES.auditDownload.url,
    {
      ...owners,
      schema: {
        querystring: { $ref: 'staff#/$defs/auditDownloadQuery' },
        response: { 200: fileAnswer('The audit record, as CSV or JSON Lines.', 'text/csv', 'application/jsonl') },
      },
    },
    async (request, reply) => {
      const filter = auditFilterOf(request.query);
      const format = request.query.format ?? 'csv';
      const { rows } = await app.db.query<AuditRow>(
        `SELECT id, at, actor, action, driver_id, ip, details FROM audit_events WHERE ${AUDIT_WHERE} ORDER BY id`,
        filterParams(filter),
      );
      await app.audit.record(request, { action: 'audit.download', details: { format, events: rows.length, ...filter } });
      const events = rows.map(auditEvent);
      const body =
        format === 'jsonl'
          ? events.map((event) => `${JSON.stringify(event)}\n`).join('')
          : `${[AUDIT_CSV_HEADER, ...events.map((event) => [event.id, event.at, event.actor, event.action, event.driverId, event.ip, JSON.stringify(event.details)].map(csvField).join(','))].join('\r\n')}\r\n`;
      return reply
        .header('content-type', format === 'jsonl' ? 'application/jsonl; charset=utf-8' : 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="onramp-audit.${format}"`)
        .send(body);
    },
  );
}
