/**
 * `npm run types`: the TypeScript types of every contract, generated from the JSON Schema that
 * states it, into src/shared/generated/. `npm run lint` runs it before the type check, so a field
 * renamed in a schema fails the type check wherever the old name is still used.
 *
 * The contracts: the flow file, the notices, the step forms' values, the values a call sends
 * besides a form, the payment sandbox's words and the admin API's requests and answers.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { FLOW_FILE, loadFlow, PROJECT_ROOT } from '../node/projectFiles.js';
import { isObject, type Json, type JsonObject } from '../shared/schemaFiles.js';

const OUT_DIR = join(PROJECT_ROOT, 'src', 'shared', 'generated');
const SCHEMAS_DIR = join(PROJECT_ROOT, 'schemas');

/** One generated file: the schemas it is made from, each with the name of its root type. */
interface Contract {
  file: string;
  about: string;
  schemas: { path: string; type: string }[];
  /** More declarations, made from the project's data. */
  extra?: () => string;
  /** The types of another contract its schemas refer to ("review#/$defs/driverStatus"), imported from its generated file. */
  imports?: string;
}

const pascal = (name: string) => name.replace(/(^|[-_.])(\w)/g, (_whole, _sep, letter: string) => letter.toUpperCase());

/** The step forms: every schema in schemas/ but the shared definitions and the call context. */
const formSchemas = () =>
  readdirSync(SCHEMAS_DIR)
    .filter((name) => name.endsWith('.schema.json') && name !== 'common.schema.json' && name !== 'call-context.schema.json')
    .sort()
    .map((name) => ({ path: join(SCHEMAS_DIR, name), type: `${pascal(basename(name, '.schema.json'))}Form` }));

/**
 * The form each call of the flow sends, by call name (a step with variants: any of its forms), so a
 * route that reads a call's form is typed by the schemas that call's step renders.
 */
function callForms(): string {
  const flow = loadFlow();
  const typeOf = new Map(formSchemas().map(({ path, type }) => [basename(path, '.schema.json'), type]));
  const lines = Object.values(flow.steps).flatMap((step) => {
    if (step.kind !== 'form' || step.private) return [];
    const names = [step.schema, ...(step.variants ?? []).map((variant) => variant.schema)];
    return [`  ${step.call}: ${[...new Set(names.map((name) => typeOf.get(name)))].join(' | ')};`];
  });
  return `/** The form each call of ${relative(PROJECT_ROOT, FLOW_FILE)} sends, by call name. */\nexport interface CallForms {\n${lines.join('\n')}\n}\n`;
}

/**
 * Each list a review contract defines (a $def that is an enum of texts: staffRole, reviewStatus…)
 * as a constant too (STAFF_ROLES, REVIEW_STATUSES…), for the code that goes through its values:
 * the schema is the one list.
 */
function reviewLists(): string {
  const schema = JSON.parse(readFileSync(REVIEW_SCHEMA, 'utf8')) as { $defs: Record<string, Json> };
  return Object.entries(schema.$defs)
    .flatMap(([name, def]) => {
      if (!isObject(def) || !Array.isArray(def.enum) || !def.enum.every((value) => typeof value === 'string')) return [];
      const constant = `${name.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}${name.endsWith('s') ? 'ES' : 'S'}`;
      const declare = (values: string) => `export const ${constant} = [${values}] as const satisfies readonly ${pascal(name)}[];`;
      const values = def.enum.map((value) => `'${value}'`);
      // As the formatter lays it out: on one line if it fits in 160 characters, else one value a line.
      const line = declare(values.join(', '));
      return [
        `/** Every value of ${name}, in the schema's order. */\n${line.length <= 160 ? line : declare(`\n${values.map((value) => `  ${value},\n`).join('')}`)}\n`,
      ];
    })
    .join('\n');
}

const REVIEW_SCHEMA = join(PROJECT_ROOT, 'src', 'shared', 'review.schema.json');

