/**
 * The flow as a program: on every way a driver can come to a step, each stored value the step
 * reads (a guard's `require`, a call's payload, a `{storage.x}` in its texts) was
 * kept by an earlier step. A value missing on one way bounces those drivers, or sends their
 * call without it; the problem names that way.
 *
 * The ways start where drivers start: the flow's `start` with nothing kept, and each row of the
 * resume table with what that row keeps (a driver signing in on a new phone). A step keeps what
 * its `store` writes and, once past its guards, what they require; `clear` and `onEnter.clear`
 * forget. A forward "must" analysis: what a step can rely on is what every way to it keeps.
 */
import type { Call, Flow } from '../../shared/flow.js';
import { placeholdersIn } from '../../shared/placeholders.js';
import { isObject, type Json, type JsonObject } from '../../shared/schemaFiles.js';
import { pointer, type Problems } from './problems.js';
import { FLOW_FILE } from './flowChecks.js';

/** The kinds of value the browser keeps between steps. */
const isKept = (source: string) => /^(storage|cookie)\.\w+$/.test(source);

interface Edge {
  to: string;
  /** A guard's bounce: taken before the step keeps anything. */
  bounce: boolean;
  clears: string[];
}

interface Entry {
  to: string;
  keeps: string[];
  /** How the way begins, as the problem tells it. */
  via: string;
}

/** What a missing value does to the drivers who come that way. */
const AFTERMATH = { guard: 'are sent away', payload: 'would send the call without it', text: 'would read a blank where it goes' };

/** A read of a kept value at a step, and where the read is written. */
export interface Read {
  value: string;
  file: string;
  keys: string[];
  kind: 'guard' | 'payload' | 'text';
  /** What reads it: "the guard", "call sendEmailCode, made at step verifyEmail,"… */
  by: string;
}

/** A step form's UI schema as its file writes it, to find the values its texts show. */
export type UiFileOf = (schemaName: string) => { file: string; source: JsonObject } | undefined;

/** Every text below a node, with its keys. */
function textsIn(node: Json, keys: string[] = [], found: { keys: string[]; text: string }[] = []) {
  if (typeof node === 'string') found.push({ keys, text: node });
  else if (Array.isArray(node)) node.forEach((each, i) => textsIn(each, [...keys, String(i)], found));
  else if (isObject(node)) for (const [key, value] of Object.entries(node)) textsIn(value, [...keys, key], found);
  return found;
}

const stringsAt = (node: Json | undefined): string[] => (Array.isArray(node) ? node.filter((each): each is string => typeof each === 'string') : []);

/** Every object with a "to" in a step, and the values it clears on the way. */
function edgesOf(step: JsonObject): Edge[] {
  const edges: Edge[] = [];
  const walk = (node: Json, inGuards: boolean) => {
    if (Array.isArray(node)) node.forEach((each) => walk(each, inGuards));
    else if (isObject(node)) {
      if (typeof node.to === 'string') edges.push({ to: node.to, bounce: inGuards, clears: stringsAt(node.clear) });
      for (const [key, value] of Object.entries(node)) walk(value, inGuards || key === 'guards');
    }
  };
  walk(step, false);
  return edges;
}

/**
 * The kept values a call's payload reads. (Its bearer token is sent when there is one: a sign-up
 * or a sign-in makes its call before any token exists, so the server judges that, not the flow.)
 */
const payloadReads = (call: Call) =>
  Object.entries(call.payload ?? {})
    .filter(([, field]) => isKept(field.from))
    .map(([key, field]) => ({ value: field.from, key }));

