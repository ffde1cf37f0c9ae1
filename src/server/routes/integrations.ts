/**
 * Integrations and launch links (docs/launch-links.md): a partner's system starts a driver's
 * onboarding from its own app, and gets the driver back with a signed result once they are done.
 *
 * Owners make integrations, their keys and return URLs (routes/integrationAdmin.ts).
 *
 * The integration, with its key (the role `integration`, plugins/staffAuth.ts):
 * - POST /integration/launch-links `{ email, phone, externalId?, returnUrl, locale? }`: a
 *   single-use link, valid 15 minutes, whose token is in the URL's fragment (no server, log or
 *   Referer sees it) and stored only as its SHA-256.
 * - GET /integration/drivers?driverId=|externalId=: where one of its drivers stands.
 *
 * The driver's browser:
 * - POST /integration/launch `{ token }` (the launch page): spends the link, and answers the step
 *   to open (the sign-up, or the sign-in for an email that has an account) with its values. The
 *   driver is the link's once they sign up or sign in with that email (bindLaunchedDriver).
 * - GET /integration/return (the driver's session): the return URL with the signed result, once
 *   the journey's last step is done.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { httpErrors } from '@fastify/sensible';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isUuid, type Queryable } from '../db/db.js';
import type { DataCipher } from '../lib/dataCipher.js';
import { checkBodiesBySchema } from '../lib/bodySchemas.js';
import { cookieOf } from '../lib/cookies.js';
import type { RouteTable } from '../lib/routeTable.js';
import { INTEGRATION_ROLE } from '../plugins/staffAuth.js';
import { refusal } from '../serverMessages.js';
import {
  INTEGRATION_PREFIX,
  INTEGRATION_ROUTES,
  LAUNCH_PAGE_PATH,
  type IntegrationDriver,
  type IntegrationDriverQuery,
  type LaunchLink,
  type LaunchLinkBody,
  type LaunchOpenBody,
  type LaunchOpened,
  type LaunchResult,
  type LaunchReturn,
} from '../../shared/review.js';
import { staffContract } from '../../shared/contracts/index.js';
import { integrationSecretContext, LAUNCH_EMAIL_CONTEXT, prefillContext } from '../lib/sealContexts.js';

/** Stripe's Account Links last 5 minutes; a driver handed a link in another app gets a little longer. */
export const LAUNCH_LINK_LIFETIME_MS = 15 * 60 * 1000;
/** How long after opening a link the driver's sign-up is still taken for the link's: a sign-up is minutes. */
const LAUNCH_BINDS_FOR_MS = 24 * 60 * 60 * 1000;
/**
 * The cookie the launch page's answer leaves in the browser that opened the link (HttpOnly, for
 * the sign-up and sign-in calls only): the link's token, which binds the account signed up or
 * into from that browser. Whoever else holds the token (the link's maker) holds no account.
 */
const LAUNCH_COOKIE = 'launch';
const LAUNCH_COOKIE_PATH = '/auth';

const { launchLinkBody } = staffContract.$defs;

/** The sign-up's and the sign-in's fields an opened link fills (schemas/signup.schema.json, sign-in.schema.json). */
const FIELDS = { email: 'email', phone: 'phoneNo' } as const;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

const parsedUrl = (text: string): URL | null => {
  try {
    const url = new URL(text);
    return ['http:', 'https:'].includes(url.protocol) && !url.username && !url.password ? url : null;
  } catch {
    return null;
  }
};

/** A return URL entry as stored (its origin and path), or null when it is not one: an absolute http(s) URL with no query or fragment. */
export function returnUrlEntry(text: string): string | null {
  const url = parsedUrl(text.trim());
  if (!url || text.includes('?') || text.includes('#')) return null;
  return `${url.origin}${url.pathname}`;
}

/**
 * `candidate` as the browser will be sent to it, when one of `entries` allows it: the same origin
 * exactly, and a path that is the entry's or below it ("/done" allows "/done" and "/done/x", not
 * "/donex"). The URL is compared as parsed, so "\\", ".." and encodings mean what the browser reads.
 */
