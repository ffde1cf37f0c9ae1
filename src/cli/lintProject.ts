/**
 * The checks behind `npm run lint:schemas`, for the files operations staff edit: every schema
 * and UI schema of schemas/ and the flow. Each problem names the file, the place and the fix,
 * so a broken edit is found in seconds, not by a driver. The project's root is a parameter: the
 * tests lint edited copies.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Flow } from '../shared/flow.js';
import { schemaNamesOf } from '../shared/projectFiles.js';
import { bundleSchema, SchemaFileError, type JsonObject } from '../shared/schemaFiles.js';
import { checkFlow, FLOW_FILE } from './lint/flowChecks.js';
import { parseJsonObject, readProjectFile } from './lint/jsonFiles.js';
import { pointer, pointerKeys, Problems, suggestion, type Problem } from './lint/problems.js';
import { checkCompiles, checkSchemaRules, valueAt } from './lint/schemaChecks.js';
import { SchemaChecker } from './lint/schemaProblems.js';
import { checkServedCalls } from './lint/serverRoutes.js';
import { checkUiSchema } from './lint/uiChecks.js';

/** What the code registers, that the files may name. */
export interface Registry {
  /** widgets/index.ts */
  widgets: string[];
  /** src/client/screens/index.ts */
  screens: string[];
}

/** The schemas that describe the files, for editors and for this lint. */
export const FLOW_SCHEMA_FILE = 'flows/flow.schema.json';
export const STEP_META_FILE = 'schemas/meta/step-schema.json';
export const UI_META_FILE = 'schemas/meta/ui-schema.json';

const SCHEMA_SUFFIX = '.schema.json';
const UI_SUFFIX = '.ui.json';

function readJson(root: string, file: string, problems: Problems, missing: string): JsonObject | undefined {
  const text = readProjectFile(root, file);
  if (text === undefined) {
    problems.add(file, '/', 'file not found', missing);
    return undefined;
  }
  return parseJsonObject(file, text, problems);
}

/** Checkers by their schema's file and text: compiling one takes a while, and the tests lint many copies. */
const checkers = new Map<string, SchemaChecker>();

function checkerFor(root: string, file: string, noun: string, problems: Problems): SchemaChecker | undefined {
  const schema = readJson(root, file, problems, 'restore it (git checkout) — editors and the lint need it');
  if (!schema) return undefined;
  const key = `${file}\n${JSON.stringify(schema)}`;
  let checker = checkers.get(key);
  if (!checker) {
    checker = new SchemaChecker(schema, file, noun);
    checkers.set(key, checker);
  }
  return checker;
}

/** A form step missing "next" gets the flow check's own message (it may end the journey instead). */
const isMissingNext = (flow: JsonObject) => (error: { keyword: string; instancePath: string; params: Record<string, unknown> }) => {
  const [steps, id, ...rest] = pointerKeys(error.instancePath);
  const step = steps === 'steps' && id !== undefined ? valueAt(flow, ['steps', id]) : undefined;
  return error.keyword === 'required' && error.params.missingProperty === 'next' && rest.length === 0 && valueAt(step ?? null, ['kind']) === 'form';
};

