/**
 * The slow-phone figure of `npm run bench`: a first visit and a repeat visit to a step, in
 * headless Chromium throttled as a cheap phone on a poor network (400 ms round trip, 400 kbit/s
 * both ways, the CPU four times slower), timed from the navigation until a key typed in the form
 * shows in its first field. Beside it, the anchor: a plain code-split rjsf page built here (React,
 * rjsf's own theme and its usual Ajv validator, the same schemas), served compressed the same way.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import * as esbuild from 'esbuild';
import Fastify from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { precompress } from '../node/build.js';
import { loadSchema, loadUiSchema, PROJECT_ROOT } from '../node/projectFiles.js';
import { isObject, type JsonObject } from '../shared/schemaFiles.js';

/** The pages measured: a step's route, the schema its form shows and the field typed in. */
export const SLOW_PHONE_PAGES = [
  { route: '/signup', schema: 'signup', field: '#root_email' },
  { route: '/complete-profile', schema: 'profile', field: '#root_firstName' },
] as const;

const THROTTLING = { latency: 400, downloadThroughput: (400 * 1000) / 8, uploadThroughput: (400 * 1000) / 8, cpuRate: 4 };
const VISITS = 5;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** Builds the anchor (one page per measured route) and serves it, compressed like the app; answers its address and a way to stop it. */
export async function startAnchor(): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'onramp-anchor-'));
  // The same fields, in rjsf's own widgets: our custom ones (the photo slots, the state list…) are left out.
  const plainUi = (ui: JsonObject): JsonObject =>
    Object.fromEntries(
      Object.entries(ui).map(([key, value]) => {
        if (!isObject(value) || typeof value['ui:widget'] !== 'string' || value['ui:widget'] === 'password') return [key, value];
        const { 'ui:widget': _custom, ...rest } = value;
        return [key, rest];
      }),
    );
  const forms = Object.fromEntries(
    SLOW_PHONE_PAGES.map(({ route, schema }) => [route, { schema: loadSchema(schema), uiSchema: plainUi(loadUiSchema(schema)) }]),
  );
  await writeFile(join(dir, 'forms.json'), JSON.stringify(forms));
  await writeFile(
    join(dir, 'form.tsx'),
    `import Form from '@rjsf/core';
import { customizeValidator } from '@rjsf/validator-ajv8';
import forms from './forms.json';
// Our keywords (errorMessage, minAgeYears…) mean nothing to a plain validator: it passes over them.
const validator = customizeValidator({ ajvOptionsOverrides: { strict: false } });
export default function StepForm() {
  const form = (forms as Record<string, { schema: object; uiSchema: object }>)[location.pathname];
  return <Form schema={form.schema} uiSchema={form.uiSchema} validator={validator} liveValidate />;
}
`,
  );
  await writeFile(
    join(dir, 'main.tsx'),
    `import { lazy, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
const StepForm = lazy(() => import('./form.js'));
createRoot(document.getElementById('root')!).render(<Suspense fallback={null}><StepForm /></Suspense>);
`,
  );
  const out = join(dir, 'public');
  await esbuild.build({
    entryPoints: [join(dir, 'main.tsx')],
    bundle: true,
    splitting: true,
    format: 'esm',
    minify: true,
    jsx: 'automatic',
    outdir: join(out, 'assets'),
    entryNames: '[name]-[hash]',
    define: { 'process.env.NODE_ENV': '"production"' },
    nodePaths: [join(PROJECT_ROOT, 'node_modules')],
    logLevel: 'error',
  });
  const entry = (await readdir(join(out, 'assets'))).find((file) => file.startsWith('main-'));
  const page = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><script type="module" src="/assets/${entry}"></script></head><body><div id="root"></div></body></html>`;
  await precompress(out);
  const server = Fastify();
  await server.register(fastifyStatic, {
    root: out,
    preCompressed: true,
    index: false,
    wildcard: true,
    setHeaders: (reply, path) => reply.header('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache'),
  });
  server.setNotFoundHandler((_request, reply) => reply.type('text/html').header('cache-control', 'no-cache').send(page));
  const url = await server.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    async stop() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Milliseconds from navigating to `url` until a key typed in `field` shows there. */
async function untilTypingEchoes(page: Page, url: string, field: string): Promise<number> {
  const started = Date.now();
  await page.goto(url, { waitUntil: 'commit' });
  const input = page.locator(field);
  await input.waitFor({ timeout: 120_000 });
  // A repeat visit may find the first visit's draft in the field: the key shows after it.
  const before = await input.inputValue();
  await input.pressSequentially('a', { timeout: 120_000 });
  await page.waitForFunction(([selector, wanted]) => (document.querySelector(selector!) as HTMLInputElement | null)?.value === wanted, [field, `${before}a`], {
    timeout: 120_000,
  });
  return Date.now() - started;
}

/** First and repeat visits (medians of five) to each measured page, at `baseUrl`. */
export async function slowPhoneVisits(browser: Browser, baseUrl: string): Promise<{ route: string; first: number; repeat: number }[]> {
  const results = [];
  for (const { route, field } of SLOW_PHONE_PAGES) {
    const first: number[] = [];
    const repeat: number[] = [];
    for (let visit = 0; visit < VISITS; visit++) {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: THROTTLING.latency,
        downloadThroughput: THROTTLING.downloadThroughput,
        uploadThroughput: THROTTLING.uploadThroughput,
      });
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: THROTTLING.cpuRate });
      first.push(await untilTypingEchoes(page, `${baseUrl}${route}`, field));
      await page.goto('about:blank');
      repeat.push(await untilTypingEchoes(page, `${baseUrl}${route}`, field));
      await context.close();
    }
    results.push({ route, first: median(first), repeat: median(repeat) });
  }
  return results;
}
