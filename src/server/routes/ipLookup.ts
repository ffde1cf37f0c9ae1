/**
 * The public-IP lookup the sign-up makes (spec §7), answered by the app itself, named in the
 * page's configuration: a departure on purpose (docs/departures.md), as a third-party service would learn
 * every driver's address and add a failure the sign-up can't control.
 */
import type { FastifyInstance } from 'fastify';
import { type RouteTable } from '../lib/routeTable.js';

export const IP_LOOKUP_PATH = '/ip';

/** The lookup (lib/routeTable.ts). */
export const IP_LOOKUP_ROUTES = {
  lookup: { method: 'GET', url: IP_LOOKUP_PATH },
} as const satisfies RouteTable;

export async function ipLookupRoutes(app: FastifyInstance) {
  app.get(IP_LOOKUP_ROUTES.lookup.url, { schema: { response: { 200: { $ref: 'api#/$defs/ip' } } } }, async (request) => ({ ip: request.ip }));
}