export async function lintProject(root: string, registry: Registry): Promise<Problem[]> {
  const problems = new Problems();
  const stepChecker = checkerFor(root, STEP_META_FILE, 'keyword', problems);
  const uiChecker = checkerFor(root, UI_META_FILE, 'key', problems);
  const flowChecker = checkerFor(root, FLOW_SCHEMA_FILE, 'key', problems);
  const keywordSchemas = valueAt(stepChecker?.schema ?? null, ['properties']);
  const keywords = new Set(keywordSchemas && typeof keywordSchemas === 'object' ? Object.keys(keywordSchemas) : []);

  // schemas/ itself, not below: schemas/meta/ describes the files, it holds no step.
  const fileNames = readdirSync(join(root, 'schemas'))
    .filter((name) => name.endsWith(SCHEMA_SUFFIX) || name.endsWith(UI_SUFFIX))
    .sort();
  /** By file name: the parsed file, or null when it is not JSON. */
  const sources = new Map<string, JsonObject | null>();
  for (const name of fileNames) {
    const file = `schemas/${name}`;
    sources.set(name, parseJsonObject(file, readProjectFile(root, file) ?? '', problems) ?? null);
  }

  const reportRef = (error: SchemaFileError) => {
    const file = `schemas/${error.file}`;
    const keys = [...pointerKeys(error.where), '$ref'];
    const ref = valueAt(sources.get(error.file) ?? null, keys);
    const [target = '', fragment = ''] = typeof ref === 'string' ? ref.split('#') : [];
    if (error.problem.startsWith('circular')) problems.add(file, pointer(...keys), error.problem, 'remove the loop: a file cannot build on itself');
    else if (typeof ref !== 'string' || ref.startsWith('#')) problems.add(file, pointer(...keys), error.problem, 'write "<file>.schema.json#/$defs/<name>"');
    else if (!sources.has(target)) problems.add(file, pointer(...keys), `"$ref" names schemas/${target}, which does not exist`, suggestion(target, [...sources.keys()]));
    else if (sources.get(target)) {
      const defs = valueAt(sources.get(target) ?? null, ['$defs']);
      const names = defs && typeof defs === 'object' && !Array.isArray(defs) ? Object.keys(defs) : [];
      problems.add(file, pointer(...keys), `"$ref" "${ref}" points at nothing`, `${suggestion(pointerKeys(fragment).at(-1) ?? '', names)} (the $defs of ${target})`);
    }
    // A target that is not JSON has its own problem already.
  };
  const bundled = new Map<string, JsonObject | null>();
  const bundle = (name: string): JsonObject | null => {
    if (!bundled.has(name)) {
      let result: JsonObject | null = null;
      try {
        if (sources.get(name)) {
          result = bundleSchema(name, (fileName) => {
            const source = sources.get(fileName);
            if (!source) throw new Error(`schemas/${fileName} cannot be read`);
            return source;
          });
        }
      } catch (error) {
        if (!(error instanceof SchemaFileError)) throw error;
        reportRef(error);
      }
      bundled.set(name, result);
    }
    return bundled.get(name) ?? null;
  };

  for (const name of fileNames) {
    const file = `schemas/${name}`;
    const source = sources.get(name);
    if (!source) continue;
    // The specific checks first: the describing schema's own report of the same place is left out.
    if (name.endsWith(SCHEMA_SUFFIX)) {
      const schema = bundle(name);
      if (schema) checkSchemaRules(file, source, schema, keywords, problems);
      stepChecker?.check(file, source, problems);
      if (schema && !problems.hasAny(file)) checkCompiles(file, schema, problems);
    } else {
      const schemaName = name.replace(UI_SUFFIX, SCHEMA_SUFFIX);
      if (!sources.has(schemaName)) {
        const steps = [...sources.keys()].filter((n) => n.endsWith(SCHEMA_SUFFIX)).map((n) => n.replace(SCHEMA_SUFFIX, UI_SUFFIX));
        problems.add(file, '/', `there is no schemas/${schemaName} for this UI schema`, `name it after its step schema: ${suggestion(name, steps)}`);
      } else {
        const ui = bundle(name);
        const schema = bundle(schemaName);
        if (ui && schema) checkUiSchema(file, `schemas/${schemaName}`, source, ui, schema, registry.widgets, problems);
      }
      uiChecker?.check(file, source, problems);
    }
  }

  const flowJson = readJson(root, FLOW_FILE, problems, 'restore it (git checkout)');
  if (flowJson) {
    flowChecker?.check(FLOW_FILE, flowJson, problems, isMissingNext(flowJson));
    // The references are checked once the flow has the shape they are read from.
    if (!problems.hasAny(FLOW_FILE)) {
      const flow = flowJson as unknown as Flow;
      const stepSchemas = new Map<string, JsonObject | null>();
      for (const name of sources.keys()) if (name.endsWith(SCHEMA_SUFFIX)) stepSchemas.set(name.replace(SCHEMA_SUFFIX, ''), bundle(name));
      checkFlow(flow, { schemas: stepSchemas, screenNames: registry.screens }, problems);
      for (const name of schemaNamesOf(flow)) {
        if (stepSchemas.has(name) && !sources.has(`${name}${UI_SUFFIX}`)) {
          problems.add(`schemas/${name}${UI_SUFFIX}`, '/', 'file not found', `every step schema needs its UI schema: create it beside schemas/${name}${SCHEMA_SUFFIX}`);
        }
      }
      if (!problems.hasAny(FLOW_FILE)) await checkServedCalls(flow, problems);
    }
  }

  // By file, each file's problems in the order they were found.
  return problems.list.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}
