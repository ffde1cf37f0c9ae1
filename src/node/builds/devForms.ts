/**
 * Under `npm run dev` the forms are not in the app's bundles but beside them: the form modules
 * (forms.ts) bundled each by itself into dist/assets/forms/, found through a map of form → URL
 * that index.html carries for the browser and build/forms.json for the server's drawing. A saved
 * schema then makes and bundles again only its forms: the app's bundles, whose every
 * rebuild links and minifies all their chunks (most of a second each), are left as they are.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as esbuild from 'esbuild';
import { formModuleOf, NO_SUCH_FORM } from './forms.js';
import { GENERATED } from './paths.js';
import { CONTENT_ROOT, DIST, PROJECT_ROOT } from '../projectFiles.js';
import { DEFAULT_LOCALE, LOCALES, type Locale } from '../../shared/locales.js';

/** Each form module's URL ("/assets/forms/profile.es-HASH.js"), by "name\nlocale". */
export type FormUrls = Record<string, string>;

/** The forms bundled: their files, in memory, and each one's URL. */
export interface FormsBundle {
  outputFiles: esbuild.OutputFile[];
  urls: FormUrls;
}

/** The server's drawing reads the map here (beside its bundle, never served). */
export const FORM_URLS_FILE = join(CONTENT_ROOT, 'build', 'forms.json');
/** The element of index.html holding the map for the browser. */
const FORM_URLS_ELEMENT_ID = 'form-urls';

/** index.html's element with the map, as JSON no value can close. */
export const formUrlsElement = (urls: FormUrls) =>
  `<script type="application/json" id="${FORM_URLS_ELEMENT_ID}">${JSON.stringify(urls).replace(/</g, '\\u003c')}</script>`;

/**
 * `virtual:forms` (src/client/app/forms.d.ts) loading through the map: `urls()` is the map's
 * source. A form's version is its URL, which changes with its contents.
 */
const loaderWith = (imports: string, urls: string, load: string) => `${imports}
export const formVersion = (name, locale = ${JSON.stringify(DEFAULT_LOCALE)}) => ${urls}[name + '\\n' + locale] ?? '';
export function loadForm(name, locale = ${JSON.stringify(DEFAULT_LOCALE)}) {
  const url = formVersion(name, locale);
  return url ? import(${load}) : ${NO_SUCH_FORM};
}
`;

/** The browser's: a page's map is the one it was sent with. */
export const BROWSER_FORMS_LOADER = loaderWith(
  `const urls = JSON.parse(document.getElementById(${JSON.stringify(FORM_URLS_ELEMENT_ID)}).textContent);`,
  'urls',
  'url',
);

/** The drawing's, kept loaded from edit to edit: read at each call, the map is the last edit's. */
export const SERVER_FORMS_LOADER = loaderWith(
  `import { readFileSync } from 'node:fs';\nimport { pathToFileURL } from 'node:url';\nconst urls = () => JSON.parse(readFileSync(${JSON.stringify(FORM_URLS_FILE)}, 'utf8'));`,
  'urls()',
  `pathToFileURL(${JSON.stringify(DIST)} + url).href`,
);

/**
 * The forms' modules (generateForms writes them), each bundled into memory by itself, whole: a
 * rebuild bundles again only the modules whose text changed (their text holds the schema and UI
 * schema their validators are made from).
 */
export function formsBundle() {
  const bundled = new Map<string, { text: string; file: esbuild.OutputFile }>();
  return {
    /** These forms in each language: their files, and each one's URL. */
    async rebuild(names: string[]): Promise<FormsBundle> {
      const sources = new Map<string, { path: string; text: string }>(
        names.flatMap((name) =>
          (Object.keys(LOCALES) as Locale[]).map((locale) => {
            const path = join(GENERATED, 'forms', `${formModuleOf(name, locale)}.js`);
            return [`${name}\n${locale}`, { path, text: readFileSync(path, 'utf8') }];
          }),
        ),
      );
      const stale = [...sources].filter(([key, { text }]) => bundled.get(key)?.text !== text);
      if (stale.length > 0) {
        const { outputFiles, metafile } = await esbuild.build({
          entryPoints: stale.map(([, { path }]) => path),
          bundle: true,
          format: 'esm',
          // Plain JavaScript, run by the browser and by the server's drawing alike.
          platform: 'browser',
          target: 'es2020',
          write: false,
          metafile: true,
          absWorkingDir: CONTENT_ROOT,
          outdir: join(DIST, 'assets', 'forms'),
          entryNames: '[name]-[hash]',
          logLevel: 'warning',
          nodePaths: [join(PROJECT_ROOT, 'node_modules')],
        });
        for (const [key, { path, text }] of stale) {
          // Named from the working directory, as the entry point is.
          const output = Object.keys(metafile.outputs).find((each) => metafile.outputs[each]?.entryPoint === relative(CONTENT_ROOT, path));
          const file = outputFiles.find((each) => each.path === join(CONTENT_ROOT, output ?? ''));
          if (!file) throw new Error(`The forms' bundle has no ${relative(CONTENT_ROOT, path)}`);
          bundled.set(key, { text, file });
        }
      }
      for (const key of bundled.keys()) if (!sources.has(key)) bundled.delete(key);
      const forms = [...bundled];
      return {
        outputFiles: forms.map(([, { file }]) => file),
        urls: Object.fromEntries(forms.map(([key, { file }]) => [key, `/${relative(DIST, file.path)}`])),
      };
    },
  };
}