export function checkFlowPaths(flow: Flow & JsonObject, uiFileOf: UiFileOf, problems: Problems): void {
  const json: JsonObject = flow;
  const steps: Record<string, JsonObject> = isObject(json.steps)
    ? Object.fromEntries(Object.entries(json.steps).filter((entry): entry is [string, JsonObject] => isObject(entry[1])))
    : {};
  const entries: Entry[] = [
    { to: flow.start, keeps: [], via: 'from the start' },
    ...flow.resume.map((row, i) => ({ to: row.to, keeps: Object.keys(row.store ?? {}).filter(isKept), via: `of a returning driver (/resume/${i})` })),
  ];

  const onEnter = (id: string) => stringsAt(isObject(steps[id]?.onEnter) ? (steps[id].onEnter as JsonObject).clear : undefined);
  const guardsOf = (id: string) => (Array.isArray(steps[id]?.guards) ? (steps[id].guards as JsonObject[]) : []);
  const keptBy = (id: string) => [...guardsOf(id).map((guard) => String(guard.require)), ...Object.keys(isObject(steps[id]?.store) ? steps[id].store : {})];

  // What every way to a step keeps, once it has entered: narrowed until nothing changes.
  const known = new Map<string, Set<string>>();
  const queue: string[] = [];
  const arrive = (id: string, keeps: Iterable<string>) => {
    if (!steps[id]) return;
    const cleared = onEnter(id);
    const incoming = new Set([...keeps].filter((value) => !cleared.includes(value)));
    const current = known.get(id);
    const next = current ? new Set([...current].filter((value) => incoming.has(value))) : incoming;
    if (!current || next.size < current.size) {
      known.set(id, next);
      queue.push(id);
    }
  };
  for (const entry of entries) arrive(entry.to, entry.keeps);
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    const here = known.get(id)!;
    const leaving = new Set([...here, ...keptBy(id)]);
    for (const edge of edgesOf(steps[id]!)) {
      const kept = edge.bounce ? here : leaving;
      arrive(
        edge.to,
        [...kept].filter((value) => !edge.clears.includes(value)),
      );
    }
  }

  // Each place once: a call made at several steps is reported at its payload, for the first.
  const reported = new Set<string>();
  for (const [id, here] of known) {
    for (const read of readsAt(flow, id, steps[id]!, uiFileOf)) {
      const at = pointer(...read.keys);
      if (here.has(read.value) || reported.has(`${read.file}${at}`) || problems.covers(read.file, at)) continue;
      reported.add(`${read.file}${at}`);
      const way = wayWithout(read.value, id, entries, steps, keptBy);
      problems.add(
        read.file,
        at,
        `${read.by} reads "${read.value}", which no step keeps on the way ${way}: those drivers ${AFTERMATH[read.kind]}`,
        `keep it in an earlier step ("store": { "${read.value}": … }), or read a value that way keeps`,
      );
    }
  }
}

/** What a step reads of the kept values, in the order a driver meets them. */
function readsAt(flow: Flow, id: string, step: JsonObject, uiFileOf: UiFileOf): Read[] {
  const reads: Read[] = [];
  const guards = Array.isArray(step.guards) ? step.guards : [];
  guards.forEach((guard, i) => {
    if (isObject(guard) && typeof guard.require === 'string' && isKept(guard.require))
      reads.push({ value: guard.require, file: FLOW_FILE, keys: ['steps', id, 'guards', String(i), 'require'], kind: 'guard', by: 'the guard' });
  });
  // Past the guards, what they require is there.
  const guarded = guards.map((guard) => (isObject(guard) ? guard.require : undefined));
  const add = (read: Read) => {
    if (!guarded.includes(read.value)) reads.push(read);
  };

  const calls: { name: string; after: boolean }[] = [];
  if (typeof step.call === 'string') calls.push({ name: step.call, after: false });
  for (const part of ['after', 'actions'] as const) {
    const list = step[part];
    if (Array.isArray(list))
      for (const each of list) if (isObject(each) && typeof each.call === 'string') calls.push({ name: each.call, after: part === 'after' });
  }
  if (isObject(step.poll) && typeof step.poll.call === 'string') calls.push({ name: step.poll.call, after: false });
  const stored = Object.keys(isObject(step.store) ? step.store : {});
  for (const { name, after } of calls) {
    const call = flow.calls[name];
    if (!call) continue;
    for (const { value, key } of payloadReads(call)) {
      if (!(after && stored.includes(value)))
        add({ value, file: FLOW_FILE, keys: ['calls', name, 'payload', key, 'from'], kind: 'payload', by: `call ${name}, made at step ${id},` });
    }
  }

  const schemaNames = [step.schema, ...(Array.isArray(step.variants) ? step.variants.map((variant) => (isObject(variant) ? variant.schema : undefined)) : [])];
  for (const name of schemaNames) {
    const ui = typeof name === 'string' ? uiFileOf(name) : undefined;
    if (!ui) continue;
    for (const { keys, text } of textsIn(ui.source)) {
      for (const value of placeholdersIn(text).filter(isKept)) add({ value, file: ui.file, keys, kind: 'text', by: 'the text' });
    }
  }
  return reads;
}

/** A way from an entry to `target` on which `value` is never kept: "from the start → signup → verifyEmail". */
function wayWithout(value: string, target: string, entries: Entry[], steps: Record<string, JsonObject>, keptBy: (id: string) => string[]): string {
  const cameFrom = new Map<string, string>();
  const queue: string[] = [];
  for (const entry of entries) {
    if (!entry.keeps.includes(value) && steps[entry.to] && !cameFrom.has(entry.to)) {
      cameFrom.set(entry.to, entry.via);
      queue.push(entry.to);
    }
  }
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    if (id === target) break;
    for (const edge of edgesOf(steps[id]!)) {
      const keeps = !edge.bounce && keptBy(id).includes(value) && !edge.clears.includes(value);
      if (keeps || cameFrom.has(edge.to) || !steps[edge.to]) continue;
      cameFrom.set(edge.to, id);
      queue.push(edge.to);
    }
  }
  const way = [target];
  for (let at = cameFrom.get(target); at !== undefined; at = cameFrom.get(at)) way.unshift(at);
  return way.join(' → ');
}
