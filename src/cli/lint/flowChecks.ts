/**
 * The flow's references, once the flow matches flows/flow.schema.json: steps, calls, schemas,
 * screens, storage keys and payload fields exist; every step can be reached and every form step
 * leads on. References are found by their key wherever a step holds them ("to" names a step,
 * "call" a call), so a new kind of rule or action is checked without changing this file.
 */
import { join } from 'node:path';
import { PROJECT_ROOT, readJsonFile } from '../../node/projectFiles.js';
import { funnelSteps } from '../../server/lib/insights.js';
import { splitSource, type Flow, type FormStep } from '../../shared/flow.js';
import { isObject, sensitiveFieldsOf, type Json, type JsonObject } from '../../shared/schemaFiles.js';
import { STORAGE_KEYS } from '../../shared/storageKeys.js';
import { isPhotoField } from './fieldKinds.js';
import { closest, pointer, suggestion, type Problems } from './problems.js';

export const FLOW_FILE = 'flows/onboarding.flow.json';

interface Reference {
  keys: string[];
  name: string;
}

/** Every string under `key` in a part of the flow, with its place. */
function referencesIn(node: Json | undefined, key: string, keys: string[], found: Reference[] = []): Reference[] {
  if (Array.isArray(node)) node.forEach((child, i) => referencesIn(child, key, [...keys, String(i)], found));
  else if (isObject(node)) {
    for (const [k, value] of Object.entries(node)) {
      if (k === key && typeof value === 'string') found.push({ keys: [...keys, k], name: value });
      else referencesIn(value, key, [...keys, k], found);
    }
  }
  return found;
}

/** Every string of a part of the flow, keys included, with its place. */
function textsIn(node: Json | undefined, keys: string[], found: Reference[] = []): Reference[] {
  if (typeof node === 'string') found.push({ keys, name: node });
  else if (Array.isArray(node)) node.forEach((child, i) => textsIn(child, [...keys, String(i)], found));
  else if (isObject(node)) {
    for (const [k, value] of Object.entries(node)) {
      found.push({ keys: [...keys, k], name: k });
      textsIn(value, [...keys, k], found);
    }
  }
  return found;
}

const isImageField = (schema: JsonObject, field: string) => isPhotoField(isObject(schema.properties) ? schema.properties[field] : undefined);

export interface FlowContext {
  /** Step schemas by name ("signup"): the bundled schema, or null when its file has problems of its own. */
  schemas: Map<string, JsonObject | null>;
  screenNames: string[];
}

