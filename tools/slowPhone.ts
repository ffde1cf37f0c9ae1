/**
 * The slow-phone figure of `npm run bench`: a first visit and a repeat visit to a step, in
 * headless Chromium throttled as a cheap phone on a poor network (400 ms round trip, 400 kbit/s
 * both ways, the CPU four times slower), timed from the navigation until a key typed in the form
 * shows in its first field. Beside it, the anchor: the plain setup a good team would ship, built
 * here from the same schemas: React 19, rjsf's own theme, each form's validator precompiled (as
 * the app's build does), rjsf's markdown dependency stubbed, the form code-split from the entry;
 * served compressed and cached as the app's scripts are.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import fastifyStatic from '@fastify/static';
import * as esbuild from 'esbuild';
import Fastify from 'fastify';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { BROWSER_BUNDLE } from '../src/node/builds/bundles.js';
import { precompress } from '../src/node/builds/compress.js';
import { staticClosure } from '../src/node/builds/pageScripts.js';
import { markdownStubPlugin } from '../src/node/builds/stubs.js';
import { precompiledValidatorsCode } from '../src/node/precompiledValidators.js';
import { loadSchema, loadUiSchema, PROJECT_ROOT } from '../src/node/projectFiles.js';
import { isObject, type JsonObject } from '../src/shared/schemaFiles.js';

/**
 * The pages measured: a step's route, the schema its form shows, the field typed in, and a field
 * with a key that makes it invalid (its message shows once the form's scripts run).
 */
export const SLOW_PHONE_PAGES = [
  { route: '/signup', schema: 'signup', field: '#root_email', invalid: { field: '#root_email', key: 'a' } },
  { route: '/complete-profile', schema: 'profile', field: '#root_firstName', invalid: { field: '#root_zipCode', key: '1' } },
] as const;

const THROTTLING = { latency: 400, downloadThroughput: (400 * 1000) / 8, uploadThroughput: (400 * 1000) / 8, cpuRate: 4 };
const VISITS = 5;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** The anchor's entry: the form's component and the route's form load beside each other, each its own chunk. */
const ANCHOR_MAIN = (routes: Record<string, string>) => `import { lazy, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
const forms = {
${Object.entries(routes)
  .map(([route, schema]) => `  ${JSON.stringify(route)}: () => import(${JSON.stringify(`./forms/${schema}.js`)}),`)
  .join('\n')}
};
const Page = lazy(async () => {
  const [{ StepForm }, form] = await Promise.all([import('./StepForm.js'), forms[location.pathname]()]);
  return { default: () => <StepForm form={form} /> };
});
createRoot(document.getElementById('root')).render(<Suspense fallback={null}><Page /></Suspense>);
`;

const ANCHOR_FORM = `import Form from '@rjsf/core';
import { createPrecompiledValidator } from '@rjsf/validator-ajv8';
import { useMemo } from 'react';
export function StepForm({ form }) {
  const validator = useMemo(() => createPrecompiledValidator(form.validateFns, form.schema), [form]);
  return <Form schema={form.schema} uiSchema={form.uiSchema} validator={validator} liveValidate />;
}
`;

/** What a first visit to each measured route of the anchor loads: the entry, the form's component and the route's form, with their imports. */
function anchorPageScripts(metafile: esbuild.Metafile, dir: string): Record<string, string[]> {
  const outputs = Object.entries(metafile.outputs).filter(([file]) => file.endsWith('.js'));
  const owning = (input: string) => outputs.filter(([, output]) => Object.keys(output.inputs).some((each) => each.endsWith(input))).map(([file]) => file);
  const entry = outputs.find(([, output]) => output.entryPoint?.endsWith('main.tsx'))?.[0];
  if (!entry) throw new Error('The anchor has no entry script');
  return Object.fromEntries(
    SLOW_PHONE_PAGES.map(({ route, schema }) => [
      route,
      staticClosure(metafile, [entry, ...owning('StepForm.tsx'), ...owning(`forms/${schema}.js`)]).map((file) => join(dir, file)),
    ]),
  );
}

/** Gzipped size (level 9, as the app's figures) of these files together. */
export async function gzippedSize(files: string[]): Promise<number> {
  let total = 0;
  for (const file of files) total += gzipSync(await readFile(file), { level: 9 }).length;
  return total;
}

/**
 * Builds the anchor (its forms from the measured routes' schemas) and serves it as the app's
 * server serves its build: precompressed (Brotli, gzip), scripts named by their contents and kept
 * a year, the page asked again on every visit. Answers its address, each measured route's
 * first-visit scripts, and a way to stop it.
 */