export const CONTRACTS = (): Contract[] => [
  { file: 'flow.ts', about: 'The flow file', schemas: [{ path: join(PROJECT_ROOT, 'flows', 'flow.schema.json'), type: 'Flow' }] },
  {
    file: 'notices.ts',
    about: 'What drivers are told by email and text message',
    schemas: [{ path: join(PROJECT_ROOT, 'flows', 'notices.schema.json'), type: 'Notices' }],
  },
  {
    file: 'serverMessages.ts',
    about: 'What the server answers a driver in',
    schemas: [{ path: join(PROJECT_ROOT, 'flows', 'server-messages.schema.json'), type: 'ServerMessages' }],
  },
  {
    file: 'sandboxPayments.ts',
    about: "The payment sandbox's test cards and words",
    schemas: [{ path: join(PROJECT_ROOT, 'flows', 'sandbox-payments.schema.json'), type: 'SandboxPayments' }],
  },
  { file: 'forms.ts', about: "Each step form's values, as its schema accepts them", schemas: formSchemas(), extra: callForms },
  {
    file: 'callContext.ts',
    about: 'What a call sends besides a form',
    schemas: [{ path: join(SCHEMAS_DIR, 'call-context.schema.json'), type: 'CallContext' }],
  },
  {
    file: 'clientErrorReport.ts',
    about: "A fault of the browser app's own code, as the page reports it",
    schemas: [{ path: join(PROJECT_ROOT, 'src', 'shared', 'clientErrorReport.schema.json'), type: 'ClientErrorReport' }],
  },
  {
    file: 'review.ts',
    about: "The admin API's requests and answers and a step's stored answers",
    schemas: [{ path: REVIEW_SCHEMA, type: 'Review' }],
    extra: reviewLists,
  },
  {
    file: 'webhookEvents.ts',
    about: 'What the signed webhooks tell',
    schemas: [{ path: join(PROJECT_ROOT, 'src', 'shared', 'webhookEvents.schema.json'), type: 'WebhookEvent' }],
  },
  {
    file: 'webhooks.ts',
    about: "The webhooks' admin API: endpoints, secrets and deliveries",
    schemas: [{ path: join(PROJECT_ROOT, 'src', 'shared', 'webhooks.schema.json'), type: 'Webhooks' }],
  },
  {
    file: 'api.ts',
    about: "The answers of the driver API and the server's own routes",
    schemas: [{ path: join(PROJECT_ROOT, 'src', 'shared', 'api.schema.json'), type: 'Api' }],
    imports: "import type { DriverStatus, ReturnUrls } from './review.js';\n",
  },
];

/**
 * The schema as a type describes it. Some keywords only check values and would mislead the
 * generator: a `const` that compares with another field (`{ "$data": "1/password" }`) and a
 * `oneOf` whose branches only say which of the properties must be present (the properties stay
 * optional in the type). A `$ref` beside its own properties (a variant extending a form)
 * becomes the `allOf` it means.
 */
function forTypes(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(forTypes);
  if (!isObject(schema)) return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'const' && isObject(value) && '$data' in value) continue;
    if ((key === 'oneOf' || key === 'anyOf') && Array.isArray(value) && value.every(onlyRequires)) continue;
    out[key] = forTypes(value);
  }
  // Another contract's definition is that contract's generated type (the contract imports it).
  const other = typeof out.$ref === 'string' ? /^review#\/\$defs\/(\w+)$/.exec(out.$ref)?.[1] : undefined;
  if (other) return { tsType: pascal(other) };
  if (typeof out.$ref === 'string') {
    const { $ref, ...rest } = out;
    // Notes beside a reference would make the generator declare the referenced type once more.
    if (Object.keys(rest).every((key) => ANNOTATIONS.has(key))) return { $ref };
    if (isObject(out.properties)) return { allOf: [{ $ref }, rest] };
  }
  return out;
}

const ANNOTATIONS = new Set(['$comment', 'description', 'title', 'examples']);

const onlyRequires = (branch: Json) =>
  isObject(branch) && Object.keys(branch).every((key) => key === 'required' || key === 'properties') && Array.isArray(branch.required);

async function typesOf(path: string, type: string): Promise<string> {
  const schema = forTypes(JSON.parse(readFileSync(path, 'utf8')) as Json) as JSONSchema;
  const types = await compile(schema, type, {
    bannerComment: '',
    cwd: dirname(path),
    additionalProperties: false,
    ignoreMinAndMaxItems: true,
    strictIndexSignatures: false,
    unknownAny: true,
    // Every definition, used or not: a contract file may be only its $defs (src/shared/review.schema.json).
    unreachableDefinitions: true,
    style: { singleQuote: true, printWidth: 160, semi: true, trailingComma: 'all', tabWidth: 2 },
  });
  // A file of definitions only has no root type of its own: the generator's catch-all for it is left out.
  return types.replace(new RegExp(`export interface ${type} \\{\\n  \\[k: string\\]: unknown;\\n\\}\\n`), '');
}

/** The generated files by path, as they should be. */
export async function generateContractTypes(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const contract of CONTRACTS()) {
    const sources = contract.schemas.map((schema) => relative(PROJECT_ROOT, schema.path)).join(', ');
    const parts = [
      `// ${contract.about}: generated by \`npm run types\` from ${sources}. Edit the schema, not this file.\n`,
      ...(contract.imports ? [contract.imports] : []),
    ];
    for (const schema of contract.schemas) parts.push(await typesOf(schema.path, schema.type));
    if (contract.extra) parts.push(contract.extra());
    files.set(join(OUT_DIR, contract.file), parts.join('\n'));
  }
  return files;
}

if (process.argv[1] && import.meta.url.endsWith(basename(process.argv[1]))) {
  mkdirSync(OUT_DIR, { recursive: true });
  for (const [path, text] of await generateContractTypes()) writeFileSync(path, text);
}