export function checkFlow(flow: Flow & JsonObject, { schemas, screenNames }: FlowContext, problems: Problems): void {
  const add = (keys: string[], what: string, fix: string) => problems.add(FLOW_FILE, pointer(...keys), what, fix);
  const stepIds = Object.keys(flow.steps);
  const json: JsonObject = flow;

  const checkStep = ({ keys, name }: Reference) => {
    if (!stepIds.includes(name)) add(keys, `no step "${name}"`, suggestion(name, stepIds));
  };
  checkStep({ keys: ['start'], name: flow.start });
  checkStep({ keys: ['account', 'signIn'], name: flow.account.signIn });
  for (const [fact, step] of Object.entries(flow.milestones)) checkStep({ keys: ['milestones', fact], name: step });
  // The parts of the flow that lead to steps and make calls.
  const parts = ['steps', 'resume', 'account', 'social'] as const;
  for (const part of parts) referencesIn(json[part], 'to', [part]).forEach(checkStep);

  const callNames = Object.keys(flow.calls);
  for (const part of parts) {
    for (const { keys, name } of referencesIn(json[part], 'call', [part])) {
      if (!callNames.includes(name)) add(keys, `no call "${name}" in "calls"`, suggestion(name, callNames));
    }
  }

  // Sources, targets and {storage.x} placeholders alike.
  const storageKeys: readonly string[] = STORAGE_KEYS;
  for (const { keys, name } of textsIn(json, [])) {
    for (const [, key = ''] of name.matchAll(/\bstorage\.([A-Za-z_]+)/g)) {
      if (!storageKeys.includes(key)) add(keys, `"${key}" is not a storage key`, `${suggestion(key, [...storageKeys])} (src/shared/storageKeys.ts)`);
    }
  }

  const routes = new Map<string, string[]>();
  const checkRoute = (route: string, keys: string[]) => {
    const other = routes.get(route);
    if (other) add(keys, `the route "${route}" is already ${pointer(...other)}'s`, 'give each step its own route');
    else routes.set(route, keys);
  };

  const lastResume = flow.resume.length - 1;
  if (flow.resume[lastResume]?.when?.length) {
    add(['resume', String(lastResume), 'when'], 'the last row has "when", so a status that no row matches leads nowhere', 'remove "when" from the last row');
  }

  // Staff read these steps by name: the insights' funnel and the review page.
  const named = new Set([...funnelSteps(flow).map(({ step }) => step), ...flow.review.steps]);
  for (const [id, step] of Object.entries(flow.steps)) {
    checkRoute(step.route, ['steps', id, 'route']);
    if (named.has(id) && step.title === undefined) {
      add(
        ['steps', id],
        `step "${id}" has no "title": the admin page's insights and review name it`,
        'add "title": its name for staff, in sentence case ("Add vehicle")',
      );
    }
    if (step.journey !== undefined && !flow.journey.includes(step.journey)) {
      add(['steps', id, 'journey'], `"${step.journey}" is no stage of "journey", so the strip would mark none`, suggestion(step.journey, flow.journey));
    }
    if (step.kind === 'screen') {
      if (!screenNames.includes(step.screen))
        add(['steps', id, 'screen'], `no screen "${step.screen}"`, `${suggestion(step.screen, screenNames)} (src/client/screens)`);
      continue;
    }
    // A form step with a completion block ends the journey; any other must lead on. (The flow
    // schema's own "next is missing" is left out for this message.)
    if (!step.next?.length && !('completion' in step)) {
      add(
        ['steps', id],
        `form step "${id}" has no way on: nothing says where to go once its form is sent`,
        'add "next": [{ "to": "<step>" }], or a "completion" block if the journey ends here',
      );
    }
    checkFormSchemas(flow, id, step, schemas, problems);
  }

  checkReview(flow, schemas, problems);
  checkReachable(flow, problems);
  checkStatusConditions(flow, problems);
  checkKeptConditions(flow, problems);
  checkRuleLists(flow, problems);
  checkGuardLoops(flow, problems);
}

/**
 * A guard sends a driver without its value somewhere that value is not needed: back to the same
 * step, or round through guards that want the same value, the page would bounce for ever.
 */
function checkGuardLoops(flow: Flow, problems: Problems): void {
  const guardFor = (id: string, value: string) => (flow.steps[id]?.guards ?? []).find((guard) => guard.require === value);
  for (const [id, step] of Object.entries(flow.steps)) {
    (step.guards ?? []).forEach((guard, i) => {
      const way = [id];
      for (let at: string | undefined = guard.to; at !== undefined; at = guardFor(at, guard.require)?.to) {
        way.push(at);
        if (way.indexOf(at) < way.length - 1) {
          problems.add(
            FLOW_FILE,
            pointer('steps', id, 'guards', String(i), 'to'),
            `a driver without "${guard.require}" is sent ${at === id && way.length === 2 ? 'back to this same step' : `round ${way.join(' → ')}`}: the page would bounce for ever`,
            'send them to a step that does not need it (where it is kept, such as the sign-up)',
          );
          return;
        }
      }
    });
  }
}

/** A condition as it compares: its source and what it wants. */
const conditionKey = (condition: Json) => JSON.stringify(isObject(condition) ? [condition.source, condition.equals, condition.present] : condition);

/**
 * Each list of rules (the resume table, a step's `next`, a poll's `next`) is read from the top,
 * the first rule that holds wins: a rule is never reached when one above it holds whenever it
 * does (its conditions are among the later one's), and a step's last way on must hold always, or
 * a driver for whom no rule holds stays where they are.
 */
