/**
 * The owner's side of integrations (docs/launch-links.md; the integration's own routes and the
 * launch links are in routes/integrations.ts):
 * - GET /admin/integrations; POST /admin/integrations `{ name, returnUrls }`: a new integration,
 *   answered once with its first key and its signing secret (sealed with the data key: Onramp signs
 *   with it, so it can't be a hash).
 * - POST /admin/integrations/:id/keys: another key (answered once); POST
 *   /admin/integrations/:id/keys/:keyId/revoke.
 * - POST /admin/integrations/:id/return-urls `{ returnUrls }`: where its drivers may be sent back.
 * Each on the audit record.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { isUniqueViolation, isUuid, type Queryable } from '../db/db.js';
import { checkBodiesBySchema } from '../lib/bodySchemas.js';
import { ADMIN_PREFIX, type RouteTable } from '../lib/routeTable.js';
import type { Integration, IntegrationBody, IntegrationCreated, IntegrationKeyCreated, IntegrationList, ReturnUrlsBody } from '../../shared/review.js';
import { refusal } from '../serverMessages.js';
import { returnUrlEntry } from './integrations.js';
import { integrationSecretContext } from '../lib/sealContexts.js';

function returnUrlsOf(body: ReturnUrlsBody): string[] {
  const entries = body.returnUrls.map((text) => {
    const entry = returnUrlEntry(text);
    if (!entry) throw refusal(400, 'staff.badReturnUrl', { url: text });
    return entry;
  });
  return [...new Set(entries)];
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

/** Integrations, their keys and their return URLs, for owners (lib/routeTable.ts). */
export const INTEGRATION_ADMIN_ROUTES = {
  list: { method: 'GET', url: `${ADMIN_PREFIX}/integrations` },
  create: { method: 'POST', url: `${ADMIN_PREFIX}/integrations` },
  addKey: { method: 'POST', url: `${ADMIN_PREFIX}/integrations/:id/keys` },
  revokeKey: { method: 'POST', url: `${ADMIN_PREFIX}/integrations/:id/keys/:keyId/revoke` },
  returnUrls: { method: 'POST', url: `${ADMIN_PREFIX}/integrations/:id/return-urls` },
} as const satisfies RouteTable;

export async function integrationAdminRoutes(app: FastifyInstance) {
  const owners = { config: { staffRoles: ['owner'] as const }, onRequest: app.requireStaff };
  checkBodiesBySchema(app);

  async function knownIntegration(id: string, db: Queryable = app.db): Promise<{ id: string; name: string }> {
    const row = isUuid(id) ? (await db.query<{ id: string; name: string }>('SELECT id, name FROM integrations WHERE id = $1', [id])).rows[0] : undefined;
    if (!row) throw refusal(404, 'staff.unknownIntegration');
    return row;
  }

  app.get(
    INTEGRATION_ADMIN_ROUTES.list.url,
    { ...owners, schema: { response: { 200: { $ref: 'staff#/$defs/integrationList' } } } },
    async (): Promise<IntegrationList> => {
      const { rows } = await app.db.query<IntegrationRow>(
        `SELECT i.id, i.name, i.return_urls, i.created_by, i.created_at,
         (SELECT json_agg(json_build_object('id', k.id, 'created_at', k.created_at, 'last_used_at', k.last_used_at) ORDER BY k.created_at)
          FROM integration_keys k WHERE k.integration_id = i.id AND k.revoked_at IS NULL) AS keys
       FROM integrations i ORDER BY lower(i.name)`,
      );
      return { integrations: rows.map(integrationOf) };
    },
  );

  app.post<{ Body: IntegrationBody }>(
    INTEGRATION_ADMIN_ROUTES.create.url,
    { ...owners, schema: { body: { $ref: 'staff#/$defs/integrationBody' }, response: { 201: { $ref: 'staff#/$defs/integrationCreated' } } } },
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
            app.cipher.encrypt(signingSecret, integrationSecretContext(id)),
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
        if (isUniqueViolation(error)) throw refusal(409, 'staff.integrationNameTaken');
        throw error;
      }
    },
  );

  app.post<IntegrationParams>(
    INTEGRATION_ADMIN_ROUTES.addKey.url,
    { ...owners, schema: { response: { 201: { $ref: 'staff#/$defs/integrationKeyCreated' } } } },
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

  app.post<{ Params: { id: string; keyId: string } }>(
    INTEGRATION_ADMIN_ROUTES.revokeKey.url,
    { ...owners, schema: { response: { 200: { $ref: 'api#/$defs/done' } } } },
    async (request) => {
      const integration = await knownIntegration(request.params.id);
      const { keyId } = request.params;
      await app.db.transaction(async (tx) => {
        const revoked = isUuid(keyId)
          ? await tx.query(
              'UPDATE integration_keys SET revoked_at = $3, revoked_by = $4 WHERE id = $1 AND integration_id = $2 AND revoked_at IS NULL RETURNING id',
              [keyId, integration.id, app.now(), request.staff!.email],
            )
          : { rows: [] };
        if (revoked.rows.length === 0) throw refusal(404, 'staff.unknownIntegrationKey');
        await app.audit.record(request, { action: 'integration.key-revoke', details: { integrationId: integration.id, name: integration.name, keyId } }, tx);
      });
      return { success: true };
    },
  );

  app.post<IntegrationParams & { Body: ReturnUrlsBody }>(
    INTEGRATION_ADMIN_ROUTES.returnUrls.url,
    { ...owners, schema: { body: { $ref: 'staff#/$defs/returnUrlsBody' }, response: { 200: { $ref: 'api#/$defs/returnUrlsSet' } } } },
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
