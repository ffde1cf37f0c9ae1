/**
 * Integrations and launch links (docs/launch-links.md): a partner's system starts a driver's
 * onboarding from its own app, and gets the driver back with a signed result once they are done.
 *
 * Owners (under /admin):
 * - GET /admin/integrations; POST /admin/integrations `{ name, returnUrls }`: a new integration,
 *   answered once with its first key and its signing secret.
 * - POST /admin/integrations/:id/keys: another key (answered once); POST
 *   /admin/integrations/:id/keys/:keyId/revoke.
 * - POST /admin/integrations/:id/return-urls `{ returnUrls }`: where its drivers may be sent back.
 *
 * The integration, with its key (the role `integration`, plugins/staffAuth.ts):
 * - POST /integration/launch-links `{ email, phone, externalId?, returnUrl, locale? }`: a
 *   single-use link, valid 15 minutes, whose token is in the URL's fragment (no server, log or
 *   Referer sees it) and stored only as its SHA-256.
 * - GET /integration/drivers?driverId=|externalId=: where one of its drivers stands.
 *
 * The driver's browser:
 * - POST /integration/launch `{ token }` (the launch page): spends the link, and answers the step
 *   to open (the sign-up, or the sign-in for an email that has an account) with its values.
 * - GET /integration/return (the driver's session): the return URL with the signed result, once
 *   the journey's last step is done.
 */
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { httpErrors } from '@fastify/sensible';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isUuid, isUniqueViolation, type Queryable } from '../db/db.js';
import type { DataCipher } from '../lib/dataCipher.js';
import { checkBodiesBySchema } from '../lib/bodySchemas.js';
import { INTEGRATION_ROLE } from '../plugins/staffAuth.js';
import {
  INTEGRATION_ROUTES,
  LAUNCH_PAGE_PATH,
  type Integration,
  type IntegrationBody,
  type IntegrationCreated,
  type IntegrationDriver,
  type IntegrationDriverQuery,
  type IntegrationKeyCreated,
  type IntegrationList,
  type LaunchLink,
  type LaunchLinkBody,
  type LaunchOpenBody,
  type LaunchOpened,
  type LaunchResult,
  type LaunchReturn,
  type ReturnUrlsBody,
} from '../../shared/review.js';
import reviewSchema from '../../shared/review.schema.json';

/** Stripe's Account Links last 5 minutes; a driver handed a link in another app gets a little longer. */
export const LAUNCH_LINK_LIFETIME_MS = 15 * 60 * 1000;
/** How long after opening a link the driver's sign-up is still taken for the link's: a sign-up is minutes. */
const LAUNCH_BINDS_FOR_MS = 24 * 60 * 60 * 1000;

const { launchLinkBody, launchOpenBody } = reviewSchema.$defs;

export const INTEGRATION_MESSAGES = {
  returnUrlRefused: launchLinkBody.properties.returnUrl.errorMessage,
  linkNotValid: launchOpenBody.properties.token.errorMessage,
  linkSpent: 'This link has expired or was used already. Please ask for a new one.',
  unknownIntegration: 'No integration has this id.',
  unknownKey: 'This integration has no such key, or it was revoked already.',
  unknownDriver: 'No driver who came through this integration’s launch links matches.',
  nameTaken: 'An integration already has this name.',
  badReturnUrl: 'Each return URL must be an http or https address with no query, fragment or password: ',
} as const;

/** The sign-up's and the sign-in's fields an opened link fills (schemas/signup.schema.json, sign-in.schema.json). */
const FIELDS = { email: 'email', phone: 'phoneNo' } as const;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const secretContext = (integrationId: string) => `integration-secret:${integrationId}`;
const prefillContext = (tokenHash: string) => `launch-link:${tokenHash}`;
/** The email's keyed hash a link is found by at the sign-up (no email is kept once the link is opened). */
const emailFingerprint = (cipher: DataCipher, email: string) => cipher.fingerprint(email, 'launch-email');

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