function checkRuleLists(flow: Flow & JsonObject, problems: Problems): void {
  const check = (rules: Json[], keys: string[], mustEnd: boolean) => {
    const whens = rules.map((rule) => (isObject(rule) && Array.isArray(rule.when) ? rule.when.map(conditionKey) : []));
    for (let later = 1; later < rules.length; later++) {
      const earlier = whens.findIndex((conditions, i) => i < later && conditions.every((condition) => whens[later]!.includes(condition)));
      if (earlier >= 0) {
        const same = whens[earlier]!.length > 0 && whens[earlier]!.length === whens[later]!.length;
        // Two rules that ask the same are told apart in the later one's "when"; a rule in the wrong place is moved whole.
        problems.add(
          FLOW_FILE,
          pointer(...keys, String(later), ...(same ? ['when'] : [])),
          `this rule is never reached: ${pointer(...keys, String(earlier))} above it holds whenever it does`,
          whens[earlier]!.length === 0
            ? 'move the rule without "when" to the end of the list'
            : same
              ? `the two ask the same: tell them apart in "when", or remove one`
              : 'move the more particular rule above the more general one',
        );
      }
    }
    if (mustEnd && rules.length > 0 && (whens.at(-1)?.length ?? 0) > 0) {
      problems.add(
        FLOW_FILE,
        pointer(...keys, String(rules.length - 1), 'when'),
        'the last way on has "when": a driver for whom no rule holds would stay on the step',
        'end the list with a rule without "when" (where everyone else goes)',
      );
    }
  };
  const walk = (node: Json, keys: string[]) => {
    if (Array.isArray(node)) node.forEach((each, i) => walk(each, [...keys, String(i)]));
    if (!isObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      // A form step's own `next` must always lead on; a poll waits for its rule by design.
      if (key === 'next' && Array.isArray(value)) check(value, [...keys, key], keys.length === 2 && keys[0] === 'steps' && node.kind === 'form');
      walk(value, [...keys, key]);
    }
  };
  walk(flow, []);
  check(flow.resume as Json[], ['resume'], false);
}

/** The status the resume table and the approval wait read (`status.<field>`), as the server answers it. */
const driverStatus = (() => {
  const schema = readJsonFile(join(PROJECT_ROOT, 'src', 'shared', 'contracts', 'driver.schema.json'));
  const defs = isObject(schema.$defs) ? schema.$defs : {};
  const status = isObject(defs.driverStatus) ? defs.driverStatus : {};
  const properties = isObject(status.properties) ? status.properties : {};
  const statuses = isObject(defs.reviewStatus) && Array.isArray(defs.reviewStatus.enum) ? defs.reviewStatus.enum : [];
  return { properties, statuses };
})();

/**
 * Each condition on the driver's status names a field the status has, and a value it can take:
 * a status the server gives ("pending", "approved", "rejected"), true or false for a fact, a step
 * of the flow for a field that names one (`nextFix`, `renewal`). A row that compares with anything else never matches.
 */
function checkStatusConditions(flow: Flow & JsonObject, problems: Problems): void {
  const fields = Object.keys(driverStatus.properties);
  const stepIds = Object.keys(flow.steps);
  const walk = (node: Json, keys: string[]) => {
    if (Array.isArray(node)) node.forEach((each, i) => walk(each, [...keys, String(i)]));
    if (!isObject(node)) return;
    const source = node.source;
    if (typeof source === 'string' && source.startsWith('status.')) {
      const field = source.slice('status.'.length);
      const property = driverStatus.properties[field];
      if (!isObject(property)) {
        problems.add(
          FLOW_FILE,
          pointer(...keys, 'source'),
          `the driver's status has no "${field}"`,
          `${suggestion(field, fields)} (src/shared/contracts/driver.schema.json)`,
        );
      } else if ('equals' in node) {
        const value = node.equals;
        const at = pointer(...keys, 'equals');
        const statuses = driverStatus.statuses.map(String);
        if (property.$ref === '#/$defs/stepId') {
          if (typeof value !== 'string' || !stepIds.includes(value))
            problems.add(FLOW_FILE, at, `${JSON.stringify(value)} is no step of the flow`, suggestion(String(value), stepIds));
        } else if (property.$ref === '#/$defs/reviewStatus') {
          if (typeof value !== 'string' || !statuses.includes(value))
            problems.add(FLOW_FILE, at, `${JSON.stringify(value)} is no status a driver has, so this never matches`, suggestion(String(value), statuses));
        } else if (property.type === 'boolean' && typeof value !== 'boolean') {
          const fix = value === 'true' || value === 'false' ? `write it without quotes: ${value}` : 'write true or false';
          problems.add(FLOW_FILE, at, `"${field}" is true or false, so ${JSON.stringify(value)} never matches`, fix);
        }
      }
    }
    for (const [key, value] of Object.entries(node)) walk(value, [...keys, key]);
  };
  walk(flow, []);
}

