/**
 * The checks behind `npm run lint` for the files operations staff edit. Each problem names the
 * file and the place, so a broken edit is found before it reaches a driver: JSON Forms' "no
 * applicable renderer" failure, moved to build time.
 */
import { createAjv } from '../shared/ajv.js';
import { splitSource, type Flow, type FormStep } from '../shared/flow.js';
import { loadFlow, loadSchema, loadUiSchema, schemaNamesOf } from '../shared/projectFiles.js';
import type { Json, JsonObject } from '../shared/schemaFiles.js';
import { STORAGE_KEYS } from '../shared/storageKeys.js';

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** errorMessage keys that are not keywords of the schema they sit in. */
const ERROR_MESSAGE_META = new Set(['_', 'properties', 'items']);

function lintErrorMessages(file: string, node: JsonObject, where: string, problems: string[]): void {
  const messages = node.errorMessage;
  if (isObject(messages)) {
    for (const keyword of Object.keys(messages)) {
      if (ERROR_MESSAGE_META.has(keyword)) continue;
      if (!(keyword in node)) {
        problems.push(`${file}: at ${where || '/'}: errorMessage.${keyword} has no "${keyword}" rule beside it`);
      }
    }
  }
  if (isObject(node.properties)) {
    for (const [name, child] of Object.entries(node.properties)) {
      if (isObject(child)) lintErrorMessages(file, child, `${where}/properties/${name}`, problems);
    }
  }
}

/** A step schema: compiles strictly, and every required field has its message. */
export function lintSchema(name: string, schema: JsonObject): string[] {
  const file = `schemas/${name}.schema.json`;
  const problems: string[] = [];
  try {
    createAjv({ strict: true }).compile(schema);
  } catch (error) {
    problems.push(`${file}: ${(error as Error).message}`);
  }
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  const requiredMessages = isObject(schema.errorMessage) && isObject(schema.errorMessage.required) ? schema.errorMessage.required : {};
  for (const field of required) {
    if (typeof field !== 'string') continue;
    if (!(field in properties)) problems.push(`${file}: at /required: "${field}" is not a property`);
    if (!(field in requiredMessages)) problems.push(`${file}: at /errorMessage/required: no message for required field "${field}"`);
  }
  lintErrorMessages(file, schema, '', problems);
  return problems;
}

/** A UI schema: keys name properties, widgets are registered, the order lists real fields. */
export function lintUiSchema(name: string, uiSchema: JsonObject, schema: JsonObject, widgetNames: string[]): string[] {
  const file = `schemas/${name}.ui.json`;
  const problems: string[] = [];
  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const [key, value] of Object.entries(uiSchema)) {
    if (key.startsWith('ui:')) continue;
    if (!(key in properties)) problems.push(`${file}: at /${key}: "${key}" is not a field of schemas/${name}.schema.json`);
    const widget = isObject(value) ? value['ui:widget'] : undefined;
    if (typeof widget === 'string' && !widgetNames.includes(widget)) {
      problems.push(`${file}: at /${key}/ui:widget: no widget "${widget}" is registered (widgets/index.ts has ${widgetNames.join(', ')})`);
    }
  }
  const order = uiSchema['ui:order'];
  if (Array.isArray(order)) {
    for (const entry of order) {
      if (entry !== '*' && (typeof entry !== 'string' || !(entry in properties))) {
        problems.push(`${file}: at /ui:order: "${String(entry)}" is not a field`);
      }
    }
  }
  return problems;
}

const isImageField = (schema: JsonObject, field: string) => {
  const property = isObject(schema.properties) ? schema.properties[field] : undefined;
  return isObject(property) && typeof property.pattern === 'string' && property.pattern.startsWith('^image/');
};