function returnUrlsOf(body: ReturnUrlsBody): string[] {
  const entries = body.returnUrls.map((text) => {
    const entry = returnUrlEntry(text);
    if (!entry) throw httpErrors.badRequest(`${INTEGRATION_MESSAGES.badReturnUrl}${text}`);
    return entry;
  });
  return [...new Set(entries)];
}

/** What the result carries back, signed: `driverId.externalId.status.issuedAt`, HMAC-SHA256 in hex. */
export function signedResult(secret: string, fields: Omit<LaunchResult, 'signature'>): LaunchResult {
  const signature = createHmac('sha256', secret).update(`${fields.driverId}.${fields.externalId}.${fields.status}.${fields.issuedAt}`).digest('hex');
  return { ...fields, signature };
}

/**
 * Hands a new driver the external id and return URL of the launch link opened last with their
 * email (within LAUNCH_BINDS_FOR_MS), in the sign-up's transaction (routes/auth.ts).
 */
export async function bindLaunchedDriver(tx: Queryable, cipher: DataCipher, driverId: string, email: string, now: Date): Promise<void> {
  await tx.query(
    `WITH link AS (
       SELECT token_hash FROM launch_links WHERE email_fingerprint = $2 AND opened_at > $3 AND driver_id IS NULL ORDER BY opened_at DESC LIMIT 1 FOR UPDATE
     ), bound AS (
       UPDATE launch_links l SET driver_id = $1 FROM link WHERE l.token_hash = link.token_hash RETURNING l.integration_id, l.external_id, l.return_url
     )
     UPDATE drivers d SET integration_id = bound.integration_id, external_id = bound.external_id, return_url = bound.return_url FROM bound WHERE d.id = $1`,
    [driverId, emailFingerprint(cipher, email), new Date(now.getTime() - LAUNCH_BINDS_FOR_MS)],
  );
}

interface IntegrationRow {
  id: string;
  name: string;
  return_urls: string[];
  created_by: string;
  created_at: Date;
  keys: { id: string; created_at: string; last_used_at: string | null }[] | null;
}

const integrationOf = (row: IntegrationRow): Integration => ({
  id: row.id,
  name: row.name,
  returnUrls: row.return_urls,
  createdBy: row.created_by,
  createdAt: new Date(row.created_at).toISOString(),
  keys: (row.keys ?? []).map((key) => ({
    id: key.id,
    createdAt: new Date(key.created_at).toISOString(),
    lastUsedAt: key.last_used_at ? new Date(key.last_used_at).toISOString() : null,
  })),
});

type IntegrationParams = { Params: { id: string } };