/**
 * Each condition on a value the flow itself keeps (a way on's `state`, a `store` of a fixed text:
 * "const.yes") compares it with a value it is set to, of the same type: `true` is not the text
 * "true", so a condition written so never holds, and its drivers take another way for ever (a
 * social driver sent round the phone code). Values kept from an answer or a call are not known
 * here, and not judged.
 */
function checkKeptConditions(flow: Flow & JsonObject, problems: Problems): void {
  const setters = new Map<string, { value: Json | undefined; at: string[] }[]>();
  const set = (source: string, value: Json | undefined, at: string[]) => setters.set(source, [...(setters.get(source) ?? []), { value, at }]);
  const conditions: { source: string; equals: Json; keys: string[] }[] = [];
  const walk = (node: Json, keys: string[]) => {
    if (Array.isArray(node)) node.forEach((each, i) => walk(each, [...keys, String(i)]));
    if (!isObject(node)) return;
    if (isObject(node.state) && typeof node.to === 'string')
      for (const [key, value] of Object.entries(node.state)) set(`state.${key}`, value, [...keys, 'state', key]);
    if (isObject(node.store))
      for (const [target, from] of Object.entries(node.store)) {
        // A fixed text is known; anything read from an answer or a call is not (undefined).
        set(target, typeof from === 'string' && from.startsWith('const.') ? from.slice('const.'.length) : undefined, [...keys, 'store', target]);
      }
    if (typeof node.source === 'string' && 'equals' in node) conditions.push({ source: node.source, equals: node.equals as Json, keys });
    for (const [key, value] of Object.entries(node)) if (key !== 'state' && key !== 'store') walk(value, [...keys, key]);
  };
  walk(flow, []);
  for (const { source, equals, keys } of conditions) {
    const known = setters.get(source);
    if (!known || known.some(({ value }) => value === undefined || value === equals)) continue;
    const first = known[0]!;
    const shown = JSON.stringify(first.value);
    const sameWords = known.find(({ value }) => String(value) === String(equals));
    problems.add(
      FLOW_FILE,
      pointer(...keys, 'equals'),
      `"${source}" is set to ${[...new Set(known.map(({ value }) => JSON.stringify(value)))].join(' or ')} (${pointer(...first.at)}), so ${JSON.stringify(equals)} never matches`,
      sameWords
        ? `write it as it is set, ${typeof sameWords.value === 'string' ? 'in quotes' : 'without quotes'}: ${JSON.stringify(sameWords.value)}`
        : `compare with ${shown}`,
    );
  }
}

/**
 * The review block names form steps whose answers reach the server, a name step among them whose
 * schema has the name fields, and a GET call with {step}; a sensitive field is never copied to
 * the browser's storage.
 */
