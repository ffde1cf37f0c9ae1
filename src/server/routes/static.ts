/**
 * The built client (dist/) and the single-page app's fallback: any other GET that wants HTML
 * gets dist/index.html with the runtime configuration filled in. API paths never fall back to
 * the page; they answer 404 { message }.
 */
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';
import fastifyStatic from '@fastify/static';
import Negotiator from 'negotiator';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerConfig } from '../config.js';
import type { AppConfig } from '../../shared/appConfig.js';
import type { RouteScripts } from '../../node/builds/pageScripts.js';
import { isMissingFile } from '../../node/fileErrors.js';
import { CONTENT_ROOT, DIST, PROJECT_ROOT, ROUTE_PRELOADS, SSR_BUNDLE } from '../../node/projectFiles.js';
import type { Locale } from '../../shared/locales.js';
import { SERVER_PAGE_ELEMENT_ID, type ServerPage } from '../../shared/serverPage.js';
import { deviceFills, draftSteps } from '../../shared/drawnPage.js';
import { DRAFTS_COOKIE, SENT_AWAY_COOKIE, TOKEN_COOKIE } from '../../shared/storageKeys.js';
import { cookieOf } from '../lib/cookies.js';
import { failingGuard, splitSource, type Guard } from '../../shared/flow.js';
import { pathToFileURL } from 'node:url';
import fp from 'fastify-plugin';
import { SANDBOX_CONFIRM_PATH } from './sandboxPayments.js';
import { IP_LOOKUP_PATH } from './ipLookup.js';
import { messageIn } from '../serverMessages.js';

export const CONFIG_PLACEHOLDER = '<!--app-config-->';

/**
 * The build names its scripts by their contents (src/node/builds/bundles.ts: [name]-[hash]; a form's
 * name may hold dashes, "profile-social"); .br and .gz are their compressed forms.
 */
export const HASHED_ASSET = /[/\\]assets[/\\](chunks[/\\])?[\w.-]+-[A-Z0-9]{8}\.js(\.br|\.gz)?$/;
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * What a page answers while the folder served holds no build: advice that fills that folder. The
 * build writes the content's dist/, so with a content folder it must be run with the same one; a
 * STATIC_DIR elsewhere is filled by whoever set it. No path is named: the answer reaches anyone.
 */
export function notBuiltMessage(staticDir: string): string {
  if (staticDir !== DIST) return 'The web app is not built yet. Put a build (`npm run build` makes dist/) in STATIC_DIR, then reload.';
  const build = CONTENT_ROOT === PROJECT_ROOT ? '`npm run build`' : '`npm run build` with the same ONRAMP_CONTENT_DIR';
  return `The web app is not built yet. Run ${build}, then reload.`;
}

/**
 * What the browser needs to know at run time, rendered into index.html. `build` names the build
 * the page's scripts come from; `dev` is set under `npm run dev`: the build the page comes from,
 * so the page follows later edits (src/client/dev/).
 */
export function appConfigOf(config: ServerConfig, build: string, dev: { version: number } | null = null): AppConfig {
  return {
    build,
    firebase: {
      apiKey: config.firebaseApiKey,
      authDomain: `${config.firebaseProjectId}.firebaseapp.com`,
      projectId: config.firebaseProjectId,
    },
    authEmulatorUrl: config.firebaseAuthEmulatorHost ? `http://${config.firebaseAuthEmulatorHost}` : null,
    ipLookupUrl: IP_LOOKUP_PATH,
    // Which card form /add-card shows: Stripe's Payment Element, or the local sandbox's form.
    payments:
      config.payments.kind === 'stripe'
        ? { provider: 'stripe' as const, publishableKey: config.payments.publishableKey }
        : { provider: 'sandbox' as const, confirmUrl: SANDBOX_CONFIRM_PATH },
    subscriptionPlan: config.subscriptionPlan,
    dev,
  };
}