/** The flow's references: steps, calls, storage keys, screens, routes and payload fields. */
export function lintFlow(flow: Flow, schemas: Record<string, JsonObject>, screenNames: string[]): string[] {
  const file = 'flows/onboarding.flow.json';
  const problems: string[] = [];
  const stepIds = Object.keys(flow.steps);
  const checkStep = (id: string, where: string) => {
    if (stepIds.includes(id)) return;
    problems.push(`${file}: at ${where}: no step "${id}"`);
  };
  const checkSource = (source: string, where: string) => {
    const { kind, path } = splitSource(source);
    if (kind === 'storage' && !(STORAGE_KEYS as readonly string[]).includes(path[0] ?? '')) {
      problems.push(`${file}: at ${where}: "${path[0]}" is not a storage key (${STORAGE_KEYS.join(', ')})`);
    }
  };
  const checkCall = (name: string, where: string) => {
    if (!Object.hasOwn(flow.calls, name)) problems.push(`${file}: at ${where}: no call "${name}"`);
  };
  const checkStore = (store: Record<string, string> | undefined, where: string) => {
    for (const [target, source] of Object.entries(store ?? {})) {
      checkSource(target, `${where}/${target}`);
      checkSource(source, `${where}/${target}`);
    }
  };
  const checkRules = (rules: { to: string }[] | undefined, where: string) =>
    (rules ?? []).forEach((rule, i) => checkStep(rule.to, `${where}/${i}/to`));

  checkStep(flow.start, '/start');
  const routes = new Map<string, string>();
  const checkRoute = (route: string, where: string) => {
    const other = routes.get(route);
    if (other) problems.push(`${file}: at ${where}: route "${route}" is ${other}'s already`);
    else routes.set(route, where);
  };
  flow.resume.forEach((rule, i) => {
    checkStep(rule.to, `/resume/${i}/to`);
    checkStore(rule.store, `/resume/${i}/store`);
  });
  if (flow.resume.at(-1)?.when?.length) {
    problems.push(`${file}: at /resume: the last row must have no "when", so every status leads somewhere`);
  }

  for (const [name, call] of Object.entries(flow.calls)) {
    for (const [key, field] of Object.entries(call.payload ?? {})) checkSource(field.from, `/calls/${name}/payload/${key}`);
  }

  for (const [id, step] of Object.entries(flow.steps)) {
    const at = `/steps/${id}`;
    checkRoute(step.route, `${at}/route`);
    for (const [i, guard] of (step.guards ?? []).entries()) {
      checkStep(guard.to, `${at}/guards/${i}/to`);
      checkSource(guard.require, `${at}/guards/${i}/require`);
    }
    checkRules(step.next, `${at}/next`);
    if (step.kind === 'screen') {
      if (!screenNames.includes(step.screen)) {
        problems.push(`${file}: at ${at}/screen: no screen "${step.screen}" (src/client/screens has ${screenNames.join(', ')})`);
      }
      if (step.call) checkCall(step.call, `${at}/call`);
      if (step.content?.action) checkStep(step.content.action.to, `${at}/content/action/to`);
      if (step.rejected) checkStep(step.rejected.action.to, `${at}/rejected/action/to`);
      if (step.poll) {
        checkCall(step.poll.call, `${at}/poll/call`);
        checkRules(step.poll.next, `${at}/poll/next`);
      }
      for (const target of step.onEnter?.clear ?? []) checkSource(target, `${at}/onEnter/clear`);
      checkStore(step.store, `${at}/store`);
      if (step.onError) checkStep(step.onError.to, `${at}/onError/to`);
      continue;
    }
    if (step.social) {
      checkCall(step.social.call, `${at}/social/call`);
      checkStore(step.social.store, `${at}/social/store`);
      checkRules(step.social.next, `${at}/social/next`);
    }
    problems.push(...lintFormStep(file, id, step, flow, schemas, checkCall, checkStep, checkSource));
  }
  return problems;
}

function lintFormStep(
  file: string,
  id: string,
  step: FormStep,
  flow: Flow,
  schemas: Record<string, JsonObject>,
  checkCall: (name: string, where: string) => void,
  checkStep: (id: string, where: string) => void,
  checkSource: (source: string, where: string) => void,
): string[] {
  const problems: string[] = [];
  const at = `/steps/${id}`;
  checkCall(step.call, `${at}/call`);
  for (const [i, after] of (step.after ?? []).entries()) {
    checkCall(after.call, `${at}/after/${i}/call`);
    if (after.onError) checkStep(after.onError.to, `${at}/after/${i}/onError/to`);
  }
  for (const [i, action] of (step.actions ?? []).entries()) checkCall(action.call, `${at}/actions/${i}/call`);
  for (const [target, source] of Object.entries(step.store ?? {})) {
    checkSource(target, `${at}/store/${target}`);
    checkSource(source, `${at}/store/${target}`);
  }
  const call = flow.calls[step.call];
  if (!call) return problems;
  const names = [step.schema, ...(step.variants ?? []).map((v) => v.schema)];
  const mapped = new Map<string, string>();
  for (const [key, field] of Object.entries(call.payload ?? {})) {
    const { kind, path } = splitSource(field.from);
    if (kind === 'form' || kind === 'file') mapped.set(path.join('.'), `${kind}:${key}`);
  }
  // Every form field must reach the payload, and every payload field must exist in some variant.
  const allFields = new Set<string>();
  for (const name of names) {
    const schema = schemas[name];
    if (!schema) continue;
    const properties = isObject(schema.properties) ? Object.keys(schema.properties) : [];
    for (const field of properties) {
      allFields.add(field);
      const how = mapped.get(field);
      if (!how) problems.push(`${file}: at /calls/${step.call}/payload: field "${field}" of schemas/${name}.schema.json is never sent`);
      else if (how.startsWith('file:') !== isImageField(schema, field)) {
        problems.push(`${file}: at /calls/${step.call}/payload: "${field}" must come from ${isImageField(schema, field) ? 'file' : 'form'}.${field}`);
      }
    }
  }
  for (const field of mapped.keys()) {
    if (!allFields.has(field)) problems.push(`${file}: at /calls/${step.call}/payload: "${field}" is not a field of step ${id}'s schemas`);
  }
  return problems;
}

/** Everything: the flow, then each schema and UI schema it renders. */
export function lintProject(widgetNames: string[], screenNames: string[]): string[] {
  let flow: Flow;
  try {
    flow = loadFlow();
  } catch (error) {
    return [(error as Error).message];
  }
  const problems: string[] = [];
  const schemas: Record<string, JsonObject> = {};
  for (const name of schemaNamesOf(flow)) {
    try {
      const schema = loadSchema(name);
      schemas[name] = schema;
      problems.push(...lintSchema(name, schema));
      problems.push(...lintUiSchema(name, loadUiSchema(name), schema, widgetNames));
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  problems.push(...lintFlow(flow, schemas, screenNames));
  return problems;
}