function checkReview(flow: Flow, schemas: Map<string, JsonObject | null>, problems: Problems): void {
  const add = (keys: string[], what: string, fix: string) => problems.add(FLOW_FILE, pointer(...keys), what, fix);
  const formSteps = Object.entries(flow.steps).filter((entry): entry is [string, FormStep] => entry[1].kind === 'form' && !entry[1].private);
  const formIds = formSteps.map(([id]) => id);
  flow.review.steps.forEach((id, index) => {
    if (!formIds.includes(id)) add(['review', 'steps', String(index)], `"${id}" is no form step whose answers the server keeps`, suggestion(id, formIds));
  });
  const { step: nameStep, fields } = flow.review.name;
  if (!flow.review.steps.includes(nameStep))
    add(['review', 'name', 'step'], `"${nameStep}" is not one of "review.steps"`, suggestion(nameStep, flow.review.steps));
  const schema = schemas.get((flow.steps[nameStep] as FormStep | undefined)?.schema ?? '');
  const properties = schema && isObject(schema.properties) ? Object.keys(schema.properties) : null;
  fields.forEach((field, index) => {
    if (properties && !properties.includes(field))
      add(['review', 'name', 'fields', String(index)], `"${field}" is not a field of step ${nameStep}'s schema`, suggestion(field, properties));
  });
  const answers = flow.calls[flow.review.answersCall];
  if (!answers) add(['review', 'answersCall'], `no call "${flow.review.answersCall}" in "calls"`, suggestion(flow.review.answersCall, Object.keys(flow.calls)));
  else if (answers.method !== 'GET' || !answers.path.includes('{step}')) {
    add(
      ['calls', flow.review.answersCall, answers.method === 'GET' ? 'path' : 'method'],
      'the answers call must be a GET with {step} in its path',
      'write "method": "GET" and a path such as "/driver/answers/{step}"',
    );
  }
  // What a step keeps in the browser's storage outlives the page: a sensitive value must never be there.
  for (const [id, step] of formSteps) {
    const sensitive = new Set([step.schema, ...(step.variants ?? []).map((variant) => variant.schema)].flatMap((name) => sensitiveFieldsOf(schemas.get(name))));
    const payload = flow.calls[step.call]?.payload ?? {};
    for (const [target, source] of Object.entries(step.store ?? {})) {
      const { kind, path } = splitSource(source);
      const field = kind === 'form' ? path.join('.') : kind === 'payload' ? splitSource(payload[path.join('.')]?.from ?? '').path.join('.') : '';
      if (sensitive.has(field)) add(['steps', id, 'store', target], `"${field}" is sensitive: it must not be kept in the browser`, 'remove this entry');
    }
  }
}

/** The step's schemas exist, and its call's payload sends exactly their fields. */
function checkFormSchemas(flow: Flow, id: string, step: FormStep, schemas: Map<string, JsonObject | null>, problems: Problems): void {
  const add = (keys: string[], what: string, fix: string) => problems.add(FLOW_FILE, pointer(...keys), what, fix);
  const uses = [
    { name: step.schema, keys: ['steps', id, 'schema'] },
    ...(step.variants ?? []).map((v, i) => ({ name: v.schema, keys: ['steps', id, 'variants', String(i), 'schema'] })),
  ];
  const loaded: { name: string; schema: JsonObject }[] = [];
  for (const { name, keys } of uses) {
    const schema = schemas.get(name);
    if (schema === undefined)
      add(
        keys,
        `no file schemas/${name}.schema.json`,
        suggestion(
          name,
          [...schemas.keys()].filter((n) => n !== 'common'),
        ),
      );
    else if (schema) loaded.push({ name, schema });
  }
  const call = flow.calls[step.call];
  // A private step's answers stay in the browser (the sign-in's password goes to the identity provider only).
  if (!call || loaded.length < uses.length || step.private) return;

  const payload = call.payload ?? {};
  const sent = new Map<string, { key: string; kind: string }>();
  for (const [key, field] of Object.entries(payload)) {
    const { kind, path } = splitSource(field.from);
    if (kind === 'form' || kind === 'file') sent.set(path.join('.'), { key, kind });
  }
  const at = ['calls', step.call, 'payload'];
  const fields = new Set<string>();
  for (const { name, schema } of loaded) {
    for (const field of isObject(schema.properties) ? Object.keys(schema.properties) : []) {
      fields.add(field);
      const image = isImageField(schema, field);
      const how = sent.get(field);
      const source = `${image ? 'file' : 'form'}.${field}`;
      if (!how)
        add(at, `field "${field}" of schemas/${name}.schema.json (step ${id}) is never sent`, `add "${field}": { "from": "${source}" } to this payload`);
      else if ((how.kind === 'file') !== image) {
        add([...at, how.key, 'from'], `"${field}" is ${image ? 'an image' : 'not an image'}: it must come from "${source}"`, `write "from": "${source}"`);
      }
    }
  }
  const photo = [...fields].find((field) => loaded.some(({ schema }) => isImageField(schema, field)));
  if (photo && call.encoding !== 'multipart') {
    add(
      ['calls', step.call, 'encoding'],
      `step ${id} sends photos ("${photo}"), which only a multipart call carries: every driver's answer would be refused (415)`,
      'write "encoding": "multipart"',
    );
  }
  // A field renamed in the schema only: the one field never sent is what the payload meant.
  const unsent = [...fields].filter((field) => !sent.has(field));
  for (const [field, { key }] of sent) {
    if (fields.has(field)) continue;
    const near = closest(field, [...fields]) ?? (unsent.length === 1 ? unsent[0] : undefined);
    const schemaFiles = loaded.map(({ name }) => `schemas/${name}.schema.json`).join(' or ');
    add(
      [...at, key, 'from'],
      `"${field}" is not a field of ${schemaFiles} (step ${id})`,
      near ? `did you mean "${near}"?` : 'name a field of the schema, or remove this entry',
    );
  }
}

