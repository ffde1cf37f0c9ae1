// Staff accounts: each role against each staff route, staff and driver credentials kept
// apart, sessions that end (idle, 8 hours, sign-out, removal), the fresh sign-in export and erase
// need, queue claims, staff management, keys, and an audit row for every action.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditPage, QueuePage, ReviewDriver, StaffList } from '../../../src/shared/review.js';
import { AUDIT_ACTIONS, STAFF_ROLES } from '../../../src/shared/generated/staff.js';
import { INTEGRATION_ROLE, type Role, STAFF_SESSION_IDLE_MS, STAFF_SESSION_LIFETIME_MS } from '../../../src/server/plugins/staffAuth.js';
import { csvField } from '../../../src/server/routes/staff.js';
import { createEmulatorUser, resetPasswordInEmulator, signInEmulatorUser } from '../../support/identity.js';
import {
  bearer,
  decide,
  integration,
  json,
  reviewVersion,
  sendVehicle,
  staffKey,
  staffSession,
  startTestServer,
  verifiedDriver,
  type TestServer,
} from '../../support/server.js';
import { expectStaffMessagesFromFiles } from '../../support/staffMessages.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());
expectStaffMessagesFromFiles(() => server);

const app = () => server.app;
const call = (method: 'GET' | 'POST', url: string, token?: string, payload?: unknown) =>
  app().inject({ method, url, headers: token ? bearer(token) : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

const SIGN_IN_REQUIRED = { message: 'Please sign in as a staff member.', reason: 'signInAgain' };
const SESSION_ENDED = { message: 'Your staff session has ended. Please sign in again.', reason: 'signInAgain' };
const DRIVERS_CANNOT = { message: 'Drivers cannot use the admin API.' };
const FRESH_SIGN_IN = { message: 'Exporting or erasing a driver needs a sign-in in the last 5 minutes. Please sign in again.', reason: 'signInAgain' };
const roleNeeded = (roles: string) => ({ message: `Your role does not allow this. It needs the role: ${roles}.` });

/** The audit rows since `since` (an id), oldest first. */
async function auditSince(since: number) {
  const { rows } = await server.db.query<{
    id: string;
    actor: string | null;
    action: string;
    driver_id: string | null;
    ip: string | null;
    details: Record<string, unknown>;
  }>('SELECT id, actor, action, driver_id, ip, details FROM audit_events WHERE id > $1 ORDER BY id', [since]);
  return rows;
}
const lastAuditId = async () => Number((await server.db.query<{ id: string | null }>('SELECT max(id)::text AS id FROM audit_events')).rows[0]?.id ?? 0);

describe('each role against each staff route', () => {
  /** Who may call each route of the admin API and the integrations' API; `any` is every person on the staff. */
  const ROUTES: { method: 'GET' | 'POST'; url: string; roles: readonly Role[] | 'any' }[] = [
    { method: 'GET', url: '/admin/drivers', roles: ['reviewer'] },
    { method: 'GET', url: '/admin/drivers/:id', roles: ['reviewer'] },
    { method: 'POST', url: '/admin/drivers/:id/approve', roles: ['reviewer'] },
    { method: 'POST', url: '/admin/drivers/:id/reject', roles: ['reviewer'] },
    { method: 'POST', url: '/admin/drivers/:id/release', roles: ['reviewer'] },
    { method: 'POST', url: '/admin/drivers/:id/resume-link', roles: ['reviewer'] },
    { method: 'GET', url: '/admin/uploads/:uploadId', roles: ['reviewer'] },
    { method: 'GET', url: '/admin/drivers/:id/export', roles: ['privacy-officer'] },
    { method: 'POST', url: '/admin/drivers/:id/erase', roles: ['privacy-officer'] },
    { method: 'GET', url: '/admin/privacy/lookup', roles: ['privacy-officer'] },
    { method: 'GET', url: '/admin/staff', roles: ['owner'] },
    { method: 'POST', url: '/admin/staff', roles: ['owner'] },
    { method: 'POST', url: '/admin/staff/:id/roles', roles: ['owner'] },
    { method: 'POST', url: '/admin/staff/:id/remove', roles: ['owner'] },
    { method: 'POST', url: '/admin/staff/:id/invitation', roles: ['owner'] },
    { method: 'POST', url: '/admin/staff/:id/invitation/revoke', roles: ['owner'] },
    { method: 'GET', url: '/admin/audit', roles: ['owner'] },
    { method: 'GET', url: '/admin/audit/download', roles: ['owner'] },
    { method: 'GET', url: '/admin/insights', roles: ['reviewer', 'owner'] },
    { method: 'GET', url: '/admin/insights/download', roles: ['reviewer', 'owner'] },
    { method: 'GET', url: '/admin/expiring', roles: ['reviewer'] },
    { method: 'GET', url: '/admin/people', roles: ['reviewer', 'owner'] },
    { method: 'GET', url: '/admin/people/:id/timeline', roles: ['reviewer', 'owner'] },
    { method: 'GET', url: '/admin/people/download', roles: ['owner'] },
    { method: 'POST', url: '/admin/people/:id/resume-link', roles: ['reviewer', 'owner'] },
    { method: 'POST', url: '/admin/people/:id/remind', roles: ['reviewer', 'owner'] },
    { method: 'POST', url: '/admin/people/:id/reminders', roles: ['reviewer', 'owner'] },
    { method: 'POST', url: '/admin/people/:id/notes', roles: ['reviewer', 'owner'] },
    { method: 'POST', url: '/admin/people/bulk', roles: ['owner'] },
    { method: 'GET', url: '/admin/session', roles: 'any' },
    { method: 'POST', url: '/admin/session/end', roles: 'any' },
    { method: 'POST', url: '/admin/keys', roles: 'any' },
    { method: 'POST', url: '/admin/keys/:id/revoke', roles: 'any' },
    { method: 'GET', url: '/admin/fixtures', roles: 'any' },
    { method: 'GET', url: '/admin/integrations', roles: ['owner'] },
    { method: 'POST', url: '/admin/integrations', roles: ['owner'] },
    { method: 'POST', url: '/admin/integrations/:id/keys', roles: ['owner'] },
    { method: 'POST', url: '/admin/integrations/:id/keys/:keyId/revoke', roles: ['owner'] },
    { method: 'POST', url: '/admin/integrations/:id/return-urls', roles: ['owner'] },
    { method: 'POST', url: '/integration/launch-links', roles: [INTEGRATION_ROLE] },
    { method: 'GET', url: '/integration/drivers', roles: [INTEGRATION_ROLE] },
    { method: 'GET', url: '/admin/webhooks', roles: ['owner'] },
    { method: 'POST', url: '/admin/webhooks', roles: ['owner'] },
    { method: 'POST', url: '/admin/webhooks/:id', roles: ['owner'] },
    { method: 'POST', url: '/admin/webhooks/:id/remove', roles: ['owner'] },
    { method: 'POST', url: '/admin/webhooks/:id/rotate', roles: ['owner'] },
    { method: 'POST', url: '/admin/webhooks/:id/test', roles: ['owner'] },
    { method: 'GET', url: '/admin/webhooks/:id/deliveries', roles: ['owner'] },
    { method: 'POST', url: '/admin/webhooks/:id/deliveries/:deliveryId/resend', roles: ['owner'] },
    { method: 'POST', url: '/admin/webhooks/:id/replay', roles: ['owner'] },
  ];
  /**
   * The routes of the API no staff credential opens: the sign-in and its failures, an invitation
   * link's own and a launch link's (each token its credential; the driver's session).
   */
  const NOT_STAFF = [
    'POST /admin/session',
    'POST /admin/session/failed',
    'POST /admin/invitation',
    'POST /admin/invitation/accept',
    'POST /integration/launch',
    'GET /integration/return',
  ];

  it('lists every route of the admin API and the integrations’ but the sign-in and a driver’s', () => {
    const admin = app()
      .apiRoutes.filter((route) => /^\/(admin|integration)\//.test(route.url) && route.method !== 'HEAD')
      .map((route) => `${route.method} ${route.url}`)
      .sort();
    expect(admin).toEqual([...ROUTES.map((route) => `${route.method} ${route.url}`), ...NOT_STAFF].sort());
  });

  const cases = ROUTES.flatMap((route) => STAFF_ROLES.map((role) => ({ ...route, role, allowed: route.roles === 'any' || route.roles.includes(role) })));

  it.each(cases)('$method $url as $role: allowed $allowed', async ({ method, url, role, roles, allowed }) => {
    // A fresh sign-in each time: nothing is refused for its age, and a sign-out ends only its own.
    const staff = await staffSession(app(), [role]);
    // Ids that name nothing: an allowed call goes past the door and finds no driver, staff or key.
    const response = await call(method, url.replace(/:\w+/g, randomUUID()), staff.token, method === 'POST' ? {} : undefined);
    if (allowed) {
      expect([401, 403], `${response.statusCode} ${response.body}`).not.toContain(response.statusCode);
    } else {
      expect(response.statusCode).toBe(403);
      expect(json(response)).toEqual(roleNeeded((roles as readonly string[]).join(' or ')));
    }
  });

  // A partner's system is no person: its key opens its own two routes and is refused on every other.
  const integrationCases = ROUTES.map((route) => ({ ...route, allowed: route.roles !== 'any' && route.roles.includes(INTEGRATION_ROLE) }));

  it.each(integrationCases)('$method $url with an integration key: allowed $allowed', async ({ method, url, roles, allowed }) => {
    const { key } = await integration(app());
    const response = await call(method, url.replace(/:\w+/g, randomUUID()), key, method === 'POST' ? {} : undefined);
    if (allowed) {
      expect([401, 403], `${response.statusCode} ${response.body}`).not.toContain(response.statusCode);
    } else {
      expect(response.statusCode).toBe(403);
      expect(json(response)).toEqual(roleNeeded((roles === 'any' ? STAFF_ROLES : roles).join(' or ')));
    }
  });
});

describe('staff and driver credentials are kept apart', () => {
  it('answers a driver’s session on a staff route 403, and no credential 401', async () => {
    const driver = await verifiedDriver(app());
    for (const url of ['/admin/drivers', '/admin/staff', '/admin/audit', '/admin/session']) {
      const asDriver = await call('GET', url, driver.token);
      expect(asDriver.statusCode).toBe(403);
      expect(json(asDriver)).toEqual(DRIVERS_CANNOT);
      const nobody = await call('GET', url);
      expect(nobody.statusCode).toBe(401);
      expect(json(nobody)).toEqual(SIGN_IN_REQUIRED);
    }
  });

  it('answers a staff session or key on a driver’s route 401: it never acts as a driver', async () => {
    const driver = await verifiedDriver(app());
    const staff = await staffSession(app(), ['reviewer', 'privacy-officer', 'owner']);
    for (const token of [staff.token, server.reviewer.key]) {
      const status = await call('GET', `/driver/status/${driver.driverId}`, token);
      expect(status.statusCode).toBe(401);
    }
  });

  it('refuses a sign-in with a driver’s account, an unknown one, or a broken token, and records each', async () => {
    const since = await lastAuditId();
    const driver = await verifiedDriver(app());
    const asDriver = await call('POST', '/admin/session', undefined, { idToken: await signInEmulatorUser(driver.email) });
    expect(asDriver.statusCode).toBe(403);
    expect(json(asDriver)).toEqual({ message: 'This account is not a staff member of Onramp. Ask an owner to add you.' });
    const broken = await call('POST', '/admin/session', undefined, { idToken: 'not-a-token' });
    expect(broken.statusCode).toBe(401);
    expect(await auditSince(since)).toEqual([
      expect.objectContaining({ action: 'staff.sign-in-failed', actor: driver.email, ip: '127.0.0.1', details: { reason: 'not a staff member' } }),
      expect.objectContaining({ action: 'staff.sign-in-failed', actor: null, ip: '127.0.0.1', details: { reason: 'token not verified' } }),
    ]);
  });

  it('binds an account made before the person was added only if Firebase verified its email', async () => {
    const user = await createEmulatorUser();
    const owner = await staffSession(app(), ['owner']);
    expect((await call('POST', '/admin/staff', owner.token, { email: user.email, roles: ['reviewer'] })).statusCode).toBe(201);
    const signIn = await call('POST', '/admin/session', undefined, { idToken: user.idToken });
    expect(signIn.statusCode).toBe(403);
    expect(json(signIn)).toEqual({ message: 'Verify your email with Firebase first, or ask an owner to add you again.' });
  });
});

describe('staff sessions end', () => {
  it('after 15 idle minutes, but not while in use', async () => {
    const staff = await staffSession(app(), ['reviewer']);
    try {
      server.clock.advance(STAFF_SESSION_IDLE_MS - 60_000);
      expect((await call('GET', '/admin/session', staff.token)).statusCode).toBe(200);
      server.clock.advance(STAFF_SESSION_IDLE_MS - 60_000);
      expect((await call('GET', '/admin/session', staff.token)).statusCode).toBe(200);
      server.clock.advance(STAFF_SESSION_IDLE_MS + 1000);
      const ended = await call('GET', '/admin/session', staff.token);
      expect(ended.statusCode).toBe(401);
      expect(json(ended)).toEqual(SESSION_ENDED);
    } finally {
      server.clock.reset();
    }
  });

  it('8 hours after the sign-in, however busy', async () => {
    const staff = await staffSession(app(), ['reviewer']);
    try {
      for (let elapsed = 0; elapsed < STAFF_SESSION_LIFETIME_MS - 10 * 60_000; elapsed += 10 * 60_000) {
        server.clock.advance(10 * 60_000);
        expect((await call('GET', '/admin/session', staff.token)).statusCode).toBe(200);
      }
      server.clock.advance(10 * 60_000);
      expect((await call('GET', '/admin/session', staff.token)).statusCode).toBe(401);
    } finally {
      server.clock.reset();
    }
  });

  it('at sign-out', async () => {
    const staff = await staffSession(app(), ['reviewer']);
    expect((await call('POST', '/admin/session/end', staff.token)).statusCode).toBe(200);
    expect((await call('GET', '/admin/drivers', staff.token)).statusCode).toBe(401);
  });

  it('when the person is removed: their session and key fail at the next request (401)', async () => {
    const owner = await staffSession(app(), ['owner']);
    const reviewer = await staffSession(app(), ['reviewer']);
    const key = await staffKey(app(), ['reviewer']);
    expect((await call('GET', '/admin/drivers', reviewer.token)).statusCode).toBe(200);
    expect((await call('GET', '/admin/drivers', key.key)).statusCode).toBe(200);
    for (const person of [reviewer, key]) expect((await call('POST', `/admin/staff/${person.id}/remove`, owner.token)).statusCode).toBe(200);
    expect(json(await call('GET', '/admin/drivers', reviewer.token))).toEqual(SESSION_ENDED);
    expect((await call('GET', '/admin/drivers', key.key)).statusCode).toBe(401);
    // And they can't sign in again.
    const again = await call('POST', '/admin/session', undefined, { idToken: await signInEmulatorUser(reviewer.email) });
    expect(again.statusCode).toBe(403);
  });

  it('with a new password: at the sign-in with it, and within 30 s without one, on every instance', async () => {
    const staff = await staffSession(app(), ['reviewer']);
    const another = await server.buildAnother();
    const laptop = json<{ token: string }>(await call('POST', '/admin/session', undefined, { idToken: await signInEmulatorUser(staff.email) })).token;
    const sessionOn = (target: FastifyInstance, token: string) => target.inject({ method: 'GET', url: '/admin/session', headers: bearer(token) });
    expect((await sessionOn(app(), staff.token)).statusCode).toBe(200);
    expect((await sessionOn(another, laptop)).statusCode).toBe(200);

    await new Promise((resolve) => setTimeout(resolve, 1100)); // Firebase counts "valid since" in whole seconds
    await resetPasswordInEmulator(staff.email, 'N3w!Passw0rd');
    const after = await call('POST', '/admin/session', undefined, { idToken: await signInEmulatorUser(staff.email, 'N3w!Passw0rd') });
    expect(after.statusCode).toBe(200);
    const ended = await sessionOn(app(), staff.token);
    expect(ended.statusCode).toBe(401);
    expect(json(ended)).toEqual(SESSION_ENDED);
    expect((await sessionOn(app(), json<{ token: string }>(after).token)).statusCode).toBe(200);
    // The other instance asks Firebase again within 30 s, with no sign-in there.
    try {
      server.clock.advance(30_001);
      const endedThere = await sessionOn(another, laptop);
      expect(endedThere.statusCode).toBe(401);
      expect(json(endedThere)).toEqual(SESSION_ENDED);
    } finally {
      server.clock.reset();
    }
  });

  it('a role taken away holds from the next request (403)', async () => {
    const owner = await staffSession(app(), ['owner']);
    const person = await staffSession(app(), ['reviewer', 'privacy-officer']);
    expect((await call('GET', '/admin/drivers', person.token)).statusCode).toBe(200);
    expect((await call('POST', `/admin/staff/${person.id}/roles`, owner.token, { roles: ['privacy-officer'] })).statusCode).toBe(200);
    const refused = await call('GET', '/admin/drivers', person.token);
    expect(refused.statusCode).toBe(403);
    expect(json(refused)).toEqual(roleNeeded('reviewer'));
    expect(json(await call('GET', '/admin/session', person.token))).toMatchObject({ roles: ['privacy-officer'] });
  });
});

describe('export and erase need a fresh sign-in', () => {
  it('refuses a sign-in older than 5 minutes, and any key, with a sign-in-again answer', async () => {
    const driver = await verifiedDriver(app());
    const officer = await staffSession(app(), ['privacy-officer']);
    const key = await staffKey(app(), ['privacy-officer']);
    const since = await lastAuditId();
    expect((await call('GET', `/admin/drivers/${driver.driverId}/export`, officer.token)).statusCode).toBe(200);
    try {
      server.clock.advance(6 * 60_000);
      for (const token of [officer.token, key.key]) {
        const exported = await call('GET', `/admin/drivers/${driver.driverId}/export`, token);
        expect(exported.statusCode).toBe(403);
        expect(json(exported)).toEqual(FRESH_SIGN_IN);
        const erased = await call('POST', `/admin/drivers/${driver.driverId}/erase`, token, { confirm: driver.email });
        expect(erased.statusCode).toBe(403);
        expect(json(erased)).toEqual(FRESH_SIGN_IN);
      }
    } finally {
      server.clock.reset();
    }
    // Signed in again: the erasure goes through.
    const fresh = json(await call('POST', '/admin/session', undefined, { idToken: await signInEmulatorUser(officer.email) })).token as string;
    expect((await call('POST', `/admin/drivers/${driver.driverId}/erase`, fresh, { confirm: driver.email })).statusCode).toBe(200);
    const actions = (await auditSince(since)).map((row) => [row.action, row.actor, row.driver_id]);
    expect(actions).toEqual([
      ['driver.export', officer.email, driver.driverId],
      ['staff.sign-in', officer.email, null],
      ['driver.erase', officer.email, driver.driverId],
    ]);
  });
});

describe('a queue a team can share', () => {
  it('claims a waiting driver for the reviewer who opens them; the others see who and cannot decide until it is released', async () => {
    const driver = await verifiedDriver(app());
    await sendVehicle(app(), driver);
    const first = await staffSession(app(), ['reviewer']);
    const second = await staffSession(app(), ['reviewer']);
    const opened = json<ReviewDriver>(await call('GET', `/admin/drivers/${driver.driverId}`, first.token));
    expect(opened.claim).toEqual({ by: first.email, byMe: true, expiresAt: expect.any(String) });

    const listed = json<QueuePage>(await call('GET', `/admin/drivers?q=${encodeURIComponent(driver.email)}`, second.token)).drivers[0];
    expect(listed?.claim).toEqual({ by: first.email, byMe: false, expiresAt: opened.claim!.expiresAt });
    // Opening it does not take it.
    expect(json<ReviewDriver>(await call('GET', `/admin/drivers/${driver.driverId}`, second.token)).claim).toMatchObject({ by: first.email, byMe: false });
    const refused = await decide(app(), second.token, driver.driverId, 'reject', 'Blurry plate');
    expect(refused.statusCode).toBe(409);
    expect(json(refused).message).toMatch(
      new RegExp(`^This driver is being reviewed by ${first.email.replace(/[.]/g, '\\.')} until \\d{2}:\\d{2} UTC\\. Try again once they are done\\.$`),
    );

    expect((await call('POST', `/admin/drivers/${driver.driverId}/release`, first.token)).statusCode).toBe(200);
    expect(json<ReviewDriver>(await call('GET', `/admin/drivers/${driver.driverId}`, second.token)).claim).toMatchObject({ by: second.email, byMe: true });
    const rejected = await call('POST', `/admin/drivers/${driver.driverId}/reject`, second.token, {
      reviewVersion: await reviewVersion(app(), driver.driverId),
      fixes: [{ step: 'completeProfile', field: 'lastName', reason: 'Spelled differently on the licence' }],
    });
    expect(rejected.statusCode).toBe(200);
    // Decided: the claim is gone, and the decision names who made it.
    const decided = json<ReviewDriver>(await call('GET', `/admin/drivers/${driver.driverId}`, first.token));
    expect(decided.claim).toBeUndefined();
    expect(decided.decisions).toEqual([
      { decision: 'rejected', reason: 'Last Name: Spelled differently on the licence', by: second.email, at: expect.any(String) },
    ]);
  });

  it('lets a claim lapse after 15 minutes', async () => {
    const driver = await verifiedDriver(app());
    await sendVehicle(app(), driver);
    const first = await staffSession(app(), ['reviewer']);
    const second = await staffKey(app(), ['reviewer']);
    await call('GET', `/admin/drivers/${driver.driverId}`, first.token);
    expect((await decide(app(), second.key, driver.driverId, 'approve')).statusCode).toBe(409);
    try {
      server.clock.advance(15 * 60_000 + 1000);
      expect((await decide(app(), second.key, driver.driverId, 'approve')).statusCode).toBe(200);
    } finally {
      server.clock.reset();
    }
  });
});

describe('staff management', () => {
  it('adds a person with roles, changes them, and removes them, keeping at least one owner', async () => {
    const owner = await staffSession(app(), ['owner']);
    const email = `new-${randomUUID()}@example.com`;
    const added = await call('POST', '/admin/staff', owner.token, { email: email.toUpperCase(), roles: ['reviewer'] });
    expect(added.statusCode).toBe(201);
    const id = json<{ id: string }>(added).id;
    const again = await call('POST', '/admin/staff', owner.token, { email, roles: ['owner'] });
    expect(again.statusCode).toBe(409);
    const list = json<StaffList>(await call('GET', '/admin/staff', owner.token));
    expect(list.staff.find((member) => member.id === id)).toEqual({
      id,
      email,
      roles: ['reviewer'],
      addedBy: owner.email,
      addedAt: expect.any(String),
      keys: [],
      status: 'invited',
      lastSignInAt: null,
      failedSignIns: 0,
      invitation: { sentAt: expect.any(String), expiresAt: expect.any(String), revoked: false },
    });

    for (const body of [{}, { roles: [] }, { roles: ['admin'] }, { roles: ['owner'], extra: 1 }]) {
      expect((await call('POST', `/admin/staff/${id}/roles`, owner.token, body)).statusCode).toBe(400);
    }
    expect((await call('POST', '/admin/staff', owner.token, { email: 'not an email', roles: ['reviewer'] })).statusCode).toBe(400);

    // Every other owner is removed first, so this one is the last.
    const { rows: others } = await server.db.query<{ id: string }>("SELECT id FROM staff WHERE 'owner' = ANY (roles) AND removed_at IS NULL AND id <> $1", [
      owner.id,
    ]);
    for (const other of others) expect((await call('POST', `/admin/staff/${other.id}/remove`, owner.token)).statusCode).toBe(200);
    const lastOwner = await call('POST', `/admin/staff/${owner.id}/roles`, owner.token, { roles: ['reviewer'] });
    expect(lastOwner.statusCode).toBe(409);
    expect(json(lastOwner)).toEqual({ message: 'Onramp must keep at least one owner: give another person the owner role first.' });
    expect((await call('POST', `/admin/staff/${owner.id}/remove`, owner.token)).statusCode).toBe(409);
    expect((await call('POST', `/admin/staff/${id}/remove`, owner.token)).statusCode).toBe(200);
    expect((await call('POST', `/admin/staff/${id}/remove`, owner.token)).statusCode).toBe(404);
  });

  it('makes a key for a signed-in person (not from another key), which acts as them until revoked', async () => {
    const person = await staffSession(app(), ['reviewer']);
    const made = await call('POST', '/admin/keys', person.token, { label: 'laptop' });
    expect(made.statusCode).toBe(201);
    const { id, key } = json<{ id: string; key: string }>(made);
    expect(key).toMatch(/^onramp-key-[A-Za-z0-9_-]{43}$/);
    expect(json(await call('GET', '/admin/session', key))).toEqual({ email: person.email, roles: ['reviewer'], via: 'key', expiresAt: null });
    const fromKey = await call('POST', '/admin/keys', key, { label: 'another' });
    expect(fromKey.statusCode).toBe(403);
    expect((await call('POST', '/admin/keys', person.token, { label: '' })).statusCode).toBe(400);
    const stranger = await staffSession(app(), ['reviewer']);
    expect((await call('POST', `/admin/keys/${id}/revoke`, stranger.token)).statusCode).toBe(403);
    expect((await call('POST', `/admin/keys/${id}/revoke`, person.token)).statusCode).toBe(200);
    expect((await call('GET', '/admin/session', key)).statusCode).toBe(401);
  });
});

describe('the audit record', () => {
  it('has a row for every decision, resume link, opening of a driver or document, staff change and sign-in: who, what, which driver, from where', async () => {
    const since = await lastAuditId();
    const owner = await staffSession(app(), ['owner']);
    const reviewer = await staffSession(app(), ['reviewer']);
    const driver = await verifiedDriver(app());
    await sendVehicle(app(), driver);
    const opened = json<ReviewDriver>(await call('GET', `/admin/drivers/${driver.driverId}`, reviewer.token));
    const document = opened.steps.flatMap((step) => step.fields).find((field) => field.file)!.file!;
    expect((await call('GET', document.url, reviewer.token)).statusCode).toBe(200);
    expect((await call('POST', `/admin/drivers/${driver.driverId}/resume-link`, reviewer.token)).statusCode).toBe(200);
    expect((await decide(app(), reviewer.token, driver.driverId, 'approve')).statusCode).toBe(200);
    const added = json<{ id: string }>(await call('POST', '/admin/staff', owner.token, { email: `audit-${randomUUID()}@example.com`, roles: ['reviewer'] }));
    await call('POST', `/admin/staff/${added.id}/roles`, owner.token, { roles: ['reviewer', 'privacy-officer'] });
    const key = json<{ id: string }>(await call('POST', '/admin/keys', reviewer.token, { label: 'cli' }));
    await call('POST', `/admin/keys/${key.id}/revoke`, owner.token);
    await call('POST', `/admin/staff/${added.id}/remove`, owner.token);
    await call('POST', '/admin/session/end', reviewer.token);

    const rows = await auditSince(since);
    const mine = rows.filter((row) => row.actor === owner.email || row.actor === reviewer.email || row.actor === 'terminal:tests');
    expect(mine.map((row) => [row.action, row.actor, row.driver_id])).toEqual([
      ['staff.add', 'terminal:tests', null],
      ['staff.sign-in', owner.email, null],
      ['staff.add', 'terminal:tests', null],
      ['staff.sign-in', reviewer.email, null],
      ['driver.open', reviewer.email, driver.driverId],
      ['document.open', reviewer.email, driver.driverId],
      ['driver.resume-link', reviewer.email, driver.driverId],
      ['driver.approve', reviewer.email, driver.driverId],
      ['staff.add', owner.email, null],
      ['staff.invite', owner.email, null],
      ['staff.roles', owner.email, null],
      ['staff.key-create', reviewer.email, null],
      ['staff.key-revoke', owner.email, null],
      ['staff.remove', owner.email, null],
      ['staff.sign-out', reviewer.email, null],
    ]);
    expect(mine.every((row) => row.ip === '127.0.0.1' || row.actor === 'terminal:tests')).toBe(true);
    // The driver is named by id alone: nothing of theirs is in the record.
    expect(JSON.stringify(rows)).not.toContain(driver.email);
  });

  it('is read by owners a page at a time, filtered, and downloaded as CSV or JSON lines', async () => {
    const owner = await staffSession(app(), ['owner']);
    const reviewer = await staffKey(app(), ['reviewer']);
    const driver = await verifiedDriver(app());
    await call('GET', `/admin/drivers/${driver.driverId}`, reviewer.key);
    await call('GET', `/admin/drivers/${driver.driverId}`, reviewer.key);

    const page = json<AuditPage>(await call('GET', `/admin/audit?driver=${driver.driverId}&limit=1`, owner.token));
    // An owner reads no driver's data otherwise: a driver with no name yet is their email, masked.
    expect(page.events).toEqual([
      {
        id: expect.any(String),
        at: expect.any(String),
        actor: reviewer.email,
        action: 'driver.open',
        driverId: driver.driverId,
        driverName: `d•••@${driver.email.split('@')[1]}`,
        ip: '127.0.0.1',
        details: {},
      },
    ]);
    const next = json<AuditPage>(await call('GET', `/admin/audit?driver=${driver.driverId}&limit=1&before=${page.next}`, owner.token));
    expect(next.events).toHaveLength(1);
    expect(next.next).toBeNull();
    const byActor = json<AuditPage>(
      await call('GET', `/admin/audit?actor=${encodeURIComponent(reviewer.email.slice(0, 12).toUpperCase())}&action=driver.open`, owner.token),
    );
    expect(byActor.events.every((event) => event.actor === reviewer.email && event.action === 'driver.open')).toBe(true);
    // Each entry's details come back as they were recorded.
    const email = `details-${randomUUID()}@example.com`;
    expect((await call('POST', '/admin/staff', owner.token, { email, roles: ['reviewer', 'privacy-officer'] })).statusCode).toBe(201);
    const added = json<AuditPage>(await call('GET', '/admin/audit?action=staff.add&limit=1', owner.token));
    expect(added.events.map((event) => event.details)).toEqual([{ email, roles: ['reviewer', 'privacy-officer'] }]);
    for (const [query, message] of [
      ['action=nothing', `action must be one of: ${AUDIT_ACTIONS.join(', ')}.`],
      ['driver=x', 'driver must be a driver id.'],
      ['from=yesterday', 'from and to must be ISO 8601 times, e.g. 2026-01-31T00:00:00Z.'],
      ['to=2026-13-01', 'from and to must be ISO 8601 times, e.g. 2026-01-31T00:00:00Z.'],
      [`actor=${'a'.repeat(255)}`, 'actor must be text of at most 254 characters.'],
      ['before=-1', 'before must be the "next" of an earlier page.'],
      ['limit=0', 'limit must be a whole number from 1 to 200.'],
      ['limit=201', 'limit must be a whole number from 1 to 200.'],
      ['colour=red', 'Unknown query parameter: colour'],
    ]) {
      const response = await call('GET', `/admin/audit?${query}`, owner.token);
      expect([response.statusCode, json(response)], query).toEqual([400, { message }]);
    }

    const csv = await call('GET', `/admin/audit/download?driver=${driver.driverId}`, owner.token);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe('attachment; filename="onramp-audit.csv"');
    const lines = csv.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,at,actor,action,driverId,ip,details');
    expect(lines.slice(1).map((line) => line.split(',').slice(2, 6))).toEqual([
      [reviewer.email, 'driver.open', driver.driverId, '127.0.0.1'],
      [reviewer.email, 'driver.open', driver.driverId, '127.0.0.1'],
    ]);
    const jsonl = await call('GET', `/admin/audit/download?format=jsonl&driver=${driver.driverId}`, owner.token);
    expect(
      jsonl.body
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line).action),
    ).toEqual(['driver.open', 'driver.open']);
    for (const [query, message] of [
      ['format=xml', 'format must be csv or jsonl.'],
      ['limit=1', 'Unknown query parameter: limit'],
      ['driver=x', 'driver must be a driver id.'],
    ]) {
      const response = await call('GET', `/admin/audit/download?${query}`, owner.token);
      expect([response.statusCode, json(response)], query).toEqual([400, { message }]);
    }
  });

  it('writes CSV a spreadsheet reads as text: quoted where needed, never a formula', () => {
    expect(csvField(null)).toBe('');
    expect(csvField('ada@example.com')).toBe('ada@example.com');
    expect(csvField('a,b "c"')).toBe('"a,b ""c"""');
    expect(csvField('line\nbreak')).toBe('"line\nbreak"');
    for (const formula of ['=HYPERLINK("x")', '+1', '-1', '@SUM(A1)']) expect(csvField(formula).replace(/^"/, '')).toMatch(/^'/);
  });

  it('cannot be changed or deleted through the database role the server uses', async () => {
    await staffKey(app(), ['reviewer']);
    for (const sql of ['UPDATE audit_events SET actor = NULL', 'DELETE FROM audit_events', 'TRUNCATE audit_events']) {
      await expect(server.db.query(sql), sql).rejects.toThrow(/audit_events is append-only/);
    }
  });
});
