// Invitations: an owner adding a person emails them a link to choose their password; the link
// works once, until it expires, and not after a newer one or a revocation; its token is in no log;
// each step is on the audit record. Failed sign-ins are on it too, and the owners are told of a run.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURES_TO_TELL } from '../../../src/server/routes/staff.js';
import { INVITATION_LIFETIME_MS } from '../../../src/server/lib/staffMembers.js';
import type { StaffList, StaffMember } from '../../../src/shared/review.js';
import { signInEmulatorUser, uniqueEmail } from '../../support/identity.js';
import { bearer, deliveredBy, json, staffSession, startTestServer, type TestServer } from '../../support/server.js';
import { expectStaffMessagesFromFiles } from '../../support/staffMessages.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());
expectStaffMessagesFromFiles(() => server);

const call = (method: 'GET' | 'POST', url: string, token?: string, payload?: unknown) =>
  server.app.inject({ method, url, headers: token ? bearer(token) : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

const PASSWORD = 'a long staff passphrase';
const INVALID = { message: 'This invitation link has expired, was used already, or was replaced by a newer one. Ask an owner to send you a new invitation.' };

/** The invitations emailed to `email`, newest first: each one's subject, text and link's token. */
async function invitationsTo(email: string) {
  const sent = (await deliveredBy(server.db, server.app)).filter((entry) => entry.to === email && 'notice' in entry && entry.notice === 'staffInvitation');
  return sent.map((entry) => ({ subject: entry.subject, text: entry.text, token: /#invitation=([\w-]{43})\n/.exec(entry.text)?.[1] ?? '' }));
}

/** The audit rows about `email` since `since` (an id): what, by whom, and the details. */
async function auditOf(email: string, since: number) {
  const { rows } = await server.db.query<{ actor: string | null; action: string; details: Record<string, unknown> }>(
    "SELECT actor, action, details FROM audit_events WHERE id > $1 AND (actor = $2 OR details->>'email' = $2) ORDER BY id",
    [since, email],
  );
  return rows;
}
const lastAuditId = async () => Number((await server.db.query<{ id: string }>('SELECT coalesce(max(id), 0)::text AS id FROM audit_events')).rows[0]!.id);

async function invite(ownerToken: string, roles = ['reviewer']) {
  const email = uniqueEmail('invited');
  const added = await call('POST', '/admin/staff', ownerToken, { email, roles });
  expect(added.statusCode).toBe(201);
  return { email, id: json<{ id: string }>(added).id };
}

const memberOf = async (ownerToken: string, id: string) =>
  json<StaffList>(await call('GET', '/admin/staff', ownerToken)).staff.find((member) => member.id === id) as StaffMember;

describe('an invitation to choose a password', () => {
  it('is emailed to the person an owner adds, with a link that sets their password once; each step is on the record', async () => {
    const owner = await staffSession(server.app, ['owner']);
    const since = await lastAuditId();
    const { email, id } = await invite(owner.token, ['reviewer', 'privacy-officer']);

    const [sent, ...others] = await invitationsTo(email);
    expect(others).toEqual([]);
    expect(sent!.subject).toBe("You're invited to Onramp's admin page");
    const invited = await memberOf(owner.token, id);
    expect(invited).toMatchObject({ status: 'invited', lastSignInAt: null, failedSignIns: 0, invitation: { revoked: false } });
    const { sentAt, expiresAt } = invited.invitation!;
    expect(Date.parse(expiresAt) - Date.parse(sentAt)).toBe(INVITATION_LIFETIME_MS);
    const origin = new URL(server.config.publicUrl ?? `http://${server.config.host}:${server.config.port}`).origin;
    expect(sent!.text).toBe(
      `${owner.email} added you to Onramp's admin page as Reviewer, Privacy officer.\n\n` +
        `Choose your password here: ${origin}/admin#invitation=${sent!.token}\n\n` +
        `The link works once, until ${expiresAt.slice(0, 16).replace('T', ' ')} UTC. ` +
        `Once your password is set, you sign in at ${origin}/admin\n\nIf you did not expect this email, you can ignore it.\n\nThe Onramp team`,
    );
    // Neither the token nor the link is in a log line, and the database keeps only its hash.
    expect(server.logs.filter((line) => line.includes(sent!.token))).toEqual([]);
    const { rows } = await server.db.query('SELECT 1 FROM staff_invitations WHERE token_hash = $1', [sent!.token]);
    expect(rows).toEqual([]);

    const read = await call('POST', '/admin/invitation', undefined, { token: sent!.token });
    expect(read.statusCode).toBe(200);
    expect(json(read)).toEqual({ email, expiresAt });

    const short = await call('POST', '/admin/invitation/accept', undefined, { token: sent!.token, password: 'too short' });
    expect(short.statusCode).toBe(400);
    expect(json(short)).toEqual({ message: 'password must be 12 to 128 characters.' });

    const accepted = await call('POST', '/admin/invitation/accept', undefined, { token: sent!.token, password: PASSWORD });
    expect(accepted.statusCode).toBe(200);
    expect(json(accepted)).toEqual({ email });
    expect(server.logs.filter((line) => line.includes(PASSWORD))).toEqual([]);

    // The password signs them in as the staff member they were added as.
    const session = await call('POST', '/admin/session', undefined, { idToken: await signInEmulatorUser(email, PASSWORD) });
    expect(session.statusCode).toBe(200);
    expect(json(session)).toMatchObject({ email, roles: ['reviewer', 'privacy-officer'] });
    expect(await memberOf(owner.token, id)).toMatchObject({ status: 'active', lastSignInAt: expect.any(String), invitation: null });

    // Used once: the same link again is refused, for reading or setting.
    for (const [url, body] of [
      ['/admin/invitation', { token: sent!.token }],
      ['/admin/invitation/accept', { token: sent!.token, password: 'another long passphrase' }],
    ] as const) {
      const again = await call('POST', url, undefined, body);
      expect(again.statusCode).toBe(404);
      expect(json(again)).toEqual(INVALID);
    }
    // An active person is invited no more.
    const resend = await call('POST', `/admin/staff/${id}/invitation`, owner.token);
    expect(resend.statusCode).toBe(409);
    expect(json(resend)).toEqual({
      message: 'This person has set their password already: they can choose a new one with “Forgot password?” on the sign-in page.',
    });

    expect((await auditOf(email, since)).map(({ actor, action }) => [actor, action])).toEqual([
      [owner.email, 'staff.add'],
      [owner.email, 'staff.invite'],
      [email, 'staff.invite-accept'],
      [email, 'staff.sign-in'],
    ]);
  });

  it('stops working when it expires', async () => {
    const owner = await staffSession(server.app, ['owner']);
    const { email, id } = await invite(owner.token);
    const [sent] = await invitationsTo(email);
    server.clock.advance(INVITATION_LIFETIME_MS + 1000);
    try {
      const late = await call('POST', '/admin/invitation/accept', undefined, { token: sent!.token, password: PASSWORD });
      expect(late.statusCode).toBe(404);
      expect(json(late)).toEqual(INVALID);
      const member = await memberOf((await staffSession(server.app, ['owner'])).token, id);
      expect(member).toMatchObject({ status: 'invited', invitation: { revoked: false, expiresAt: expect.any(String) } });
      expect(Date.parse(member.invitation!.expiresAt)).toBeLessThan(server.app.now().getTime());
    } finally {
      server.clock.reset();
    }
  });

  it('is replaced by a resent one, and stops working when an owner revokes it', async () => {
    const owner = await staffSession(server.app, ['owner']);
    const since = await lastAuditId();
    const { email, id } = await invite(owner.token);
    const [first] = await invitationsTo(email);

    const resent = await call('POST', `/admin/staff/${id}/invitation`, owner.token);
    expect(resent.statusCode).toBe(200);
    const [second, older] = await invitationsTo(email);
    expect(older!.token).toBe(first!.token);
    expect(second!.token).not.toBe(first!.token);
    const replaced = await call('POST', '/admin/invitation', undefined, { token: first!.token });
    expect(replaced.statusCode).toBe(404);
    expect(json(replaced)).toEqual(INVALID);
    expect((await call('POST', '/admin/invitation', undefined, { token: second!.token })).statusCode).toBe(200);

    const revoked = await call('POST', `/admin/staff/${id}/invitation/revoke`, owner.token);
    expect(revoked.statusCode).toBe(200);
    const afterRevoke = await call('POST', '/admin/invitation/accept', undefined, { token: second!.token, password: PASSWORD });
    expect(afterRevoke.statusCode).toBe(404);
    expect(json(afterRevoke)).toEqual(INVALID);
    expect(await memberOf(owner.token, id)).toMatchObject({ status: 'invited', invitation: { revoked: true } });
    const nothingLeft = await call('POST', `/admin/staff/${id}/invitation/revoke`, owner.token);
    expect(nothingLeft.statusCode).toBe(404);
    expect(json(nothingLeft)).toEqual({ message: 'This person has no invitation waiting: there is nothing to revoke.' });

    expect((await auditOf(email, since)).map(({ actor, action }) => [actor, action])).toEqual([
      [owner.email, 'staff.add'],
      [owner.email, 'staff.invite'],
      [owner.email, 'staff.invite'],
      [owner.email, 'staff.invite-revoke'],
    ]);
  });

  it('is sent and revoked by owners only, for a person on the staff', async () => {
    const owner = await staffSession(server.app, ['owner']);
    const { id } = await invite(owner.token);
    for (const role of ['reviewer', 'privacy-officer'] as const) {
      const other = await staffSession(server.app, [role]);
      for (const url of [`/admin/staff/${id}/invitation`, `/admin/staff/${id}/invitation/revoke`]) {
        const refused = await call('POST', url, other.token);
        expect(refused.statusCode).toBe(403);
        expect(json(refused)).toEqual({ message: 'Your role does not allow this. It needs the role: owner.' });
      }
    }
    for (const url of [`/admin/staff/${randomUUID()}/invitation`, '/admin/staff/not-an-id/invitation/revoke']) {
      const unknown = await call('POST', url, owner.token);
      expect(unknown.statusCode).toBe(404);
      expect(json(unknown)).toEqual({ message: 'There is no staff member with this id.' });
    }
    // A removed person's link stops working with them.
    const { email, id: removedId } = await invite(owner.token);
    const [sent] = await invitationsTo(email);
    expect((await call('POST', `/admin/staff/${removedId}/remove`, owner.token)).statusCode).toBe(200);
    expect(json(await call('POST', '/admin/invitation', undefined, { token: sent!.token }))).toEqual(INVALID);
  });

  it('answers every bad token alike, mangled ones too, whether read or accepted', async () => {
    const owner = await staffSession(server.app, ['owner']);
    const { email } = await invite(owner.token);
    const [sent] = await invitationsTo(email);
    // Cut short, run on, with a character a mail reader added, or none at all: each opens no invitation.
    const mangled = [sent!.token.slice(0, 20), `${sent!.token}.`, `${sent!.token}%3E`, sent!.token.replace(/^./, '*'), '', 'A'.repeat(43), 'x'.repeat(200)];
    for (const token of mangled) {
      for (const [url, body] of [
        ['/admin/invitation', { token }],
        ['/admin/invitation/accept', { token, password: PASSWORD }],
      ] as const) {
        const refused = await call('POST', url, undefined, body);
        expect([token, refused.statusCode, json(refused)]).toEqual([token, 404, INVALID]);
      }
    }
    // Only what is no link at all is a request the contract refuses.
    const tooLong = await call('POST', '/admin/invitation', undefined, { token: 'x'.repeat(201) });
    expect(tooLong.statusCode).toBe(400);
    expect(json(tooLong)).toEqual({ message: 'token must be text of at most 200 characters.' });
    // The link itself still works after all that.
    expect((await call('POST', '/admin/invitation', undefined, { token: sent!.token })).statusCode).toBe(200);
  });
});

describe('failed sign-ins', () => {
  it('are on the audit record as the staff member named, counted on the staff list, and told to the owners once a run reaches the limit', async () => {
    const owner = await staffSession(server.app, ['owner']);
    const target = await staffSession(server.app, ['reviewer']);
    const since = await lastAuditId();
    for (let failure = 1; failure <= FAILURES_TO_TELL + 1; failure++) {
      const reported = await call('POST', '/admin/session/failed', undefined, { email: ` ${target.email.toUpperCase()} ` });
      expect(reported.statusCode).toBe(200);
    }
    // A typed email that is nobody's is not kept.
    expect((await call('POST', '/admin/session/failed', undefined, { email: 'nobody-typed-this@example.com' })).statusCode).toBe(200);
    const { rows } = await server.db.query<{ actor: string | null; ip: string; details: unknown }>(
      "SELECT actor, ip, details FROM audit_events WHERE id > $1 AND action = 'staff.sign-in-failed' ORDER BY id",
      [since],
    );
    expect(rows).toEqual([
      ...Array.from({ length: FAILURES_TO_TELL + 1 }, () => ({ actor: target.email, ip: '127.0.0.1', details: { reason: 'wrong email or password' } })),
      { actor: null, ip: '127.0.0.1', details: { reason: 'wrong email or password' } },
    ]);
    expect(await memberOf(owner.token, target.id)).toMatchObject({ status: 'active', failedSignIns: FAILURES_TO_TELL + 1 });

    // One email to each owner, however long the run goes on.
    const told = (await deliveredBy(server.db, server.app)).filter(
      (entry) => 'notice' in entry && entry.notice === 'staffSignInFailures' && entry.text.includes(target.email),
    );
    expect(told.filter((entry) => entry.to === owner.email).map((entry) => [entry.subject, entry.text.split('\n')[0]])).toEqual([
      [`Repeated failed sign-ins as ${target.email}`, `Someone failed to sign in to Onramp's admin page as ${target.email} 5 times in the last hour.`],
    ]);
  });
});