/** The owner's side: integrations, their keys and their return URLs (registered under /admin). */
export async function integrationAdminRoutes(app: FastifyInstance) {
  const owners = { config: { staffRoles: ['owner'] as const }, onRequest: app.requireStaff };
  checkBodiesBySchema(app);

  async function knownIntegration(id: string, db: Queryable = app.db): Promise<{ id: string; name: string }> {
    const row = isUuid(id) ? (await db.query<{ id: string; name: string }>('SELECT id, name FROM integrations WHERE id = $1', [id])).rows[0] : undefined;
    if (!row) throw httpErrors.notFound(INTEGRATION_MESSAGES.unknownIntegration);
    return row;
  }

  app.get('/integrations', { ...owners, schema: { response: { 200: { $ref: 'review#/$defs/integrationList' } } } }, async (): Promise<IntegrationList> => {
    const { rows } = await app.db.query<IntegrationRow>(
      `SELECT i.id, i.name, i.return_urls, i.created_by, i.created_at,
         (SELECT json_agg(json_build_object('id', k.id, 'created_at', k.created_at, 'last_used_at', k.last_used_at) ORDER BY k.created_at)
          FROM integration_keys k WHERE k.integration_id = i.id AND k.revoked_at IS NULL) AS keys
       FROM integrations i ORDER BY lower(i.name)`,
    );
    return { integrations: rows.map(integrationOf) };
  });

  app.post<{ Body: IntegrationBody }>(
    '/integrations',
    { ...owners, schema: { body: { $ref: 'review#/$defs/integrationBody' }, response: { 201: { $ref: 'review#/$defs/integrationCreated' } } } },
    async (request, reply) => {
      const name = request.body.name.trim();
      const returnUrls = returnUrlsOf(request.body);
      const signingSecret = randomBytes(32).toString('base64url');
      try {
        const created = await app.db.transaction(async (tx): Promise<IntegrationCreated> => {
          const id = randomUUID();
          // Sealed in the context of its own integration, so one integration's secret can't be passed off as another's.
          await tx.query('INSERT INTO integrations (id, name, signing_secret, return_urls, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
            id,
            name,
            app.cipher.encrypt(signingSecret, secretContext(id)),
            returnUrls,
            request.staff!.email,
            app.now(),
          ]);
          const key = await app.staffAuth.createIntegrationKey(id, tx);
          await app.audit.record(request, { action: 'integration.create', details: { integrationId: id, name, returnUrls, keyId: key.id } }, tx);
          return { id, name, key: key.key, signingSecret };
        });
        return reply.code(201).send(created);
      } catch (error) {
        if (isUniqueViolation(error)) throw httpErrors.conflict(INTEGRATION_MESSAGES.nameTaken);
        throw error;
      }
    },
  );

  app.post<IntegrationParams>(
    '/integrations/:id/keys',
    { ...owners, schema: { response: { 201: { $ref: 'review#/$defs/integrationKeyCreated' } } } },
    async (request, reply) => {
      const created = await app.db.transaction(async (tx): Promise<IntegrationKeyCreated> => {
        const integration = await knownIntegration(request.params.id, tx);
        const key = await app.staffAuth.createIntegrationKey(integration.id, tx);
        await app.audit.record(
          request,
          { action: 'integration.key-create', details: { integrationId: integration.id, name: integration.name, keyId: key.id } },
          tx,
        );
        return key;
      });
      return reply.code(201).send(created);
    },
  );

  app.post<{ Params: { id: string; keyId: string } }>('/integrations/:id/keys/:keyId/revoke', owners, async (request) => {
    const integration = await knownIntegration(request.params.id);
    const { keyId } = request.params;
    await app.db.transaction(async (tx) => {
      const revoked = isUuid(keyId)
        ? await tx.query(
            'UPDATE integration_keys SET revoked_at = $3, revoked_by = $4 WHERE id = $1 AND integration_id = $2 AND revoked_at IS NULL RETURNING id',
            [keyId, integration.id, app.now(), request.staff!.email],
          )
        : { rows: [] };
      if (revoked.rows.length === 0) throw httpErrors.notFound(INTEGRATION_MESSAGES.unknownKey);
      await app.audit.record(request, { action: 'integration.key-revoke', details: { integrationId: integration.id, name: integration.name, keyId } }, tx);
    });
    return { success: true };
  });

  app.post<IntegrationParams & { Body: ReturnUrlsBody }>(
    '/integrations/:id/return-urls',
    { ...owners, schema: { body: { $ref: 'review#/$defs/returnUrlsBody' } } },
    async (request) => {
      const returnUrls = returnUrlsOf(request.body);
      await app.db.transaction(async (tx) => {
        const integration = await knownIntegration(request.params.id, tx);
        await tx.query('UPDATE integrations SET return_urls = $2 WHERE id = $1', [integration.id, returnUrls]);
        await app.audit.record(
          request,
          { action: 'integration.return-urls', details: { integrationId: integration.id, name: integration.name, returnUrls } },
          tx,
        );
      });
      return { success: true, returnUrls };
    },
  );
}