export function allowedReturnUrl(candidate: string, entries: readonly string[]): string | null {
  const url = parsedUrl(candidate);
  if (!url) return null;
  const allowed = entries.some((entry) => {
    const allowedUrl = new URL(entry);
    const prefix = allowedUrl.pathname;
    return allowedUrl.origin === url.origin && (url.pathname === prefix || url.pathname.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`));
  });
  return allowed ? url.href : null;
}

/** What the result carries back, signed: `driverId.externalId.status.issuedAt`, HMAC-SHA256 in hex. */
export function signedResult(secret: string, fields: Omit<LaunchResult, 'signature'>): LaunchResult {
  const signature = createHmac('sha256', secret).update(`${fields.driverId}.${fields.externalId}.${fields.status}.${fields.issuedAt}`).digest('hex');
  return { ...fields, signature };
}

/**
 * Hands a driver the external id and return URL of the launch link their browser opened (its
 * LAUNCH_COOKIE), once they have shown the link's email is theirs: a new driver at their sign-up
 * (in its transaction), a driver with an account at their sign-in (routes/auth.ts). Opening a
 * link proves nothing (whoever made it holds its token), so it binds no one; nor does a sign-in
 * from another browser. A sign-up may follow the link by up to a day (LAUNCH_BINDS_FOR_MS); a
 * sign-in follows it at once, so it binds only within the link's own lifetime of being opened.
 */
export async function bindLaunchedDriver(
  tx: Queryable,
  cipher: DataCipher,
  request: FastifyRequest,
  driver: { id: string; email: string; now: Date },
  { signingIn = false } = {},
): Promise<void> {
  const token = cookieOf(request, LAUNCH_COOKIE);
  if (!token) return;
  const openedSince = new Date(driver.now.getTime() - (signingIn ? LAUNCH_LINK_LIFETIME_MS : LAUNCH_BINDS_FOR_MS));
  await tx.query(
    `WITH link AS (
       SELECT token_hash FROM launch_links
       WHERE token_hash = $4 AND email_fingerprint = ANY($2::text[]) AND opened_at > $3 AND driver_id IS NULL FOR UPDATE
     ), bound AS (
       UPDATE launch_links l SET driver_id = $1 FROM link WHERE l.token_hash = link.token_hash RETURNING l.integration_id, l.external_id, l.return_url
     )
     UPDATE drivers d SET integration_id = bound.integration_id, external_id = bound.external_id, return_url = bound.return_url FROM bound WHERE d.id = $1`,
    [driver.id, cipher.fingerprints(driver.email, LAUNCH_EMAIL_CONTEXT), openedSince, hashToken(token)],
  );
}

/** The integration's own API and the driver's side of a launch link (lib/routeTable.ts). */
export const INTEGRATION_API_ROUTES = {
  launchLinks: { method: 'POST', url: `${INTEGRATION_PREFIX}/launch-links` },
  driver: { method: 'GET', url: `${INTEGRATION_PREFIX}/drivers` },
  launch: { method: 'POST', url: `${INTEGRATION_PREFIX}${INTEGRATION_ROUTES.launch}` },
  return: { method: 'GET', url: `${INTEGRATION_PREFIX}${INTEGRATION_ROUTES.return}` },
} as const satisfies RouteTable;

export async function integrationRoutes(app: FastifyInstance, options: { publicOrigin: string }) {
  const integrationOnly = { config: { staffRoles: [INTEGRATION_ROLE] }, onRequest: app.requireStaff };
  checkBodiesBySchema(app);
  const flow = () => app.callReader.flow;
  /** The journey's last step, the one whose sending ends it (its `completion`): a driver who sent it is onboarded. */
  const lastStep = () => Object.entries(flow().steps).find(([, step]) => step.kind === 'form' && step.completion)?.[0] ?? null;

  app.post<{ Body: LaunchLinkBody }>(
    INTEGRATION_API_ROUTES.launchLinks.url,
    { ...integrationOnly, schema: { body: { $ref: 'staff#/$defs/launchLinkBody' }, response: { 200: { $ref: 'staff#/$defs/launchLink' } } } },
    async (request): Promise<LaunchLink> => {
      const integrationId = request.staff!.id;
      const { rows } = await app.db.query<{ return_urls: string[] }>('SELECT return_urls FROM integrations WHERE id = $1', [integrationId]);
      const returnUrl = allowedReturnUrl(request.body.returnUrl, rows[0]?.return_urls ?? []);
      // Anything not on the owner's list is refused: a link never sends a driver somewhere unknown.
      if (!returnUrl) throw httpErrors.badRequest(launchLinkBody.properties.returnUrl.errorMessage);
      const email = request.body.email.trim().toLowerCase();
      const phone = request.body.phone.replace(/^\+1/, '');
      const token = randomBytes(32).toString('base64url');
      const tokenHash = hashToken(token);
      const now = app.now();
      const expiresAt = new Date(now.getTime() + LAUNCH_LINK_LIFETIME_MS);
      await app.db.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO launch_links (token_hash, integration_id, email_fingerprint, prefill, external_id, return_url, locale, created_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [
            tokenHash,
            integrationId,
            app.cipher.fingerprint(email, LAUNCH_EMAIL_CONTEXT),
            app.cipher.encrypt(JSON.stringify({ email, phone }), prefillContext(tokenHash)),
            request.body.externalId ?? null,
            returnUrl,
            request.body.locale ?? null,
            now,
            expiresAt,
          ],
        );
        await app.audit.record(request, { action: 'integration.launch-link', details: { expiresAt: expiresAt.toISOString() } }, tx);
      });
      // In the fragment: the browser keeps it to itself, so no request line, log or Referer carries it.
      return { url: `${options.publicOrigin}${LAUNCH_PAGE_PATH}#${token}`, expiresAt: expiresAt.toISOString() };
    },
  );

  app.get<{ Querystring: IntegrationDriverQuery }>(
    INTEGRATION_API_ROUTES.driver.url,
    {
      ...integrationOnly,
      schema: { querystring: { $ref: 'staff#/$defs/integrationDriverQuery' }, response: { 200: { $ref: 'staff#/$defs/integrationDriver' } } },
    },
    async (request): Promise<IntegrationDriver> => {
      const { driverId, externalId } = request.query;
      if (driverId !== undefined && !isUuid(driverId)) throw refusal(404, 'staff.unknownIntegrationDriver');
      const { rows } = await app.db.query<{
        id: string;
        external_id: string | null;
        status: IntegrationDriver['status'];
        email_verified: boolean;
        phone_verified: boolean;
        is_session_complete: boolean;
        is_subscription_paid: boolean;
        bank_added: boolean;
        steps: { step: string; sent_at: string }[] | null;
      }>(
        `SELECT d.id, d.external_id, d.status, d.email_verified_at IS NOT NULL AS email_verified, d.phone_verified_at IS NOT NULL AS phone_verified,
           d.is_session_complete, d.is_subscription_paid, EXISTS (SELECT 1 FROM step_answers a WHERE a.driver_id = d.id AND a.step = $4) AS bank_added,
           (SELECT json_agg(json_build_object('step', a.step, 'sent_at', a.submitted_at) ORDER BY a.submitted_at) FROM step_answers a WHERE a.driver_id = d.id) AS steps
         FROM drivers d
         WHERE d.integration_id = $1 AND ($2::uuid IS NULL OR d.id = $2) AND ($3::text IS NULL OR d.external_id = $3)
         ORDER BY d.created_at DESC LIMIT 1`,
        [request.staff!.id, driverId ?? null, externalId ?? null, lastStep()],
      );
      const row = rows[0];
      if (!row) throw refusal(404, 'staff.unknownIntegrationDriver');
      return {
        driverId: row.id,
        externalId: row.external_id,
        status: row.status,
        isEmailVerified: row.email_verified,
        isPhoneVerified: row.phone_verified,
        isSessionComplete: row.is_session_complete,
        isSubscriptionPaid: row.is_subscription_paid,
        isBankAccountAdded: row.bank_added,
        steps: (row.steps ?? []).map((step) => ({ step: step.step, sentAt: new Date(step.sent_at).toISOString() })),
      };
    },
  );

  app.post<{ Body: LaunchOpenBody }>(
    INTEGRATION_API_ROUTES.launch.url,
    { schema: { body: { $ref: 'driver#/$defs/launchOpenBody' }, response: { 200: { $ref: 'driver#/$defs/launchOpened' } } } },
    async (request, reply): Promise<LaunchOpened> => {
      const opened = await app.db.transaction(async (tx): Promise<LaunchOpened> => {
        const tokenHash = hashToken(request.body.token);
        const { rows } = await tx.query<{ prefill: Uint8Array | null; locale: LaunchOpened['locale'] | null; spent: boolean }>(
          `SELECT prefill, locale, opened_at IS NOT NULL OR expires_at <= $2 AS spent
           FROM launch_links WHERE token_hash = $1 FOR UPDATE`,
          [tokenHash, app.now()],
        );
        const link = rows[0];
        if (!link) throw refusal(404, 'launch.notValid');
        if (link.spent || !link.prefill) throw refusal(410, 'launch.spent');
        // Spent, and the email and phone it held gone with it: only the email's keyed hash stays.
        await tx.query('UPDATE launch_links SET opened_at = $2, prefill = NULL WHERE token_hash = $1', [tokenHash, app.now()]);
        const { email, phone } = JSON.parse(app.cipher.decrypt(link.prefill, prefillContext(tokenHash)).toString()) as { email: string; phone: string };
        const locale = link.locale ? { locale: link.locale } : {};
        const values: Record<string, string> = { [FIELDS.email]: email };
        const { rows: drivers } = await tx.query('SELECT 1 FROM drivers WHERE email = $1', [email]);
        if (drivers.length === 0) return { step: flow().start, values: { ...values, [FIELDS.phone]: phone }, ...locale };
        // A driver with an account signs in, and is the link's once they have (bindLaunchedDriver).
        return { step: flow().account.signIn, values, ...locale };
      });
      // This browser's sign-up or sign-in is the one the link binds (bindLaunchedDriver).
      const secure = request.protocol === 'https' ? '; Secure' : '';
      reply.header(
        'set-cookie',
        `${LAUNCH_COOKIE}=${request.body.token}; Path=${LAUNCH_COOKIE_PATH}; Max-Age=${LAUNCH_BINDS_FOR_MS / 1000}; HttpOnly; SameSite=Strict${secure}`,
      );
      return opened;
    },
  );

  app.get(
    INTEGRATION_API_ROUTES.return.url,
    { preHandler: app.requireDriver, schema: { response: { 200: { $ref: 'driver#/$defs/launchReturn' } } } },
    async (request: FastifyRequest): Promise<LaunchReturn> => {
      const { rows } = await app.db.query<{ integration_id: string; signing_secret: Uint8Array; external_id: string | null; return_url: string }>(
        `SELECT i.id AS integration_id, i.signing_secret, d.external_id, d.return_url
         FROM drivers d JOIN integrations i ON i.id = d.integration_id
         WHERE d.id = $1 AND d.return_url IS NOT NULL AND EXISTS (SELECT 1 FROM step_answers a WHERE a.driver_id = d.id AND a.step = $2)`,
        [request.driverId, lastStep()],
      );
      const row = rows[0];
      // Not from a launch link, or not at the journey's end yet: nothing to carry back.
      if (!row) return { url: null, result: null };
      const secret = app.cipher.decrypt(row.signing_secret, integrationSecretContext(row.integration_id)).toString();
      const result = signedResult(secret, {
        driverId: request.driverId,
        externalId: row.external_id ?? '',
        status: 'completed',
        issuedAt: String(Math.floor(app.now().getTime() / 1000)),
      });
      const url = new URL(row.return_url);
      for (const [name, value] of Object.entries(result)) url.searchParams.set(name, value);
      return { url: url.href, result };
    },
  );
}
