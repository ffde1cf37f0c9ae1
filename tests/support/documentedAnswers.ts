/**
 * Every answer a test's server sends, checked against what the API's document (/openapi.json, made
 * from the routes' schemas) says the route answers with that status: a JSON answer must match the
 * documented schema, any other answer must be of a documented content type. A mismatch fails the
 * request the test made, naming the route, the status and what differs.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { OPENAPI_PATH } from '../../src/server/plugins/openApi.js';

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: object }> }>;
}
type Document = { paths: Record<string, Record<string, Operation>> };

/** The document's paths as patterns, the ones with fewer parameters first ("/admin/staff" before "/admin/{id}"). */
function pathMatcher(document: Document): (path: string) => string | undefined {
  const patterns = Object.keys(document.paths)
    .map((template) => ({ template, params: (template.match(/\{/g) ?? []).length, pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`) }))
    .sort((a, b) => a.params - b.params);
  return (path) => patterns.find(({ pattern }) => pattern.test(path))?.template;
}

/** What tells whether an answer is the documented one: a problem, or null. */
type ProblemOf = (method: string, url: string, response: LightMyRequestResponse) => string | null;

/**
 * The check of one document, made once per process for each document's text: the apps of a test
 * worker (one or more per file, and every file of the worker) mostly serve the same document, and
 * each compiled the same answer schemas again.
 */
const checksByDocument = new Map<string, ProblemOf>();

function checkOf(text: string): ProblemOf {
  let check = checksByDocument.get(text);
  if (!check) checksByDocument.set(text, (check = documentCheck(JSON.parse(text) as Document)));
  return check;
}

function documentCheck(document: Document): ProblemOf {
  const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document as object, 'openapi');
  const templateOf = pathMatcher(document);
  const validators = new Map<string, ValidateFunction>();

  return (method, url, response) => {
    // As the request goes out: ".." folded by the URL parser ("/admin/uploads/.." asks for /admin/, the page).
    const path = new URL(url, 'http://localhost').pathname;
    const template = templateOf(path);
    const operation = template === undefined ? undefined : document.paths[template]?.[method.toLowerCase()];
    // Not a documented route: the web app, the document itself, an unknown path's 404.
    if (!operation) return null;
    const status = String(response.statusCode);
    const documented = operation.responses[status] ?? operation.responses[`${status[0]}XX`];
    const name = `${method} ${template} ${status}`;
    if (!documented) return `${name}: no such answer is documented`;
    if (response.body === '') return null;
    const type = String(response.headers['content-type'] ?? '').split(';')[0]!;
    const content = documented.content ?? {};
    const schema = content[type]?.schema ?? Object.entries(content).find(([range]) => range.endsWith('/*') && type.startsWith(range.slice(0, -1)))?.[1].schema;
    if (!schema) return `${name}: ${type} is not among its documented types (${Object.keys(content).join(', ')})`;
    if (type !== 'application/json') return null;
    const key = `${name} ${type}`;
    let validate = validators.get(key);
    if (!validate) {
      validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')) as object);
      validators.set(key, validate);
    }
    if (validate(response.json())) return null;
    return `${name}: the answer does not match its documented schema: ${ajv.errorsText(validate.errors)}\n${response.body.slice(0, 2000)}`;
  };
}

/** Checks each answer `app` sends through `inject` (the way the tests call it). */
export async function checkAnswersAgainstTheDocument(app: FastifyInstance): Promise<void> {
  const problemOf = checkOf((await app.inject({ method: 'GET', url: OPENAPI_PATH })).body);
  const inject = app.inject.bind(app);
  const checked = async (options: InjectOptions | string) => {
    const response = await inject(options);
    const { method = 'GET', url = '/' } = typeof options === 'string' ? { url: options } : { method: options.method, url: options.url ?? options.path };
    const problem = problemOf(String(method).toUpperCase(), String(typeof url === 'object' ? url.pathname : url), response);
    if (problem) throw new Error(problem);
    return response;
  };
  app.inject = checked as FastifyInstance['inject'];
}