export async function startAnchor(): Promise<{ url: string; firstVisit: Record<string, string[]>; stop(): Promise<void> }> {
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
  await mkdir(join(dir, 'forms'));
  for (const { schema: name } of SLOW_PHONE_PAGES) {
    const schema = loadSchema(name);
    await writeFile(join(dir, 'forms', `${name}.validators.cjs`), precompiledValidatorsCode(schema));
    await writeFile(
      join(dir, 'forms', `${name}.js`),
      `import validateFns from './${name}.validators.cjs';\nexport const schema = ${JSON.stringify(schema)};\nexport const uiSchema = ${JSON.stringify(plainUi(loadUiSchema(name)))};\nexport { validateFns };\n`,
    );
  }
  await writeFile(join(dir, 'main.tsx'), ANCHOR_MAIN(Object.fromEntries(SLOW_PHONE_PAGES.map(({ route, schema }) => [route, schema]))));
  await writeFile(join(dir, 'StepForm.tsx'), ANCHOR_FORM);
  const out = join(dir, 'public');
  const { metafile } = await esbuild.build({
    ...BROWSER_BUNDLE,
    entryPoints: [join(dir, 'main.tsx')],
    absWorkingDir: dir,
    outdir: join(out, 'assets'),
    plugins: [markdownStubPlugin],
    legalComments: 'none',
    nodePaths: [join(PROJECT_ROOT, 'node_modules')],
    logLevel: 'error',
  });
  const firstVisit = anchorPageScripts(metafile, dir);
  const [entry, ...imports] = staticClosure(metafile, [
    Object.keys(metafile.outputs).find((file) => metafile.outputs[file]?.entryPoint?.endsWith('main.tsx'))!,
  ]);
  const href = (file: string) => `/${file.replace(/^public\//, '')}`;
  // The entry's own imports preloaded with it, as index.html does for the app's.
  const page = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><script type="module" src="${href(entry!)}"></script>${imports.map((file) => `<link rel="modulepreload" href="${href(file)}">`).join('')}</head><body><div id="root"></div></body></html>`;
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
    firstVisit,
    async stop() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A cheap phone's browser tab, throttled as such a phone on a poor network. It is looked at as a
 * driver looks at the screen: at each frame the page draws (a page still waiting for what holds
 * back its first drawing shows nothing, whatever its document holds), through the DevTools
 * protocol; and typed in with the keyboard. Not with Playwright's locators: they find a field in
 * the document before any frame shows it, and they compile Playwright's own script into each new
 * page first, at the phone's CPU (two evaluations of ~60 ms each in a trace of a visit at 4×),
 * which the visit, the anchor's as ours, would be charged for.
 */
class SlowPhone {
  private constructor(
    readonly page: Page,
    private readonly cdp: CDPSession,
  ) {}

  static async open(browser: Browser): Promise<SlowPhone> {
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
    return new SlowPhone(page, cdp);
  }

  /**
   * What `expression` (a function of the page's `document`) gives once it is not null, looked at
   * in the page at each frame, as the screen shows it; null after `timeout` ms. A document that
   * goes away meanwhile is looked at again in the next.
   */
  async until<T>(expression: string, timeout = 120_000): Promise<T | null> {
    const deadline = Date.now() + timeout;
    for (;;) {
      const wait = `new Promise((resolve) => {
        const deadline = performance.now() + ${Math.max(0, deadline - Date.now())};
        const look = () => {
          const found = (${expression})(document);
          if (found !== null) resolve(found);
          else if (performance.now() > deadline) resolve(null);
          else requestAnimationFrame(look);
        };
        look();
      })`;
      const answer = await this.cdp.send('Runtime.evaluate', { expression: wait, awaitPromise: true, returnByValue: true }).catch(() => null);
      if (answer?.exceptionDetails)
        throw new Error(`Looking into the page failed: ${answer.exceptionDetails.exception?.description ?? answer.exceptionDetails.text}`);
      if (answer) return answer.result.value as T | null;
      // No document to look into for a moment (one going, the next not yet there).
      if (Date.now() > deadline) return null;
      await sleep(10);
    }
  }

  /** `field`'s value once it shows on the screen. */
  shown(field: string): Promise<string | null> {
    return this.until<string>(`(document) => {
      const input = document.querySelector(${JSON.stringify(field)});
      return input && input.checkVisibility() && input.getBoundingClientRect().width > 0 ? input.value : null;
    }`);
  }

  /** Puts the caret in `field`, as a tap on it does. */
  async focus(field: string): Promise<void> {
    await this.cdp.send('Runtime.evaluate', { expression: `document.querySelector(${JSON.stringify(field)}).focus()` });
  }

  close(): Promise<void> {
    return this.page.context().close();
  }
}

/** Milliseconds from navigating to `url` until a key typed in `field` shows there. */
async function untilTypingEchoes(phone: SlowPhone, url: string, field: string): Promise<number> {
  const started = Date.now();
  await phone.page.goto(url, { waitUntil: 'commit' });
  // A repeat visit may find the first visit's draft in the field: the key shows after it.
  const before = await phone.shown(field);
  if (before === null) throw new Error(`No ${field} at ${url} after 120 s`);
  await phone.focus(field);
  await phone.page.keyboard.press('a');
  const echoed = await phone.until(`(document) => document.querySelector(${JSON.stringify(field)})?.value === ${JSON.stringify(`${before}a`)} || null`);
  if (echoed === null) throw new Error(`The key typed in ${field} at ${url} did not show after 120 s`);
  return Date.now() - started;
}

/**
 * Milliseconds from navigating to `url` until an invalid key typed in `field` shows the field's
 * message: until the form's scripts run and judge it. The key is typed into the emptied field, and
 * the field left, again every moment until then (a page drawn by the server takes keys before its scripts run).
 */
async function untilInvalidShows(phone: SlowPhone, url: string, { field, key }: { field: string; key: string }): Promise<number> {
  const started = Date.now();
  await phone.page.goto(url, { waitUntil: 'commit' });
  if ((await phone.shown(field)) === null) throw new Error(`No ${field} at ${url} after 120 s`);
  const message = `(document) => {
    const message = document.querySelector(${JSON.stringify(`${field}__error`)});
    return message && message.checkVisibility() && /\\S/.test(message.textContent) ? true : null;
  }`;
  while (Date.now() - started < 120_000) {
    // Typed afresh each time: keys piling up could make the value valid (five digits are a zip code).
    await phone.focus(field);
    await phone.page.keyboard.press('ControlOrMeta+A');
    await phone.page.keyboard.press('Backspace');
    await phone.page.keyboard.press(key);
    await phone.page.keyboard.press('Tab');
    if (await phone.until(message, 250)) return Date.now() - started;
  }
  throw new Error(`No message on ${field} at ${url} after 120 s`);
}

/** One page's visits at one site: until an invalid key shows its message, the first visit until a typed key shows, and a repeat visit. */
interface Visits {
  first: number[];
  repeat: number[];
  judged: number[];
}

async function visit(browser: Browser, url: string, { field, invalid }: (typeof SLOW_PHONE_PAGES)[number], into: Visits): Promise<void> {
  let phone = await SlowPhone.open(browser);
  into.judged.push(await untilInvalidShows(phone, url, invalid));
  await phone.close();
  phone = await SlowPhone.open(browser);
  into.first.push(await untilTypingEchoes(phone, url, field));
  await phone.page.goto('about:blank');
  into.repeat.push(await untilTypingEchoes(phone, url, field));
  await phone.close();
}

export interface SlowPhonePage {
  route: string;
  /** Medians of five, ours and the anchor's. */
  ours: { first: number; repeat: number; judged: number };
  anchor: { first: number; repeat: number; judged: number };
  /** The median of the five visits' ratios to the anchor's first echo (when the anchor, drawn in the browser only, takes a key): ours drawn, and ours hydrated. */
  drawnRatio: number;
  judgedRatio: number;
}

/**
 * Each measured page visited five times at `baseUrl` and at the anchor's, in turns: a visit of
 * ours, then one of the anchor's. Each figure beside the anchor is the median of the five turns'
 * ratios: a shared machine's busy spell lasts longer than a turn, so it slows both sides of a ratio,
 * where five visits of ours and then five of the anchor's could each meet a different load.
 */
export async function slowPhoneVisits(browser: Browser, baseUrl: string, anchorUrl: string): Promise<SlowPhonePage[]> {
  const results: SlowPhonePage[] = [];
  for (const page of SLOW_PHONE_PAGES) {
    const ours: Visits = { first: [], repeat: [], judged: [] };
    const anchor: Visits = { first: [], repeat: [], judged: [] };
    for (let turn = 0; turn < VISITS; turn++) {
      await visit(browser, `${baseUrl}${page.route}`, page, ours);
      await visit(browser, `${anchorUrl}${page.route}`, page, anchor);
    }
    const medians = ({ first, repeat, judged }: Visits) => ({ first: median(first), repeat: median(repeat), judged: median(judged) });
    const ratios = (values: number[]) => median(values.map((value, turn) => value / anchor.first[turn]!));
    results.push({ route: page.route, ours: medians(ours), anchor: medians(anchor), drawnRatio: ratios(ours.first), judgedRatio: ratios(ours.judged) });
  }
  return results;
}