/** The condition a way on has when it is taken only by a driver sending a fix a reviewer asked for. */
const FIX_SOURCE = 'response.fixing';
const onlyForFixes = (rule: JsonObject) =>
  Array.isArray(rule.when) && rule.when.some((condition) => isObject(condition) && condition.source === FIX_SOURCE && condition.equals === true);

/** A way on: the step it leads to, and the place of its "to" in the flow. */
interface Way {
  to: string;
  keys: string[];
}

/**
 * Where a step (at `keys`) leads on: each "to" in it but its guards' and its errors', and the
 * resume table's rows for `"resume": true`; for a driver sending it the first time (`firstTime`),
 * not the ways only a fix takes.
 */
function waysOn(flow: Flow, step: Json, keys: string[], firstTime = false): Way[] {
  const ways: Way[] = [];
  const walk = (node: Json, at: string[]) => {
    // A guard turns a driver back and an error sends them round again: neither is a way on.
    if (at.at(-1) === 'guards' || at.at(-1) === 'onError') return;
    if (Array.isArray(node)) node.forEach((each, i) => walk(each, [...at, String(i)]));
    else if (isObject(node)) {
      if (firstTime && onlyForFixes(node)) return;
      if (typeof node.to === 'string') ways.push({ to: node.to, keys: [...at, 'to'] });
      if (node.resume === true) ways.push(...flow.resume.map((row, i) => ({ to: row.to, keys: ['resume', String(i), 'to'] })));
      for (const [k, value] of Object.entries(node)) walk(value, [...at, k]);
    }
  };
  walk(step, keys);
  return ways;
}

/**
 * Every step a driver reaches leads to an end: a step that completes the journey, or a page that
 * leads nowhere by design (an information page). Steps that lead only round among themselves trap
 * the driver; they are reported once, at the way that leads back among them: the "to" to change.
 */