/** `<` escaped so no value can close the script element. */
export function appConfigScript(config: ServerConfig, build: string, dev: { version: number } | null = null): string {
  const json = JSON.stringify(appConfigOf(config, build, dev)).replace(/</g, '\\u003c');
  return `<script type="application/json" id="app-config">${json}</script>`;
}

/** Characters of index.html's hash that name a build: enough that two builds never share one. */
const BUILD_ID_LENGTH = 16;

const ROUTE_PRELOAD_PLACEHOLDER = '<!--route-preload-->';

/** Whether a route of the flow ("/:id/:token") is this path's. */
const routeMatches = (route: string, path: string) => new RegExp(`^${route.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+')}/?$`).test(path);

/**
 * The page's own scripts, preloaded: those of the step at this path, in the language the browser
 * asks for, which is the one the page picks unless the driver chose another on this device
 * (src/node/builds/indexHtml.ts, route-preloads.json).
 */
function routePreloads(preloads: RouteScripts, url: string, locale: Locale): string {
  const path = url.split('?')[0] ?? '/';
  const scripts = Object.entries(preloads).find(([route]) => routeMatches(route, path))?.[1];
  return (scripts?.[locale] ?? []).map((file) => `<link rel="modulepreload" href="${file}" />`).join('');
}

/** Where index.html's spinner stands until the app draws; a step the server draws takes its place. */
const DRAWN_PAGE = /<!--drawn-page-->[\s\S]*<!--\/drawn-page-->/;

type RenderStep = (path: string, locale: Locale) => Promise<{ html: string; page: ServerPage; reviewed: boolean } | null>;

/** A step as the server drew it: the page's drawn part, with its data for hydration; the step's id, and whether it is a reviewed step. */
interface DrawnStep {
  html: string;
  step: string;
  reviewed: boolean;
}

/**
 * The steps as the server draws them (src/client/app/serverRender.tsx), each drawn once per build,
 * route and language: a drawing holds nothing of a driver's. A new build (index.html changed: a
 * rebuild under `npm run dev`) draws again; its bundle is loaded afresh only if it was written
 * again, as an edit of a form alone leaves it (src/node/builds/devForms.ts), and loading it takes
 * longer than drawing. A build without it, or a step that fails to draw, sends the page undrawn,
 * for the browser to draw.
 */
function stepDrawings(log: FastifyInstance['log']) {
  let loaded: { build: string; written: number; render: Promise<RenderStep | null>; drawn: Map<string, Promise<DrawnStep | null>> } | undefined;
  return (build: string, path: string, locale: Locale): Promise<DrawnStep | null> => {
    if (loaded?.build !== build) {
      const written = statSync(SSR_BUNDLE, { throwIfNoEntry: false })?.mtimeMs ?? 0;
      const render =
        loaded?.written === written
          ? loaded.render
          : written
            ? import(`${pathToFileURL(SSR_BUNDLE).href}?written=${written}`).then((module: { renderStep: RenderStep }) => module.renderStep)
            : Promise.resolve(null);
      loaded = { build, written, render, drawn: new Map() };
    }
    const { render, drawn } = loaded;
    const key = `${locale}\n${path}`;
    let step = drawn.get(key);
    if (!step) {
      step = render
        .then(async (renderStep) => {
          const result = renderStep ? await renderStep(path, locale) : null;
          if (!result) return null;
          const page = JSON.stringify(result.page).replace(/</g, '\\u003c');
          return {
            html: `${result.html}<script type="application/json" id="${SERVER_PAGE_ELEMENT_ID}">${page}</script>`,
            step: result.page.step,
            reviewed: result.reviewed,
          };
        })
        .catch((error: unknown) => {
          log.warn({ err: error, path, locale }, 'The step could not be drawn on the server; its page is sent for the browser to draw');
          return null;
        });
      // Only a step's route is kept: any other address draws nothing, and is not remembered.
      void step.then((each) => {
        if (each === null) drawn.delete(key);
      });
      drawn.set(key, step);
    }
    return step;
  };
}