/** The integration's own API and the driver's side of a launch link (registered under /integration). */
export async function integrationRoutes(app: FastifyInstance, options: { publicOrigin: string }) {
  const integrationOnly = { config: { staffRoles: [INTEGRATION_ROLE] }, onRequest: app.requireStaff };
  checkBodiesBySchema(app);
  const flow = () => app.callReader.flow;
  /** The journey's last step, the one whose sending ends it (its `completion`): a driver who sent it is onboarded. */
  const lastStep = () => Object.entries(flow().steps).find(([, step]) => step.kind === 'form' && step.completion)?.[0] ?? null;

  app.post<{ Body: LaunchLinkBody }>(
    '/launch-links',
    { ...integrationOnly, schema: { body: { $ref: 'review#/$defs/launchLinkBody' }, response: { 200: { $ref: 'review#/$defs/launchLink' } } } },
    async (request): Promise<LaunchLink> => {
      const integrationId = request.staff!.id;
      const { rows } = await app.db.query<{ return_urls: string[] }>('SELECT return_urls FROM integrations WHERE id = $1', [integrationId]);
      const returnUrl = allowedReturnUrl(request.body.returnUrl, rows[0]?.return_urls ?? []);
      // Anything not on the owner's list is refused: a link never sends a driver somewhere unknown.
      if (!returnUrl) throw httpErrors.badRequest(INTEGRATION_MESSAGES.returnUrlRefused);
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
            emailFingerprint(app.cipher, email),
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
    '/drivers',
    {
      ...integrationOnly,
      schema: { querystring: { $ref: 'review#/$defs/integrationDriverQuery' }, response: { 200: { $ref: 'review#/$defs/integrationDriver' } } },
    },
    async (request): Promise<IntegrationDriver> => {
      const { driverId, externalId } = request.query;
      if (driverId !== undefined && !isUuid(driverId)) throw httpErrors.notFound(INTEGRATION_MESSAGES.unknownDriver);
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
      if (!row) throw httpErrors.notFound(INTEGRATION_MESSAGES.unknownDriver);
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
    INTEGRATION_ROUTES.launch,
    { schema: { body: { $ref: 'review#/$defs/launchOpenBody' }, response: { 200: { $ref: 'review#/$defs/launchOpened' } } } },
    async (request): Promise<LaunchOpened> =>
      app.db.transaction(async (tx) => {
        const tokenHash = hashToken(request.body.token);
        const { rows } = await tx.query<{
          integration_id: string;
          prefill: Uint8Array | null;
          external_id: string | null;
          return_url: string;
          locale: LaunchOpened['locale'] | null;
          spent: boolean;
        }>(
          `SELECT integration_id, prefill, external_id, return_url, locale, opened_at IS NOT NULL OR expires_at <= $2 AS spent
           FROM launch_links WHERE token_hash = $1 FOR UPDATE`,
          [tokenHash, app.now()],
        );
        const link = rows[0];
        if (!link) throw httpErrors.notFound(INTEGRATION_MESSAGES.linkNotValid);
        if (link.spent || !link.prefill) throw httpErrors.gone(INTEGRATION_MESSAGES.linkSpent);
        // Spent, and the email and phone it held gone with it: only the email's keyed hash stays.
        await tx.query('UPDATE launch_links SET opened_at = $2, prefill = NULL WHERE token_hash = $1', [tokenHash, app.now()]);
        const { email, phone } = JSON.parse(app.cipher.decrypt(link.prefill, prefillContext(tokenHash)).toString()) as { email: string; phone: string };
        const locale = link.locale ? { locale: link.locale } : {};
        const values: Record<string, string> = { [FIELDS.email]: email };
        const { rows: drivers } = await tx.query<{ id: string }>('SELECT id FROM drivers WHERE email = $1', [email]);
        const driver = drivers[0];
        if (!driver) return { step: flow().start, values: { ...values, [FIELDS.phone]: phone }, ...locale };
        // A driver with an account signs in, and is the link's from now on.
        await tx.query('UPDATE drivers SET integration_id = $2, external_id = $3, return_url = $4 WHERE id = $1', [
          driver.id,
          link.integration_id,
          link.external_id,
          link.return_url,
        ]);
        await tx.query('UPDATE launch_links SET driver_id = $2 WHERE token_hash = $1', [tokenHash, driver.id]);
        return { step: flow().account.signIn, values, ...locale };
      }),
  );

  app.get(
    INTEGRATION_ROUTES.return,
    { preHandler: app.requireDriver, schema: { response: { 200: { $ref: 'review#/$defs/launchReturn' } } } },
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
      const secret = app.cipher.decrypt(row.signing_secret, secretContext(row.integration_id)).toString();
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