function checkEnds(flow: Flow, steps: JsonObject, reached: Set<string>, problems: Problems): void {
  const waysFor = (firstTime: boolean) => new Map(Object.entries(steps).map(([id, step]) => [id, waysOn(flow, step, ['steps', id], firstTime)]));
  const trappedBy = (ways: Map<string, Way[]>) => {
    const ending = new Set(
      Object.entries(steps)
        .filter(([id, step]) => waysOn(flow, step, []).length === 0 || (isObject(steps[id]) && 'completion' in steps[id]))
        .map(([id]) => id),
    );
    for (let grew = true; grew; ) {
      grew = false;
      for (const [id, to] of ways) {
        if (!ending.has(id) && to.some((next) => ending.has(next.to))) {
          ending.add(id);
          grew = true;
        }
      }
    }
    return Object.keys(steps).filter((id) => reached.has(id) && !ending.has(id));
  };
  const everyWay = waysFor(false);
  const trapped = trappedBy(everyWay);
  // A driver who never had a fix asked for doesn't take the ways only a fix takes ("response.fixing"):
  // named are the steps that go round, not those on the way to them.
  const firstTimeWays = waysFor(true);
  const firstTime = trapped.length > 0 ? [] : roundsAmong(trappedBy(firstTimeWays), firstTimeWays);
  const looping = trapped.length > 0 ? trapped : firstTime;
  if (looping.length === 0) return;
  const back = wayBack(looping[0]!, trapped.length > 0 ? everyWay : firstTimeWays);
  const names = looping.map((id) => `"${id}"`);
  const round = `${names.length === 1 ? `step ${names[0]} leads` : `steps ${names.join(', ')} lead`} only round among ${names.length === 1 ? 'itself' : 'themselves'}`;
  const leadsBack = `this way leads back to "${back.to}"`;
  if (trapped.length > 0)
    problems.add(
      FLOW_FILE,
      pointer(...back.keys),
      `${round}: a driver there never reaches the end of the journey (${leadsBack})`,
      'lead it on to a step that ends the journey (one with "completion"), or to the resume table ("resume": true)',
    );
  else
    problems.add(
      FLOW_FILE,
      pointer(...back.keys),
      `${round} for a driver sending them the first time: their only way out holds for a reviewer's fix ("${FIX_SOURCE}"), so that driver goes round for ever (${leadsBack})`,
      'lead it on towards the end of the journey (where a first-time driver goes)',
    );
}

/** Going on from `start`, the first way that leads back to a step already on the way: what closes the round. */
function wayBack(start: string, ways: Map<string, Way[]>): Way {
  const onTheWay = [start];
  const done = new Set<string>();
  const from = (id: string): Way | undefined => {
    for (const way of ways.get(id) ?? []) {
      if (onTheWay.includes(way.to)) return way;
      if (done.has(way.to)) continue;
      onTheWay.push(way.to);
      const found = from(way.to);
      onTheWay.pop();
      if (found) return found;
      done.add(way.to);
    }
    return undefined;
  };
  // Steps that lead only round among themselves always have a way back.
  return from(start)!;
}

/** Of the trapped steps, those that go round: each one every step it leads to leads back to. */
function roundsAmong(trapped: string[], ways: Map<string, Way[]>): string[] {
  const reach = (from: string) => {
    const seen = new Set<string>();
    const queue = [from];
    for (let id = queue.shift(); id !== undefined; id = queue.shift())
      for (const { to: next } of ways.get(id) ?? [])
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
    return seen;
  };
  const reaches = new Map(trapped.map((id) => [id, reach(id)]));
  return trapped.filter((id) => [...reaches.get(id)!].every((other) => reaches.get(other)?.has(id) ?? false));
}

/**
 * Which steps can be reached: a screen can be opened at its address (the home page, a resume
 * link, an information page), and so can where the resume table leads; a form step only
 * through another step's "to".
 */
function checkReachable(flow: Flow & JsonObject, problems: Problems): void {
  const json: JsonObject = flow;
  const steps = isObject(json.steps) ? json.steps : {};
  const reached = new Set<string>([flow.start, flow.account.signIn, flow.account.signOut.to, ...flow.resume.map((rule) => rule.to)]);
  for (const [id, step] of Object.entries(flow.steps)) if (step.kind === 'screen') reached.add(id);
  const queue = [...reached];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    for (const { name } of referencesIn(steps[id], 'to', [])) {
      if (!reached.has(name)) {
        reached.add(name);
        queue.push(name);
      }
    }
  }
  checkEnds(flow, steps, reached, problems);
  for (const id of Object.keys(flow.steps)) {
    if (!reached.has(id)) {
      problems.add(
        FLOW_FILE,
        pointer('steps', id),
        `step "${id}" cannot be reached from the start`,
        `lead to it from another step ("to": "${id}"), or remove it`,
      );
    }
  }
}
