/**
 * The API: every route that answers JSON (or a document, an export), never a page, as one plugin
 * whose routes register in a context of their own. Each route file declares its routes in a table
 * and registers them from it (lib/routeTable.ts); this file gathers the tables, so the API's paths
 * are known before any route registers (app.ts, apiPathTestOf), and the lint checks the flow's
 * calls against the same tables without building the app (src/cli/lint/serverRoutes.ts). A route
 * that is in no table stops the start (the API reference page's own files aside: plugins/openApi.ts).
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Flow } from '../../shared/flow.js';
import clientErrorReportSchema from '../../shared/clientErrorReport.schema.json';
import apiSchema from '../../shared/api.schema.json';
import webhooksSchema from '../../shared/webhooks.schema.json';
import { API_CONTRACTS } from '../../shared/contracts/index.js';
import type { ServerConfig } from '../config.js';
import { apiPathTest } from '../lib/apiPaths.js';
import { ADMIN_PREFIX, type DeclaredRoute, urlOf } from '../lib/routeTable.js';
import { isReferencePageFile, OPENAPI_ROUTES, openApiPlugin } from '../plugins/openApi.js';
import { ADMIN_ROUTES, adminRoutes } from './admin.js';
import { ADMIN_PRIVACY_ROUTES, adminPrivacyRoutes } from './adminPrivacy.js';
import { AUTH_ROUTES, authRoutes } from './auth.js';
import { CLIENT_ERROR_ROUTES, clientErrorRoutes } from './clientErrors.js';
import { DEV_ROUTES, devRoutes } from './dev.js';
import { DEV_WEBHOOK_ROUTES } from './devWebhooks.js';
import { DRIVER_ROUTES, driverRoutes } from './driver.js';
import { EXPIRY_ROUTES, expiryRoutes } from './expiries.js';
import { FINANCE_ROUTES, financeRoutes } from './finance.js';
import { HEALTH_ROUTES, healthRoutes } from './health.js';
import { INSIGHTS_ROUTES, insightsRoutes } from './insights.js';
import { INTEGRATION_ADMIN_ROUTES, integrationAdminRoutes } from './integrationAdmin.js';
import { INTEGRATION_API_ROUTES, integrationRoutes } from './integrations.js';
import { IP_LOOKUP_ROUTES, ipLookupRoutes } from './ipLookup.js';
import { METRICS_ROUTES, metricsRoutes } from './metrics.js';
import { PEOPLE_ROUTES, peopleRoutes } from './people.js';
import { REMINDER_ROUTES, reminderRoutes } from './reminders.js';
import { SANDBOX_PAYMENT_ROUTES } from './sandboxPayments.js';
import { STAFF_ROUTES, staffRoutes } from './staff.js';
import { STAFF_INVITATION_ROUTES, staffInvitationRoutes } from './staffInvitations.js';
import { STUDIO_ROUTES, studioRoutes } from './studio.js';
import { SUBSCRIPTION_ROUTES, subscriptionRoutes } from './subscription.js';
import { WEBHOOK_ROUTES, webhookRoutes } from './webhooks.js';

/** Every route the API may serve: the sandbox's only while it is the gateway, /dev's only outside production. */
export const DECLARED_ROUTES: readonly DeclaredRoute[] = [
  HEALTH_ROUTES,
  AUTH_ROUTES,
  DRIVER_ROUTES,
  SUBSCRIPTION_ROUTES,
  SANDBOX_PAYMENT_ROUTES,
  FINANCE_ROUTES,
  ADMIN_ROUTES,
  ADMIN_PRIVACY_ROUTES,
  INSIGHTS_ROUTES,
  PEOPLE_ROUTES,
  EXPIRY_ROUTES,
  REMINDER_ROUTES,
  STAFF_ROUTES,
  STAFF_INVITATION_ROUTES,
  INTEGRATION_ADMIN_ROUTES,
  INTEGRATION_API_ROUTES,
  WEBHOOK_ROUTES,
  STUDIO_ROUTES,
  DEV_ROUTES,
  DEV_WEBHOOK_ROUTES,
  IP_LOOKUP_ROUTES,
  CLIENT_ERROR_ROUTES,
  METRICS_ROUTES,
  OPENAPI_ROUTES,
].flatMap((table) => Object.values(table));

