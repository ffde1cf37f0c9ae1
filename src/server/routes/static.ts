/**
 * The built client (dist/) and the single-page app's fallback: any other GET that wants HTML
 * gets dist/index.html with the runtime configuration filled in. API paths never fall back to
 * the page; they answer 404 { message }.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerConfig } from '../config.js';
import type { AppConfig } from '../../shared/appConfig.js';
import type { RouteScripts } from '../../node/build.js';
import { isMissingFile } from '../../node/fileErrors.js';
import { ROUTE_PRELOADS, SSR_BUNDLE } from '../../node/projectFiles.js';
import type { Locale } from '../../shared/locales.js';
import { SERVER_PAGE_ELEMENT_ID, type ServerPage } from '../../shared/serverPage.js';
import { deviceFills, draftSteps } from '../../shared/drawnPage.js';
import { DRAFTS_COOKIE, TOKEN_COOKIE } from '../../shared/storageKeys.js';
import { pathToFileURL } from 'node:url';
import fp from 'fastify-plugin';
import { SANDBOX_CONFIRM_PATH } from './sandboxPayments.js';
import { messageIn } from '../serverMessages.js';

/**
 * The public-IP lookup the sign-up makes (spec §7), answered by the app itself, named in the
 * page's configuration: a departure on purpose (docs/departures.md), as a third-party service would learn
 * every driver's address and add a failure the sign-up can't control.
 */
export const IP_LOOKUP_PATH = '/ip';

export const CONFIG_PLACEHOLDER = '<!--app-config-->';

/**
 * The build names its scripts by their contents (build.ts: [name]-[hash]; a form's
 * name may hold dashes, "profile-social"); .br and .gz are their compressed forms.
 */
export const HASHED_ASSET = /[/\\]assets[/\\](chunks[/\\])?[\w.-]+-[A-Z0-9]{8}\.js(\.br|\.gz)?$/;
const IMMUTABLE = 'public, max-age=31536000, immutable';
export const NOT_BUILT_MESSAGE = 'The web app is not built yet. Run `npm run build`, then reload.';

/**
 * What the browser needs to know at run time, rendered into index.html. `dev` is set under
 * `npm run dev`: the build the page comes from, so the page follows later edits (src/client/dev/).
 */
export function appConfigOf(config: ServerConfig, dev: { version: number } | null = null): AppConfig {
  return {
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
export function appConfigScript(config: ServerConfig, dev: { version: number } | null = null): string {
  const json = JSON.stringify(appConfigOf(config, dev)).replace(/</g, '\\u003c');
  return `<script type="application/json" id="app-config">${json}</script>`;
}

const ROUTE_PRELOAD_PLACEHOLDER = '<!--route-preload-->';

/** Whether a route of the flow ("/:id/:token") is this path's. */
const routeMatches = (route: string, path: string) => new RegExp(`^${route.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+')}/?$`).test(path);

/**
 * The page's own scripts, preloaded: those of the step at this path, in the language the browser
 * asks for, which is the one the page picks unless the driver chose another on this device
 * (build.ts, route-preloads.json).
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
 * route and language: a drawing holds nothing of a driver's. The build's bundle is loaded afresh
 * when index.html changes (a rebuild under `npm run dev`); a build without it, or a step that
 * fails to draw, sends the page undrawn, for the browser to draw.
 */
function stepDrawings(log: FastifyInstance['log']) {
  let loaded: { build: string; render: Promise<RenderStep | null>; drawn: Map<string, Promise<DrawnStep | null>> } | undefined;
  return (build: string, path: string, locale: Locale): Promise<DrawnStep | null> => {
    if (loaded?.build !== build) {
      const render = existsSync(SSR_BUNDLE)
        ? import(`${pathToFileURL(SSR_BUNDLE).href}?build=${build}`).then((module: { renderStep: RenderStep }) => module.renderStep)
        : Promise.resolve(null);
      loaded = { build, render, drawn: new Map() };
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

/** A cookie's value as the browser sent it (the client's storage.ts writes them); undefined when it sent none. */
function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const prefix = `${name}=`;
  return (request.headers.cookie ?? '')
    .split(/;\s*/)
    .find((part) => part.startsWith(prefix))
    ?.slice(prefix.length);
}

/** Whether the browser fills the step with what only it can read (src/shared/drawnPage.ts), as its cookies tell. */
function browserFills(request: FastifyRequest, { step, reviewed }: DrawnStep): boolean {
  return deviceFills({ reviewed }, { draft: draftSteps(cookieOf(request, DRAFTS_COOKIE)).includes(step), signedIn: Boolean(cookieOf(request, TOKEN_COOKIE)) });
}

const wantsHtml = (request: FastifyRequest) => (request.headers.accept ?? '').includes('text/html');

/** Whether the browser's copy of the page (If-None-Match) is this one: a revalidation then costs no body. */
const holdsPage = (request: FastifyRequest, etag: string) =>
  (request.headers['if-none-match'] ?? '').split(',').some((tag) => tag.trim() === etag || tag.trim() === '*');

/** The page in the best encoding the browser takes; Brotli at a middle quality, as the page is made for each request. */
const PAGE_ENCODINGS = {
  br: (page: string) => brotliCompressSync(page, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }),
  gzip: (page: string) => gzipSync(page),
};

/** GET /ip: the local stand-in for the public-IP lookup the sign-up makes. */
export async function ipLookupRoutes(app: FastifyInstance) {
  app.get(IP_LOOKUP_PATH, async (request) => ({ ip: request.ip }));
}

/** Shared (not encapsulated): its not-found handler is the whole app's. */
export const staticRoutes = fp<{ config: ServerConfig; isApiPath: (url: string) => boolean }>(
  async (app, options) => {
    const { config, isApiPath } = options;
    const { live } = app;
    const indexFile = join(config.staticDir, 'index.html');
    const configScript = () => appConfigScript(config, live ? { version: live.state.version } : null);
    const drawStep = stepDrawings(app.log);

    if (!existsSync(indexFile)) app.log.warn(`${indexFile} does not exist yet: pages answer 503 until \`npm run build\` has run.`);
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
        if (isMissingFile(error) || error instanceof SyntaxError) return reply.code(503).send({ message: NOT_BUILT_MESSAGE });
        throw error;
      }
      const path = request.url.split('?')[0] ?? '/';
      const step = await drawStep(createHash('sha256').update(html).digest('base64url'), path, request.locale);
      // A step the browser fills itself is drawn by the browser, filled: drawn here, it would show empty first.
      const drawn = step && !browserFills(request, step) ? step.html : null;
      const page = html
        .replace(CONFIG_PLACEHOLDER, configScript)
        .replace(ROUTE_PRELOAD_PLACEHOLDER, routePreloads(preloads, request.url, request.locale))
        // A drawn page is in the language it was drawn in.
        .replace(DRAWN_PAGE, (spinner) => drawn ?? spinner)
        .replace('<html lang="en">', (tag) => (drawn ? `<html lang="${request.locale}">` : tag));
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
      if ((request.method === 'GET' || request.method === 'HEAD') && !isApiPath(request.url) && wantsHtml(request)) return sendPage(request, reply);
      return reply.code(404).send({ message: messageIn(request.locale, 'request.notFound') });
    });
  },
  { name: 'onramp-static' },
);
