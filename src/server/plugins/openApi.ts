/**
 * The API described as an OpenAPI 3.1 document, made by @fastify/swagger from the very schemas the
 * routes validate and serialize with: served at /openapi.json, and as a reference page for
 * developers at /api-docs (@fastify/swagger-ui, its scripts served from node_modules). Every route's
 * refusals and faults are declared here once, `{ message }` (src/shared/apiError.schema.json), so the
 * route files state their own bodies and answers only. Registered in the API's context before any
 * of its routes (routes/api.ts): both hooks see every route of the API, and no page, as it registers.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { loadSchema } from '../../node/projectFiles.js';
import { splitSource, type Flow } from '../../shared/flow.js';
import type { JsonObject } from '../../shared/schemaFiles.js';
import apiErrorSchema from '../../shared/apiError.schema.json';
import { type RouteTable, routePathOf } from '../lib/routeTable.js';
import { version } from '../../../package.json';

export const OPENAPI_PATH = '/openapi.json';
/** The reference page: a page of its own under the API's paths (app.ts gives it a page's headers). */
export const API_DOCS_PATH = '/api-docs';

/** The document and its reference page (lib/routeTable.ts): neither is in the document. */
export const OPENAPI_ROUTES = {
  document: { method: 'GET', url: OPENAPI_PATH },
  referencePage: { method: 'GET', url: API_DOCS_PATH },
} as const satisfies RouteTable;

/**
 * A file of the reference page's own (its scripts and styles, its copy of the document), which
 * @fastify/swagger-ui lays out below the page's path as it sees fit: the page's, not the API's.
 */
export const isReferencePageFile = (url: string) => url.startsWith(`${API_DOCS_PATH}/`);

/**
 * The body of a call of the flow, for the document: the call reader checks it by the flow (each
 * payload key by its step's schema or the call context's), so its route declares none. Each key's
 * schema is the one it is checked by; a file is a part of a multipart form.
 */
function callBody(flow: Flow, callName: string): JsonObject | undefined {
  const call = flow.calls[callName];
  if (!call?.payload) return undefined;
  const step = Object.values(flow.steps).find((each) => each.kind === 'form' && each.call === callName && !each.private);
  const form = step?.kind === 'form' ? loadSchema(step.schema) : undefined;
  const formProperties = (form?.properties ?? {}) as Record<string, JsonObject>;
  const formRequired = new Set((form?.required ?? []) as string[]);
  const context = loadSchema('call-context').properties as Record<string, JsonObject>;
  const properties: Record<string, JsonObject> = {};
  const required: string[] = [];
  for (const [key, mapping] of Object.entries(call.payload)) {
    const { kind, path } = splitSource(mapping.from);
    const name = path.join('.');
    if (kind === 'file') properties[key] = { type: 'string', format: 'binary', description: `The picture of the form's field "${name}".` };
    else if (kind === 'form') properties[key] = formProperties[name] ?? {};
    else properties[key] = context[name] ?? {};
    const optional = mapping.transform?.includes('omitIfEmpty') || (kind !== 'storage' && kind !== 'context' && !formRequired.has(name));
    if (!optional) required.push(key);
  }
  return { type: 'object', properties, required };
}

/**
 * A query string declared by a shared schema's $def, as the document lists its parameters: the
 * $def itself, its references to its sibling $defs named as their components ("staff-auditFilterTime"),
 * which @fastify/swagger does not do for parameters.
 */
function queryDocument(app: FastifyInstance, declared: unknown): unknown {
  const { $ref } = declared as { $ref?: string };
  const [id, name] = $ref?.match(/^([\w-]+)#\/\$defs\/(\w+)$/)?.slice(1) ?? [];
  if (!id || !name) return declared;
  const def = (app.getSchema(id) as { $defs: Record<string, unknown> }).$defs[name];
  return JSON.parse(JSON.stringify(def).replaceAll('"#/$defs/', `"#/components/schemas/${id}-`));
}

export const openApiPlugin = fp(
  async (app) => {
    app.addSchema(apiErrorSchema);
    app.addHook('onRoute', (route) => {
      if (route.schema?.hide) return;
      route.schema ??= {};
      const response = (route.schema.response ??= {}) as Record<string, unknown>;
      response['4xx'] ??= { $ref: 'api-error#' };
      response['5xx'] ??= { $ref: 'api-error#' };
    });
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: { title: 'Onramp API', version, description: 'Driver onboarding: sign-up to approval.' },
        components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      },
      transform: ({ schema: declared, url, route }) => {
        const schema = { ...declared, ...(declared.querystring ? { querystring: queryDocument(app, declared.querystring) } : {}) };
        const { flow } = app.callReader;
        const callName = Object.keys(flow.calls).find((name) => flow.calls[name]?.method === route.method && routePathOf(flow.calls[name].path) === url);
        const body = callName === undefined ? undefined : callBody(flow, callName);
        if (!body) return { schema, url };
        const multipart = flow.calls[callName!]?.encoding === 'multipart';
        return { schema: { ...schema, body, ...(multipart ? { consumes: ['multipart/form-data'] } : {}) }, url };
      },
      // The shared schemas keep their names ("review-queuePage") rather than numbers.
      refResolver: { buildLocalReference: (json, _baseUri, fragment, i) => (typeof json.$id === 'string' ? json.$id : `${fragment}-${i}`) },
    });
    app.get(OPENAPI_ROUTES.document.url, { schema: { hide: true } }, () => app.swagger());
    await app.register(swaggerUi, { routePrefix: OPENAPI_ROUTES.referencePage.url, uiConfig: { validatorUrl: null } });
  },
  { name: 'onramp-openapi' },
);