/** Whether the browser fills the step with what only it can read (src/shared/drawnPage.ts), as its cookies tell. */
function browserFills(request: FastifyRequest, { step, reviewed }: DrawnStep): boolean {
  return deviceFills({ reviewed }, { draft: draftSteps(cookieOf(request, DRAFTS_COOKIE)).includes(step), signedIn: Boolean(cookieOf(request, TOKEN_COOKIE)) });
}

/**
 * The guard of `step` that sends this visitor away, where the server can tell, as the browser tries
 * them (stepFlow.ts): in order, each on a cookie the request carries. One on what only the browser
 * holds (its storage, the page's state) leaves it and those after it to the browser; so does a
 * visit from another site (a link in a webmail), which carries none of the SameSite=Strict cookies
 * the browser holds.
 */
function guardSendingAway(request: FastifyRequest, guards: Guard[] | undefined): Guard | undefined {
  if (request.headers['sec-fetch-site'] === 'cross-site') return undefined;
  const undecided = guards?.findIndex((guard) => splitSource(guard.require).kind !== 'cookie') ?? -1;
  const onCookies = undecided === -1 ? guards : guards?.slice(0, undecided);
  return failingGuard(onCookies, (source) => cookieOf(request, splitSource(source).path.join('.')));
}

/** How long the cookie naming a guard the server decided lives: the redirect's visit reads it at once. */
const SENT_AWAY_MAX_AGE_SECONDS = 60;

/** A path whose last segment names a file (`/assets/x.js`, `/logo.png`): what loads it is a script or a picture, never a visitor. */
const NAMES_A_FILE = /\.\w+$/;

/**
 * Whether the request is answered the page: it takes HTML, by name or by a wildcard range (as
 * curl, link previews and uptime checks send); no Accept at all takes anything. A missing file is
 * the exception: a script or a picture takes any type too, and gets 404, not the page, unless the
 * request names text/html itself, as a browser's visit does.
 */
function wantsPage(request: FastifyRequest, path: string): boolean {
  const negotiator = new Negotiator(request);
  if (NAMES_A_FILE.test(path)) return negotiator.mediaTypes().includes('text/html');
  return negotiator.mediaType(['text/html']) !== undefined;
}

/** Whether the browser's copy of the page (If-None-Match) is this one: a revalidation then costs no body. */
const holdsPage = (request: FastifyRequest, etag: string) =>
  (request.headers['if-none-match'] ?? '').split(',').some((tag) => tag.trim() === etag || tag.trim() === '*');

/** The page in the best encoding the browser takes; Brotli at a middle quality, as the page is made for each request. */
const PAGE_ENCODINGS = {
  br: (page: string) => brotliCompressSync(page, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }),
  gzip: (page: string) => gzipSync(page),
};

