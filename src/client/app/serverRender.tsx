/**
 * The server's drawing of a form step (src/server/routes/static.ts): the same App, StepPage, rjsf
 * templates and widgets as the browser, in the page's language, for the browser to hydrate
 * (main.tsx). Built by src/node/builds/bundles.ts into build/ssr/ for node; it holds nothing of a driver's,
 * so the server keeps each drawing per language and build.
 */
import { StrictMode } from 'react';
import { prerenderToNodeStream } from 'react-dom/static';
import { Router } from 'wouter';
import { App } from './App.js';
import { flow, isFormStep } from '../runtime/flow.js';
import { chooseLocale } from '../runtime/locale.js';
import { drawnToday } from '../runtime/serverPage.js';
import type { Locale } from '../../shared/locales.js';
import type { ServerPage } from '../../shared/serverPage.js';

/** The page's language and flow are the module's own (locale.ts): one drawing at a time. */
let drawing: Promise<unknown> = Promise.resolve();

/**
 * The HTML of the form step at `path` in `locale`, with what the browser needs to hydrate it, and
 * whether a signed-in driver's answers sent before fill it in the browser (a reviewed step); null
 * for a path no form step has.
 */
export function renderStep(path: string, locale: Locale): Promise<{ html: string; page: ServerPage; reviewed: boolean } | null> {
  const drawn = drawing.then(() => draw(path, locale));
  // The next drawing waits for this one however it ends; its failure is its caller's (`drawn`).
  drawing = drawn.catch(() => undefined);
  return drawn;
}

async function draw(path: string, locale: Locale): Promise<{ html: string; page: ServerPage; reviewed: boolean } | null> {
  const [id, step] = Object.entries(flow.steps).find(([, each]) => each.route === path) ?? [];
  if (!id || !step || !isFormStep(step)) return null;
  await chooseLocale(locale);
  // A part that fails to draw is drawn by the browser alone (React's own fallback): the page is then not sent drawn.
  let failure: unknown;
  const { prelude } = await prerenderToNodeStream(
    <StrictMode>
      <Router ssrPath={path}>
        <App />
      </Router>
    </StrictMode>,
    {
      onError: (error) => {
        failure ??= error;
      },
    },
  );
  const chunks: Buffer[] = [];
  for await (const chunk of prelude) chunks.push(Buffer.from(chunk as Uint8Array));
  if (failure) throw failure;
  return {
    html: Buffer.concat(chunks).toString('utf8'),
    page: { step: id, route: path, locale, schema: step.schema, today: drawnToday() ?? '' },
    reviewed: flow.review.steps.includes(id),
  };
}
