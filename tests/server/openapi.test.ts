import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_ROUTES } from '../../src/server/plugins/openApi.js';
import { json, startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

interface Operation {
  requestBody?: { content: Record<string, { schema: object }> };
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
}
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

/** The routes whose request is all in their path (and headers): an action on what the path names. */
const NO_BODY = new Set([
  'POST /auth/signOut',
  'POST /admin/drivers/:id/release',
  'POST /admin/drivers/:id/resume-link',
  'POST /admin/people/:id/remind',
  'POST /admin/session/end',
  'POST /admin/staff/:id/remove',
  'POST /admin/staff/:id/invitation',
  'POST /admin/staff/:id/invitation/revoke',
  'POST /admin/keys/:id/revoke',
  'POST /reminders/unsubscribe',
  'POST /admin/webhooks/:id/remove',
  'POST /admin/webhooks/:id/rotate',
  'POST /admin/webhooks/:id/test',
  'POST /admin/webhooks/:id/deliveries/:deliveryId/resend',
  'POST /admin/integrations/:id/keys',
  'POST /admin/integrations/:id/keys/:keyId/revoke',
]);

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = json<Document>(response);
    expect(document.openapi).toBe('3.1.0');
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('documents every route of the API: its body where it takes one, a 2xx answer and its refusals { message }', async () => {
    const document = json<Document>(await server.app.inject({ method: 'GET', url: '/openapi.json' }));
    // The document and its reference page are not in the document.
    const themselves = new Set(Object.values(OPENAPI_ROUTES).map((route) => `${route.method} ${route.url}`));
    const routes = server.app.apiRoutes.filter((route) => route.method !== 'HEAD' && !themselves.has(`${route.method} ${route.url}`));
    expect(routes.length).toBeGreaterThan(40);
    const missing = routes.flatMap(({ method, url }) => {
      const operation = document.paths[url.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()];
      const name = `${method} ${url}`;
      if (!operation) return [`${name}: not in the document`];
      const statuses = Object.keys(operation.responses);
      return [
        ...(method === 'POST' && !NO_BODY.has(name) && !operation.requestBody ? [`${name}: no body`] : []),
        ...(statuses.some((status) => /^2\d\d$/.test(status)) ? [] : [`${name}: no 2xx answer`]),
        ...(operation.responses['4XX']?.content?.['application/json']?.schema ? [] : [`${name}: no 4xx answer`]),
      ];
    });
    expect(missing).toEqual([]);
  });

  it('names the shared contracts as components the routes refer to', async () => {
    const document = json<Document & { components: { schemas: Record<string, object> } }>(await server.app.inject({ method: 'GET', url: '/openapi.json' }));
    expect(document.components.schemas).toHaveProperty(['review-queuePage']);
    expect(document.components.schemas).toHaveProperty(['client-error-report']);
    expect(document.paths['/admin/drivers']?.get?.responses['200']?.content?.['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/review-queuePage',
    });
    expect(document.paths['/driver/status/{id}']?.get?.responses['4XX']?.content?.['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/api-error',
    });
  });

  it('leaves the web app out', async () => {
    const document = json<Document>(await server.app.inject({ method: 'GET', url: '/openapi.json' }));
    expect(Object.keys(document.paths)).not.toContain('/');
    expect(Object.keys(document.paths)).not.toContain('/*');
  });
});

describe('GET /api-docs', () => {
  it('is a page whose scripts and styles are the server’s own, under the pages’ Content-Security-Policy', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/api-docs' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    const sources = [...response.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(sources.length).toBeGreaterThan(3);
    for (const source of sources) {
      expect(source).toMatch(/^\/api-docs\/static\//);
      const asset = await server.app.inject({ method: 'GET', url: source });
      expect(asset.statusCode, source).toBe(200);
    }
  });
});