/** A route of the API: its method and its path as Fastify writes it ("/driver/status/:id"). */
export interface ApiRoute {
  method: string;
  url: string;
  /** The parts of the path the route reads (its `params` schema's required names): the lint checks the flow's paths name them. */
  params: readonly string[];
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The API's routes, as registered (with the HEAD Fastify adds to each GET): every path that is not the web app. */
    apiRoutes: readonly ApiRoute[];
  }
}

/**
 * Which request paths are the API's (answered JSON, never cached, never the page): the first
 * segments of the declared routes and of the flow's calls, and /dev. The admin review page is
 * /admin itself; the admin API is everything below it.
 */
export function apiPathTestOf(flow: Flow): (url: string) => boolean {
  return apiPathTest(apiPathsOf(flow), [ADMIN_PREFIX]);
}

/** The paths of the API's routes: the flow's calls' and the declared ones'. */
export const apiPathsOf = (flow: Flow): string[] => [
  ...Object.values(flow.calls).map((call) => call.path),
  ...DECLARED_ROUTES.flatMap((route) => ('url' in route ? [route.url] : [])),
];

/** Shared for its `apiRoutes` only: the routes themselves register in a context of their own. */
export const apiPlugin = fp<{ config: ServerConfig; publicOrigin: string }>(
  async (app, { config, publicOrigin }) => {
    // Throws for a call a route serves and the flow no longer has, as the route itself would.
    const declared = new Set(DECLARED_ROUTES.map((route) => `${route.method} ${urlOf(route, app.callReader.flow)}`));
    const apiRoutes: ApiRoute[] = [];
    app.decorate('apiRoutes', apiRoutes);
    await app.register(async (api: FastifyInstance) => {
      api.addHook('onRoute', (route) => {
        // The reference page's own files are the page's, laid out by its plugin.
        if (isReferencePageFile(route.url)) return;
        for (const method of [route.method].flat()) {
          // Fastify adds a HEAD beside each GET.
          if (!declared.has(`${method === 'HEAD' ? 'GET' : method} ${route.url}`)) {
            throw new Error(`The route ${method} ${route.url} is in no route table: declare it in its file's (lib/routeTable.ts)`);
          }
          const paramsSchema = route.schema?.params as { required?: string[] } | undefined;
          apiRoutes.push({ method, url: route.url, params: paramsSchema?.required ?? [] });
        }
      });
      // Before any route: the document is made from the routes as they register.
      await api.register(openApiPlugin);
      // The contracts the routes' bodies and answers are declared by (their `schema`), stated once.
      for (const contract of API_CONTRACTS) api.addSchema(contract);
      api.addSchema(clientErrorReportSchema);
      api.addSchema(webhooksSchema);
      api.addSchema(apiSchema);
      await api.register(healthRoutes);
      await api.register(authRoutes, { ...config.authRateLimit, counters: config.sharedCounters });
      await api.register(driverRoutes);
      await api.register(subscriptionRoutes);
      // The gateway's own routes, as plugins/payments.ts picks them (the sandbox's confirm).
      if (app.paymentRoutes) await api.register(app.paymentRoutes);
      await api.register(financeRoutes);
      await api.register(adminRoutes, { config });
      await api.register(adminPrivacyRoutes, { embeddedDatabase: config.database.kind === 'pglite' });
      await api.register(insightsRoutes);
      await api.register(peopleRoutes, { publicOrigin, counters: config.sharedCounters });
      await api.register(expiryRoutes);
      await api.register(reminderRoutes);
      await api.register(staffRoutes, { rateLimit: config.authRateLimit, counters: config.sharedCounters });
      await api.register(staffInvitationRoutes, { rateLimit: config.authRateLimit, counters: config.sharedCounters });
      await api.register(webhookRoutes, { production: config.production });
      await api.register(integrationAdminRoutes);
      // Launch links point at the address drivers open.
      await api.register(integrationRoutes, { publicOrigin });
      // The form studio's data: open under `npm run dev`, otherwise for staff.
      await api.register(studioRoutes, { open: app.live !== null });
      if (!config.production) await api.register(devRoutes);
      await api.register(ipLookupRoutes);
      await api.register(clientErrorRoutes, { counters: config.sharedCounters });
      await api.register(metricsRoutes, { token: config.metricsToken, production: config.production });
    });
  },
  { name: 'onramp-api', decorators: { fastify: ['callReader', 'payments'] } },
);
