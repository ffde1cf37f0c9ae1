/**
 * Whether the server serves each call of the flow, read from the route tables its route files
 * declare (src/server/routes/api.ts; the server refuses to start with a route in none). A route
 * at a call of the flow is at the path the flow gives it, so this finds a call the server has no
 * route for, a method it does not answer, a part of the path it reads that the path no longer
 * names, and a call it needs that the flow no longer has.
 */
import { apiRoots } from '../../server/lib/apiPaths.js';
import { callOf, type DeclaredRoute, routePathOf, urlOf } from '../../server/lib/routeTable.js';
import type { Flow } from '../../shared/flow.js';
import { PAGE_ROUTES } from '../../shared/review.js';
import { pointer, type Problems } from './problems.js';
import { FLOW_FILE } from './flowChecks.js';

let serverCode: Promise<typeof import('../../server/routes/api.js')> | undefined;

/**
 * The server's route tables, loaded once: by `npm run lint:schemas` before its checks, elsewhere
 * by checkServedCalls. Their files read the content's data files as they load; a failure (a data
 * file is broken) is only looked at there.
 */
export function loadServerCode(): typeof serverCode & {} {
  serverCode ??= import('../../server/routes/api.js');
  // Looked at by checkServedCalls, which reports the failure; not an unhandled rejection meanwhile.
  serverCode.catch(() => undefined);
  return serverCode;
}

/** A path as Fastify matches routes: its parts' names do not count. */
const patternOf = (url: string) => url.replace(/:\w+/g, ':');

export async function checkServedCalls(flow: Flow, problems: Problems): Promise<void> {
  let declared: readonly DeclaredRoute[];
  let server: Awaited<ReturnType<typeof loadServerCode>>;
  try {
    // Used once the content's data files have passed their own checks (lintProject), so a broken
    // one is a problem line, not a crash on import.
    server = await loadServerCode();
    declared = server.DECLARED_ROUTES;
  } catch (error) {
    problems.add(
      FLOW_FILE,
      pointer('calls'),
      `the server does not start with this flow: ${(error as Error).message}`,
      'undo the last change to "calls", or ask a developer',
    );
    return;
  }
  checkStepRoutes(flow, server.apiPathTestOf(flow), apiRoots(server.apiPathsOf(flow)), problems);
  checkSuccessStatuses(flow, declared, problems);
  const needed = new Set(declared.map((route) => callOf(route, flow)).filter((call): call is string => call !== null && !Object.hasOwn(flow.calls, call)));
  for (const call of needed) {
    problems.add(
      FLOW_FILE,
      pointer('calls'),
      `the server answers a call named "${call}", and the flow has none`,
      `name the call "${call}" again (or ask a developer to rename it in src/server/routes too)`,
    );
  }
  if (needed.size > 0) return;
  const served = declared.map((route) => ({ method: route.method, pattern: patternOf(urlOf(route, flow)), params: route.params ?? [] }));
  const routeAt = (method: string, url: string) => served.find((route) => route.method === method && route.pattern === patternOf(url));
  for (const [name, call] of Object.entries(flow.calls)) {
    const url = routePathOf(call.path);
    const route = routeAt(call.method, url);
    if (route) {
      // A part of the path the route reads must be named there.
      const named = [...call.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      const unnamed = route.params.filter((param) => !named.includes(param));
      if (unnamed.length > 0) {
        const parts = unnamed.map((param) => `{${param}}`).join(' and ');
        problems.add(
          FLOW_FILE,
          pointer('calls', name, 'path'),
          `the server reads ${parts} from this path, and the path no longer names ${unnamed.length === 1 ? 'it' : 'them'}: every request would be refused`,
          `name that part of the path ${parts}`,
        );
      }
      continue;
    }
    const other = call.method === 'GET' ? 'POST' : 'GET';
    const what = `the server does not serve ${call.method} ${call.path}`;
    if (routeAt(other, url)) problems.add(FLOW_FILE, pointer('calls', name, 'method'), what, `it answers ${other} there: write "method": "${other}"`);
    else
      problems.add(
        FLOW_FILE,
        pointer('calls', name, 'path'),
        what,
        'check the path against the server (src/server/routes), or ask a developer to add the route',
      );
  }
}

/**
 * Each step's route is the step's page wherever a driver opens it (a link, a bookmark, a reload):
 * not an address the server answers as the API, nor one of the app's own pages or below one.
 */
function checkStepRoutes(flow: Flow, isApiPath: (url: string) => boolean, roots: string[], problems: Problems): void {
  const pages = Object.values(PAGE_ROUTES);
  for (const [id, step] of Object.entries(flow.steps)) {
    const at = pointer('steps', id, 'route');
    const page = pages.find((each) => step.route === each || step.route.startsWith(`${each}/`));
    if (page)
      problems.add(FLOW_FILE, at, `"${step.route}" is the app's own page ${page}: a driver would see that page, not the step`, 'give the step another route');
    else if (isApiPath(step.route))
      problems.add(
        FLOW_FILE,
        at,
        `"${step.route}" is under "/${step.route.split('/')[1]}", which the API answers: a driver who opens it, reloads it or follows a link to it gets "Not found." instead of the step`,
        `give the step a route that starts with none of the API's: ${roots.map((root) => `/${root}`).join(', ')}`,
      );
  }
}

/** A step's action counts its call done only on the `successStatus` it names: one the call's route answers. */
function checkSuccessStatuses(flow: Flow, declared: readonly DeclaredRoute[], problems: Problems): void {
  for (const [id, step] of Object.entries(flow.steps)) {
    if (!('actions' in step)) continue;
    for (const [at, action] of (step.actions ?? []).entries()) {
      if (action.successStatus === undefined) continue;
      const route = declared.find((each) => callOf(each, flow) === action.call);
      const answers = route?.answers ?? [200];
      if (!route || answers.includes(action.successStatus)) continue;
      problems.add(
        FLOW_FILE,
        pointer('steps', id, 'actions', String(at), 'successStatus'),
        `the server answers "${action.call}" with ${answers.join(' or ')} when it succeeds, never ${action.successStatus}: every "${action.label}" would show as failed`,
        `write "successStatus": ${answers.at(-1)}`,
      );
    }
  }
}
