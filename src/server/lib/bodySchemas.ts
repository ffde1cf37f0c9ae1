/**
 * Request bodies declared as their route's schema (`schema: { body: { $ref: 'staff#/$defs/…' } }`),
 * checked by the one Ajv set-up (shared/ajv.ts, with ajv-errors), so what a refusal says is the
 * schema's own `errorMessage`: 400 { message }. Fastify's default Ajv would drop an unknown
 * property (removeAdditional) and turn "1" into 1 (coerceTypes); this one refuses both.
 *
 * One problem is told, the first in the schema's order: a body that is no object or has a name it
 * does not take, then its properties as the schema lists them, then the rules across them (anyOf),
 * then what is missing. A message's {placeholders} are filled from the body: `{name}` with the
 * unknown name, others with the values of the object the problem is in ("{step} {field}").
 * An absent body is an empty object, so it is told what it lacks.
 */
import type Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { httpErrors } from '@fastify/sensible';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { createAjv, sharedAjv } from '../../shared/ajv.js';
import { fillPlaceholders } from '../../shared/placeholders.js';
import { isObject, type Json, type JsonObject } from '../../shared/schemaFiles.js';
import clientErrorReportSchema from '../../shared/clientErrorReport.schema.json';
import { API_CONTRACTS } from '../../shared/contracts/index.js';
import webhooksSchema from '../../shared/webhooks.schema.json';

/** Where a problem comes in the order it is told: by what the error is about (`ErrorObject.keyword` of the error ajv-errors replaced). */
const ROOT_ORDER = ['type', 'propertyNames'];
const LATE_ORDER = ['anyOf', 'required'];

/** What an error is about: the keyword Ajv reported under ajv-errors' replacement of it, or the rule on names it came from. */
function keywordOf(error: ErrorObject): string {
  if (error.schemaPath.includes('/propertyNames/')) return 'propertyNames';
  return error.keyword === 'errorMessage' ? ((error.params as { errors?: ErrorObject[] }).errors?.[0]?.keyword ?? error.keyword) : error.keyword;
}

function rankOf(error: ErrorObject, properties: string[]): number {
  const [, first] = error.instancePath.split('/');
  if (first !== undefined) return ROOT_ORDER.length + Math.max(0, properties.indexOf(first));
  const keyword = keywordOf(error);
  if (ROOT_ORDER.includes(keyword)) return ROOT_ORDER.indexOf(keyword);
  return ROOT_ORDER.length + properties.length + (LATE_ORDER.includes(keyword) ? LATE_ORDER.indexOf(keyword) : LATE_ORDER.length);
}

/** The values a message about `error` may name: the unknown name, and those of each object on its way into the body. */
function valuesFor(error: ErrorObject, body: unknown): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  if (keywordOf(error) === 'propertyNames' && typeof error.data === 'string') values.name = error.data;
  let node = body as Json | undefined;
  for (const key of ['', ...error.instancePath.split('/').slice(1)]) {
    if (key !== '') node = isObject(node) ? node[key] : Array.isArray(node) ? node[Number(key)] : undefined;
    if (isObject(node)) for (const [name, value] of Object.entries(node)) if (typeof value === 'string') values[name] ??= value;
  }
  return values;
}

/** The refusal of a body, from the problems `validate` found: the first in the schema's order, in its words. */
function refusalOf(validate: ValidateFunction, body: unknown) {
  const schema = validate.schema as JsonObject;
  const properties = Object.keys(isObject(schema.properties) ? schema.properties : {});
  const errors = [...(validate.errors ?? [])].sort((a, b) => rankOf(a, properties) - rankOf(b, properties));
  // Each error ajv-errors kept has its message replaced; one it did not is told in Ajv's words.
  const first = errors.find((error) => error.keyword === 'errorMessage') ?? errors[0];
  const message = first?.keyword === 'errorMessage' ? first.message! : `${first?.instancePath || 'The request body'} ${first?.message ?? 'is not valid'}`;
  return httpErrors.badRequest(fillPlaceholders(message, valuesFor(first!, body)));
}

/**
 * The process's Ajv with the contracts for every app the process builds, each contract compiled
 * the first time a route asks for it: setting up an Ajv costs more than the rest of building the
 * app, which the lint does at each run (and `npm run dev`'s lint at each save).
 */
let contractsAdded = false;
function ajvWithContracts(): Ajv {
  const ajv = sharedAjv();
  if (!contractsAdded) ajv.addSchema([...API_CONTRACTS, clientErrorReportSchema, webhooksSchema]);
  contractsAdded = true;
  return ajv;
}

/** The Ajv for query strings: the same contracts, each value read as the type its schema says ("20" as 20), a repeated name refused. */
let queryAjv: Ajv | undefined;
function ajvForQueries(): Ajv {
  return (queryAjv ??= createAjv({ coerceTypes: true }).addSchema([...API_CONTRACTS, webhooksSchema]));
}

/**
 * The routes of `app` (an encapsulated plugin) check their bodies by their declared schemas, the
 * contracts of src/shared/contracts/, src/shared/clientErrorReport.schema.json and
 * src/shared/webhooks.schema.json, and their query strings the same way (`schema: { querystring: { $ref: … } }`): a bad one is a 400 { message }
 * in the contract's words.
 */
export function checkBodiesBySchema(app: FastifyInstance): void {
  const contracts = ajvWithContracts();
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === 'querystring' ? ajvForQueries() : contracts;
    const { $ref } = schema as FastifySchema & { $ref?: string };
    const validate = ($ref ? ajv.getSchema($ref) : undefined) ?? ajv.compile(schema);
    return (data: unknown) => {
      const body = data ?? {};
      return validate(body) ? { value: body } : { error: refusalOf(validate, body) };
    };
  });
}
