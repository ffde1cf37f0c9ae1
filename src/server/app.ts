/**
 * The Onramp API server, laid out as fastify/demo: third-party plugins, then our services
 * (plugins/), then the API (routes/api.ts: every route file, from its route table) and the web app
 * (routes/static.ts), with one error handler (docs/architecture.md, "The server, and the outside
 * services").
 */
import { refusal } from './serverMessages.js';
import { IncomingMessage, type OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import multipart from '@fastify/multipart';
import sensible from '@fastify/sensible';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import { loadFlow, loadSchema, schemaNamesOf } from '../node/projectFiles.js';
import type { ServerConfig } from './config.js';
import type { Db } from './db/db.js';
import { answerFor, loggableError } from './errors.js';
import { loggableUrl } from './lib/apiPaths.js';
import { traceFields } from './lib/traces.js';
import { ADMIN_PREFIX } from './lib/routeTable.js';
import { isWellFormedJson } from './lib/wellFormedText.js';
import { resealLegacyAnswers, sealNewlySensitiveAnswers } from './lib/answers.js';
import { sensitiveFieldsOf } from '../shared/schemaFiles.js';
import { applyStepRenames } from './lib/stepRenames.js';
import { writeFunnelOrder } from './lib/funnelOrder.js';
import { funnelSteps } from '../shared/funnel.js';
import { auditPlugin } from './plugins/audit.js';
import { callReaderPlugin, type LiveEdits } from './plugins/callReader.js';
import { clockPlugin } from './plugins/clock.js';
import { cryptoPlugin } from './plugins/crypto.js';
import { dbPlugin } from './plugins/db.js';
import { identityPlugin } from './plugins/identity.js';
import { localePlugin } from './plugins/locale.js';
import { otpCodesPlugin } from './plugins/otpCodes.js';
import { remindersPlugin } from './plugins/reminders.js';
import { expiriesPlugin } from './plugins/expiries.js';
import { messagingPlugin } from './plugins/messaging.js';
import { paymentsPlugin } from './plugins/payments.js';
import { sessionsPlugin } from './plugins/sessions.js';
import { staffAuthPlugin } from './plugins/staffAuth.js';
import { MAX_FILE_BYTES } from './lib/uploadStore.js';
import { uploadsPlugin } from './plugins/uploads.js';
import { metricsPlugin } from './plugins/metrics.js';
import { webhooksPlugin } from './plugins/webhooks.js';
import { retentionPlugin } from './plugins/retention.js';
import { apiPathTestOf, apiPlugin } from './routes/api.js';
import { staticRoutes } from './routes/static.js';
import { API_DOCS_PATH } from './plugins/openApi.js';
import { memoizedSerializers } from './lib/responseSerializers.js';

export interface AppOptions {
  /** The clock for code and session expiry (tests move it instead of sleeping). */
  now?: () => Date;
  /** An open database to use instead of opening one (tests share one per file); the app does not close it. */
  db?: Db;
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
  /** Under `npm run dev`: validators swapped after each edit, and the pages told (plugins/callReader.ts). */
  live?: LiveEdits;
  /**
   * Built for a command at a terminal (src/cli/serverApp.ts), closed once it is done: the notices it
   * queues are left to the server to send, so a local server's outbox (/dev/outbox) shows them too.
   */
  terminal?: boolean;
}

const STATIC_FORBIDDEN_PATH = 'FST_STATIC_FORBIDDEN_PATH';

/** JSON bodies are small (the largest is the sign-up with its ID token); multipart has its own limits. */
const JSON_BODY_LIMIT = 64 * 1024;

/** Content-Security-Policy's directives: our own scripts only; Firebase Auth, and Stripe when configured, are the only other origins. */
export function contentSecurityPolicy(config: ServerConfig): Record<string, string[]> {
  const connect = ["'self'"];
  if (config.firebaseAuthEmulatorHost) connect.push(`http://${config.firebaseAuthEmulatorHost}`);
  if (config.production) connect.push('https://identitytoolkit.googleapis.com', 'https://securetoken.googleapis.com');
  // Stripe's Payment Element: its script, its iframes and its API (Stripe's integration security guide).
  const stripe = config.payments.kind === 'stripe';
  if (stripe) connect.push('https://api.stripe.com');
  return {
    'default-src': ["'self'"],
    'script-src': ["'self'", ...(stripe ? ['https://js.stripe.com'] : [])],
    // 'self' as well: the form studio previews a step in a frame of its own.
    ...(stripe ? { 'frame-src': ["'self'", 'https://js.stripe.com', 'https://hooks.stripe.com'] } : {}),
    // index.html holds the app's stylesheet (src/node/builds/indexHtml.ts, inlineStylesheet); toasts (react-hot-toast)
    // inject their styles at run time.
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'blob:', 'data:'],
    'connect-src': connect,
    'frame-ancestors': ["'self'"],
    'object-src': ["'none'"],
    'base-uri': ["'none'"],
  };
}

