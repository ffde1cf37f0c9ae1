/**
 * The API's routes as data: each route file declares a table of its routes and registers them
 * from it; routes/api.ts gathers the tables, so what is an API path is known before any route
 * registers, and the lint (src/cli/lint/serverRoutes.ts) checks the flow's calls against them
 * without building the app.
 */
import type { Flow } from '../../shared/flow.js';

/** Where the admin API lives; the browser page is exactly /admin (see lib/apiPaths.ts). */
export const ADMIN_PREFIX = '/admin';

/** A route served at a call of the flow is at the path the flow gives that call; the flow's review names its answers call. */
export const REVIEW_ANSWERS_CALL = 'review.answersCall';

export type DeclaredRoute = {
  readonly method: 'GET' | 'POST';
  /** The parts of the path the route reads, declared by its `params` schema: the lint checks the flow's path names each (`{id}`). */
  readonly params?: readonly string[];
  /**
   * The statuses the route answers when it succeeds, if not 200 alone: the lint checks a flow's
   * `successStatus` for its call is one of them (one that never comes makes every success look failed).
   */
  readonly answers?: readonly number[];
} & (
  | {
      /** The path as Fastify writes it ("/admin/drivers/:id"). */
      readonly url: string;
    }
  | {
      /** The flow's call the route serves, at the call's path. */
      readonly call: string;
    }
);

/** A route file's routes, by name. */
export type RouteTable = Readonly<Record<string, DeclaredRoute>>;

/** The name of the flow's call `route` serves, or null for a route at a path of its own. */
export function callOf(route: DeclaredRoute, flow: Flow): string | null {
  if (!('call' in route)) return null;
  return route.call === REVIEW_ANSWERS_CALL ? flow.review.answersCall : route.call;
}

/** The path a call's route is served at, as Fastify writes it: "/driver/status/{id}" is "/driver/status/:id". */
export const routePathOf = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/** Where `route` is served with `flow`, as Fastify writes it. */
export function urlOf(route: DeclaredRoute, flow: Flow): string {
  const call = callOf(route, flow);
  if (call === null) return (route as { url: string }).url;
  const found = Object.hasOwn(flow.calls, call) ? flow.calls[call] : undefined;
  if (!found) throw new Error(`flows/onboarding.flow.json has no call "${call}"`);
  return routePathOf(found.path);
}

/** The `params` schema of a route that reads parts of its path: each is there, and not empty. */
export function paramsSchemaOf(route: DeclaredRoute) {
  const names = route.params ?? [];
  return {
    type: 'object',
    required: names,
    properties: Object.fromEntries(names.map((name) => [name, { type: 'string', minLength: 1 }])),
  } as const;
}
