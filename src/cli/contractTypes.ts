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
 * Each list an API contract defines (a $def that is an enum of texts: staffRole, reviewStatus…)
 * as a constant too (STAFF_ROLES, REVIEW_STATUSES…), in the contract's own generated file, for the
 * code that goes through its values: the schema is the one list.
 */
const listsOf = (path: string) => (): string => {
  const schema = JSON.parse(readFileSync(path, 'utf8')) as { $defs: Record<string, Json> };
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
};

/** The API's contracts, by audience (src/shared/contracts/index.ts): each file's $id is its name. */
const API_CONTRACTS_DIR = join(PROJECT_ROOT, 'src', 'shared', 'contracts');
const apiContract = (id: string, about: string): Contract => {
  const path = join(API_CONTRACTS_DIR, `${id}.schema.json`);
  return { file: `${id}.ts`, about, schemas: [{ path, type: `${pascal(id)}Contract` }], extra: listsOf(path) };
};

/** A reference to another contract by its $id ("driver#/$defs/reviewStatus", as Ajv and Fastify read it): that contract's file and type. */
const OTHER_CONTRACT_REF = /^(\w+)#\/\$defs\/(\w+)$/;

export const CONTRACTS = (): Contract[] => [
  { file: 'flow.ts', about: 'The flow file', schemas: [{ path: join(PROJECT_ROOT, 'flows', 'flow.schema.json'), type: 'Flow' }] },
  {
    file: 'notices.ts',
    about: 'What drivers are told by email and text message',
    schemas: [{ path: join(PROJECT_ROOT, 'flows', 'notices.schema.json'), type: 'Notices' }],
  },
  {
    file: 'serverMessages.ts',
    about: 'What the server answers drivers and staff in',
    schemas: [{ path: join(PROJECT_ROOT, 'flows', 'server-messages.schema.json'), type: 'ServerMessages' }],
  },
  {
    file: 'sandboxPayments.ts',
    about: "The payment sandbox's test cards and words",
    schemas: [{ path: join(PROJECT_ROOT, 'flows', 'sandbox-payments.schema.json'), type: 'SandboxPayments' }],
  },
  {
    file: 'retention.ts',
    about: 'How long each kind of record is kept',
    schemas: [{ path: join(PROJECT_ROOT, 'flows', 'retention.schema.json'), type: 'Retention' }],
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
  apiContract(
    'driver',
    "What the driver's browser reads of the API: their status, a file sent ahead, a step's stored answers, a launch link opened and where they go back",
  ),
  apiContract('review', 'The review queue, a driver as reviewers see them, the decisions and the documents that expire'),
  apiContract(
    'staff',
    'Staff members, their roles, sign-in, keys and the audit record; integrations, their keys and launch links, and what they read of a driver',
  ),
  apiContract('insights', 'The figures of the admin insights and their query'),
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
  const other = typeof out.$ref === 'string' ? OTHER_CONTRACT_REF.exec(out.$ref) : null;
  // Another contract's type is that contract's generated type, imported (typesOf), not declared again.
  if (other) return { tsType: pascal(other[2]!) };
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

/** The imports of the types a contract refers to in others (`OTHER_CONTRACT_REF`). */
function importsOf(text: string): string {
  const byContract = new Map<string, Set<string>>();
  for (const [, ref] of text.matchAll(/"\$ref": "([^"]*)"/g)) {
    const [, id, name] = OTHER_CONTRACT_REF.exec(ref!) ?? [];
    if (id && name) byContract.set(id, (byContract.get(id) ?? new Set()).add(pascal(name)));
  }
  return [...byContract].map(([id, names]) => `import type { ${[...names].sort().join(', ')} } from './${id}.js';\n`).join('');
}

async function typesOf(path: string, type: string): Promise<string> {
  const text = readFileSync(path, 'utf8');
  // Named by `type`, not by its $id: an API contract's $id ("insights") may be the name of one of its definitions.
  const { $id: _id, ...schema } = forTypes(JSON.parse(text) as Json) as JSONSchema;
  const types = await compile(schema, type, {
    bannerComment: '',
    cwd: dirname(path),
    additionalProperties: false,
    ignoreMinAndMaxItems: true,
    strictIndexSignatures: false,
    unknownAny: true,
    // Every definition, used or not: a contract file may be only its $defs (src/shared/contracts/).
    unreachableDefinitions: true,
    style: { singleQuote: true, printWidth: 160, semi: true, trailingComma: 'all', tabWidth: 2 },
  });
  // A file of definitions only has no root type of its own: the generator's catch-all for it is left out.
  return importsOf(text) + types.replace(new RegExp(`export interface ${type} \\{\\n  \\[k: string\\]: unknown;\\n\\}\\n`), '');
}

/** The generated files by path, as they should be. */
export async function generateContractTypes(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const contract of CONTRACTS()) {
    const sources = contract.schemas.map((schema) => relative(PROJECT_ROOT, schema.path)).join(', ');
    const parts = [`// ${contract.about}: generated by \`npm run types\` from ${sources}. Edit the schema, not this file.\n`];
    for (const schema of contract.schemas) parts.push(await typesOf(schema.path, schema.type));
    // A contract may have no list to declare (listsOf): nothing is added then, not an empty line.
    const extra = contract.extra?.();
    if (extra) parts.push(extra);
    files.set(join(OUT_DIR, contract.file), parts.join('\n'));
  }
  return files;
}

if (process.argv[1] && import.meta.url.endsWith(basename(process.argv[1]))) {
  mkdirSync(OUT_DIR, { recursive: true });
  for (const [path, text] of await generateContractTypes()) writeFileSync(path, text);
}