/**
 * The headers helmet sets for `options`, computed once: they are the same for every answer (no
 * nonces). @fastify/helmet builds helmet's middleware again for each request, which took a fifth
 * of the status poll's throughput (npm run bench).
 */
export function securityHeaders(options: HelmetOptions): OutgoingHttpHeaders {
  const response = new ServerResponse(new IncomingMessage(new Socket()));
  helmet(options)(response.req, response, (error?: unknown) => {
    if (error) throw error;
  });
  return response.getHeaders();
}

export async function buildApp(config: ServerConfig, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: config.logLevel,
      ...(config.traces ? { mixin: traceFields } : {}),
      // Nothing logs headers today; if something ever does, credentials stay out.
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'headers.cookie'], censor: '[redacted]' },
      serializers: {
        // Fastify's own request line, but a resume link's token stays out of the log.
        req: (raw) => {
          const request = raw as unknown as FastifyRequest;
          return {
            method: request.method,
            url: loggableUrl(request.url),
            host: request.host,
            remoteAddress: request.ip,
            remotePort: request.socket?.remotePort,
          };
        },
      },
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    trustProxy: config.trustProxy,
    // Opening a new embedded database (initdb and the migrations: about 3 s idle) can pass Fastify's
    // 10 s default on a busy machine; a real database's waits are bounded by their own timeouts (db.ts).
    pluginTimeout: 60_000,
    bodyLimit: JSON_BODY_LIMIT,
    requestTimeout: 120_000,
    schemaController: { compilersFactory: { buildSerializer: memoizedSerializers } },
  });

  const flow = loadFlow();
  await app.register(localePlugin);
  await app.register(callReaderPlugin, { flow, live: options.live });

  // The API's paths, known before any route registers: its routes' tables and the flow's calls (routes/api.ts).
  const isApiPath = apiPathTestOf(flow);

  app.setErrorHandler((error, request, reply) => {
    // @fastify/static refuses a path it can't check against the disk (a name longer than the file
    // system takes, as a 4,000-character API path has once no route matches it): there is no file
    // there, so it is not found, the same as before dist/ is built.
    if ((error as { code?: unknown }).code === STATIC_FORBIDDEN_PATH) return reply.callNotFound();
    // In the request's language: the code refuses by key, the driver reads their own (serverMessages.ts).
    const answer = answerFor(error, app.callReader.flowIn(request.locale).messages.requestFailed, request.locale);
    if (answer.statusCode === 503) request.log.warn({ error: loggableError(error) }, 'Request refused: a service it needs is unavailable');
    else if (answer.statusCode >= 500) request.log.error({ error: loggableError(error) }, 'Request failed');
    return reply.code(answer.statusCode).send(answer.body);
  });

  // httpErrors (app.httpErrors): the refusals the routes throw, answered by the handler above.
  await app.register(sensible);
  // Every text a JSON body carries is Unicode, checked once here for every route (multipart fields
  // where they are read: lib/callReader/multipartBody.ts): a lone surrogate is refused before anything stores it.
  app.addHook('preValidation', (request, _reply, done) => {
    done(isWellFormedJson(request.body) ? undefined : refusal(400, 'request.illFormedText'));
  });
  // The security headers of every answer, helmet's, computed once. A page and its assets get our
  // CSP, no referrer, and HSTS in production.
  const strictTransportSecurity = config.production ? { maxAge: 31_536_000, includeSubDomains: true } : false;
  const pageHeaders = securityHeaders({
    contentSecurityPolicy: { useDefaults: false, directives: contentSecurityPolicy(config) },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity,
    // Firebase's sign-in with a provider opens a popup that reports back to its opener.
    crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
  });
  // What only a page needs (the rest of helmet's set), left out of every answer that is not one.
  const notAPage = {
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity,
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  } satisfies HelmetOptions;
  // The API's answers (JSON, a document's picture, an export) are never a page: they get the set
  // OWASP gives REST answers (REST Security Cheat Sheet), where nothing loads, nothing frames them
  // and nothing is sniffed. The headers a page needs alone are left out; this halves the headers
  // of every answer a phone polls for.
  const apiHeaders = securityHeaders({
    ...notAPage,
    contentSecurityPolicy: { useDefaults: false, directives: { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] } },
    xFrameOptions: { action: 'deny' },
  });
  // A script is never a page: it gets what guards a file another page loads (nosniff, same-origin
  // only, no referrer, HSTS), not a page's CSP and framing rules, which do nothing there and cost
  // each of a first visit's scripts 600 bytes (12 ms each at a slow phone's 400 kbit/s: HTTP/1.1
  // sends headers as they are). No script runs as a worker, whose own CSP would come from its
  // script's answer: one that did would need the page's set.
  const scriptHeaders = securityHeaders({ ...notAPage, contentSecurityPolicy: false, xFrameOptions: false });
  const isScript = (type: unknown) => typeof type === 'string' && /^application\/javascript\b/.test(type);
  // The API's reference page is a page (its scripts and styles load), though under the API's paths.
  const isApiAnswer = (url: string) => isApiPath(url) && !url.startsWith(API_DOCS_PATH);
  // Until a stop begins (shutdown.ts); /readyz reads it.
  app.decorate('draining', false);
  // One hook for every answer (the status poll's cost is in its hooks): a callback, not a promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    // While stopping, each connection ends with its answer: none is left idle for the close to cut
    // while a client (or a balancer) sends on it.
    if (app.draining) reply.header('connection', 'close');
    if (!isApiAnswer(request.url)) {
      reply.headers(isScript(reply.getHeader('content-type')) ? scriptHeaders : pageHeaders);
    } else {
      reply.headers(apiHeaders);
      // API answers carry driver data (or codes, on /dev): never cached. A route may say more
      // (uploaded documents are "private, no-store"), never less.
      if (!String(reply.getHeader('cache-control') ?? '').includes('no-store')) reply.header('cache-control', 'no-store');
    }
    done(null, payload);
  });

  // First: every plugin after it counts what it does there, and every answer is timed.
  await app.register(metricsPlugin);
  await app.register(clockPlugin, { now: options.now });
  await app.register(dbPlugin, { database: config.database, db: options.db });
  await app.register(cryptoPlugin, { dataKeys: config.dataKeys });
  // Sensitive answers migration 007 moved with their old ciphertext are sealed field by field (lib/answers.ts), as are
  // those of a field marked sensitive since they were sent,
  // after the flow's renamed steps are carried into the stored data (lib/stepRenames.ts).
  app.addHook('onReady', async () => {
    const renamed = await applyStepRenames(app.db, app.cipher, flow.renamed ?? {}, app.now());
    if (renamed.length > 0) app.log.info({ renamed }, 'Moved the stored data of renamed steps');
    // After the renames: the funnel's steps under their names now.
    if (
      await writeFunnelOrder(
        app.db,
        funnelSteps(flow).map((step) => step.recordedAs),
      )
    )
      app.log.info('Wrote where each driver stopped in the funnel, and its running totals');
    const { resealed, unreadable } = await resealLegacyAnswers(app.db, app.cipher, app.now());
    if (resealed > 0) app.log.info({ steps: resealed }, 'Sealed moved answers field by field');
    if (unreadable > 0) app.log.warn({ steps: unreadable }, 'Moved answers sealed with a data key DATA_KEYS does not hold were left as they are');
    // A field the schemas mark sensitive now, whose answers were stored before it was.
    const sensitiveBySchema = Object.fromEntries(schemaNamesOf(flow).map((name) => [name, sensitiveFieldsOf(loadSchema(name))]));
    const sealed = await sealNewlySensitiveAnswers(app.db, app.cipher, sensitiveBySchema, app.now());
    if (sealed > 0) app.log.info({ steps: sealed }, 'Sealed the answers of fields marked sensitive since they were sent');
  });
  // Before the sessions: a session made before the user's Firebase "valid since" has ended.
  await app.register(identityPlugin, { projectId: config.firebaseProjectId, emulatorHost: config.firebaseAuthEmulatorHost });
  await app.register(sessionsPlugin);
  // Notices link to the sign-in step (a driver's) or the admin page (a staff member's), at the address drivers open.
  const signInUrl = `${config.publicUrl ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`}${flow.steps[flow.account.signIn]?.route ?? '/'}`;
  const publicOrigin = new URL(signInUrl).origin;
  await app.register(messagingPlugin, { config: config.messaging, signInUrl, adminUrl: `${publicOrigin}${ADMIN_PREFIX}`, delivers: !options.terminal });
  await app.register(remindersPlugin, { publicOrigin });
  await app.register(expiriesPlugin);
  await app.register(otpCodesPlugin);
  await app.register(uploadsPlugin, { dataDir: config.dataDir, storage: config.storage });
  await app.register(staffAuthPlugin);
  await app.register(auditPlugin);
  await app.register(webhooksPlugin, { production: config.production, timeoutMs: config.webhookTimeoutMs });
  await app.register(paymentsPlugin, { payments: config.payments, plan: config.subscriptionPlan });
  await app.register(retentionPlugin, { embeddedDatabase: config.database.kind === 'pglite' });
  // Per-route limits (exact file count) are set where each form is read (lib/callReader/multipartBody.ts).
  await app.register(multipart, { limits: { fileSize: MAX_FILE_BYTES } });

  await app.register(apiPlugin, { config, publicOrigin });
  await app.register(staticRoutes, { config, isApiPath });
  return app;
}