/** Shared (not encapsulated): its not-found handler is the whole app's. */
export const staticRoutes = fp<{ config: ServerConfig; isApiPath: (url: string) => boolean }>(
  async (app, options) => {
    const { config, isApiPath } = options;
    const { live } = app;
    const indexFile = join(config.staticDir, 'index.html');
    const configScript = (build: string) => appConfigScript(config, build, live ? { version: live.state.version } : null);
    const drawStep = stepDrawings(app.log);

    const notBuilt = notBuiltMessage(config.staticDir);
    if (!existsSync(indexFile)) app.log.warn(`${indexFile} does not exist yet, so pages answer 503: ${notBuilt}`);
    await app.register(fastifyStatic, {
      root: config.staticDir,
      // index.html is only ever sent with its configuration filled in (the fallback below).
      index: false,
      allowedPath: (pathName) => pathName !== '/index.html',
      // dist/ may be built after the server starts.
      wildcard: true,
      suppressWarning: true,
      // The build's Brotli and gzip forms of each text file, by what the browser accepts (with Vary: Accept-Encoding).
      preCompressed: true,
      cacheControl: false,
      // A file named by its contents never changes: kept for a year, never asked again, so it carries
      // no validators (bytes for nothing). Others (the pictures, the places data) are asked again
      // each time, and answered 304 while unchanged.
      setHeaders: (reply, path) => {
        if (HASHED_ASSET.test(path)) reply.header('cache-control', IMMUTABLE).removeHeader('etag').removeHeader('last-modified');
        else reply.header('cache-control', 'no-cache');
      },
    });

    async function sendPage(request: FastifyRequest, reply: FastifyReply) {
      const path = request.url.split('?')[0] ?? '/';
      // A visitor the step's guard sends away goes there at once, not through the step's page.
      const { steps } = app.callReader.flow;
      const [id, step] = Object.entries(steps).find(([, each]) => routeMatches(each.route, path)) ?? [];
      const guard = step && guardSendingAway(request, step.guards);
      if (id && guard) {
        if (guard.toast) {
          const secure = request.protocol === 'https' ? '; Secure' : '';
          reply.header('set-cookie', `${SENT_AWAY_COOKIE}=${id}; Path=/; Max-Age=${SENT_AWAY_MAX_AGE_SECONDS}; SameSite=Strict${secure}`);
        }
        return reply.redirect(steps[guard.to]?.route ?? '/', 303);
      }
      let html: string;
      let preloads: RouteScripts = {};
      try {
        // Read each time: they are small, and a rebuild should not need a restart.
        html = await readFile(indexFile, 'utf8');
        preloads = JSON.parse(
          await readFile(join(config.staticDir, ROUTE_PRELOADS), 'utf8').catch((error: unknown) => {
            // A build that preloads nothing on any route writes no such file.
            if (isMissingFile(error)) return '{}';
            throw error;
          }),
        ) as RouteScripts;
      } catch (error) {
        // No page built (or one cut short): the answer says so rather than a bare error.
        if (isMissingFile(error) || error instanceof SyntaxError) return reply.code(503).send({ message: notBuilt });
        throw error;
      }
      // index.html names the build's scripts: its hash names the build.
      const build = createHash('sha256').update(html).digest('base64url').slice(0, BUILD_ID_LENGTH);
      const drawn = await drawStep(build, path, request.locale);
      // A step the browser fills itself is drawn by the browser, filled: drawn here, it would show empty first.
      const shown = drawn && !browserFills(request, drawn) ? drawn.html : null;
      const page = html
        .replace(CONFIG_PLACEHOLDER, () => configScript(build))
        .replace(ROUTE_PRELOAD_PLACEHOLDER, routePreloads(preloads, request.url, request.locale))
        // A drawn page is in the language it was drawn in.
        .replace(DRAWN_PAGE, (spinner) => shown ?? spinner)
        .replace('<html lang="en">', (tag) => (shown ? `<html lang="${request.locale}">` : tag));
      // Asked again on every visit (a new build must reach drivers at once), answered 304 while unchanged.
      const etag = `W/"${createHash('sha256').update(page).digest('base64url')}"`;
      reply.header('cache-control', 'no-cache').header('etag', etag).header('vary', 'accept-encoding, accept-language, cookie');
      if (holdsPage(request, etag)) return reply.code(304).send();
      const encoding = negotiate(request.headers['accept-encoding'] ?? '', Object.keys(PAGE_ENCODINGS)) as keyof typeof PAGE_ENCODINGS | null;
      reply.code(200).type('text/html; charset=utf-8');
      return encoding ? reply.header('content-encoding', encoding).send(PAGE_ENCODINGS[encoding](page)) : reply.send(page);
    }

    // With `index: false` the static handler refuses "/" (a directory); the start page is the app.
    app.get('/', (request, reply) => sendPage(request, reply));

    app.setNotFoundHandler(async (request, reply) => {
      const path = request.url.split('?')[0] ?? '/';
      if ((request.method === 'GET' || request.method === 'HEAD') && !isApiPath(request.url) && wantsPage(request, path)) return sendPage(request, reply);
      return reply.code(404).send({ message: messageIn(request.locale, 'request.notFound') });
    });
  },
  { name: 'onramp-static' },
);
