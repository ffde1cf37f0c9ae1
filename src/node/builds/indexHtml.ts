/** index.html and route-preloads.json: what a page is sent with, so it asks for its scripts at once. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type FormUrls, formUrlsElement } from './devForms.js';
import type { PageScripts } from './pageScripts.js';
import { CLIENT } from './paths.js';
import { writeWhole } from './writeWhole.js';
import { DIST, loadFlow, ROUTE_PRELOADS } from '../projectFiles.js';

const href = (file: string) => '/' + file.replace(/^dist\//, '');
const preloadLinks = (files: string[]) => files.map((file) => `<link rel="modulepreload" href="${href(file)}" />`).join('\n    ');

/**
 * The app's stylesheet, to sit in index.html's head. In the page, not a file of its own: a
 * stylesheet holds back the page's first drawing, and as a file it is asked for only once the
 * page has come, a round trip later, sharing the line with the scripts (on the bench's slow
 * phone, a drawn step showed ~0.5 s later). Sent again with each page, ~4 KB compressed; a
 * repeat visit's page is a 304, with no body. Checked, as the page would not read it right: a
 * url() must not be relative (to the page, not to assets/), nor may the text end the element.
 */
export function inlineStylesheet(css: string): string {
  const relativeUrl = /url\(\s*(?!["']?(?:data:|\/|#|https?:))([^)]*)\)/.exec(css);
  if (relativeUrl)
    throw new Error(
      `The app's stylesheet names ${relativeUrl[1]} by a relative url(): in index.html it would be looked for beside the page. Use a data: URL or a path from /.`,
    );
  if (/<\/style/i.test(css)) throw new Error('The app\'s stylesheet holds "</style", which would end its element in index.html.');
  return `<style>${css.trim()}</style>`;
}

/**
 * index.html with the entry, its stylesheet (inlineStylesheet) and the scripts it imports
 * (preloaded with it, not found one after another), and route-preloads.json: each route's own
 * scripts, which the server preloads in that page, so a first visit fetches everything at once
 * instead of in a chain. `formUrls`: where the forms are, when they are bundled apart (devForms.ts);
 * a step's form is then preloaded on its route too, or a reloaded page would ask for it only once
 * its scripts had run (about a fifth of a live edit's time).
 */
export async function writeIndexHtml({ entry: js, shell, routes }: PageScripts, css: string, formUrls?: FormUrls): Promise<void> {
  const template = await readFile(join(CLIENT, 'app', 'index.html'), 'utf8');
  const page = template
    .replace('%JS%', href(js))
    .replace('%PRELOAD%', preloadLinks(shell.filter((file) => file !== js)))
    // Last, and by a function: the stylesheet's text is not looked into, and a "$" in it stays as it is.
    .replace('%STYLESHEET%', () => inlineStylesheet(css))
    .replace('</head>', () => (formUrls ? `  ${formUrlsElement(formUrls)}\n  </head>` : '</head>'));
  const formOf = new Map(Object.values(loadFlow().steps).flatMap((step) => (step.kind === 'form' ? [[step.route, step.schema]] : [])));
  const formApart = (route: string, locale: string) => {
    const url = formUrls?.[`${formOf.get(route)}\n${locale}`];
    return url ? [url] : [];
  };
  const preloads = Object.fromEntries(
    Object.entries(routes).map(([route, byLocale]) => [
      route,
      Object.fromEntries(Object.entries(byLocale).map(([locale, files]) => [locale, [...files.map(href), ...formApart(route, locale)]])),
    ]),
  );
  await writeWhole(join(DIST, ROUTE_PRELOADS), JSON.stringify(preloads));
  await writeWhole(join(DIST, 'index.html'), page);
}
