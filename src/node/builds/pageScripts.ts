/** Which scripts each page loads, read from esbuild's metafile. */
import { basename } from 'node:path';
import type * as esbuild from 'esbuild';
import { formModuleOf } from './forms.js';
import { FLOW_FILE, loadFlow } from '../projectFiles.js';
import { DEFAULT_LOCALE, LOCALES, translationFileOf, type Locale } from '../../shared/locales.js';

export type Metafile = esbuild.Metafile;

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/** The given scripts and every chunk they import statically: what a page loads with them. */
export function staticClosure(metafile: Metafile, roots: string[]): string[] {
  const files = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const imported of metafile.outputs[file]?.imports ?? []) if (imported.kind === 'import-statement') visit(imported.path);
  };
  roots.forEach(visit);
  return [...files];
}

/** Per route, per language: the scripts the route's page loads beyond the shell, paths under dist/ (route-preloads.json). */
export type RouteScripts = Record<string, Record<Locale, string[]>>;

/** The entry script, its stylesheet, the shell and each route's own scripts, paths under the project (dist/assets/…). */
export interface PageScripts {
  entry: string;
  css: string;
  shell: string[];
  routes: RouteScripts;
}

/**
 * The scripts of each page: the entry and what it imports (the shell, which every page loads),
 * and for each step's route, in each language, the scripts its page loads on demand: the form
 * renderer and the step's form in that language, or the screen; in a translated language, its
 * texts too. A form's variants (profile-social) are left to the few drivers whose page picks one.
 */
export function pageScripts(metafile: Metafile): PageScripts {
  const [entry, output] = Object.entries(metafile.outputs).find(([, o]) => o.entryPoint?.endsWith('src/client/app/main.tsx')) ?? [];
  if (!entry || !output?.cssBundle) throw new Error('The client bundle has no entry script or stylesheet');
  const shell = staticClosure(metafile, [entry]);
  const chunksOf = (input: string) =>
    Object.keys(metafile.outputs).filter(
      (file) => file.endsWith('.js') && Object.keys(metafile.outputs[file]?.inputs ?? {}).some((each) => each.endsWith(input)),
    );
  const routes: RouteScripts = {};
  for (const step of Object.values(loadFlow().steps)) {
    const scriptsIn = (locale: Locale) => {
      const page =
        step.kind === 'form'
          ? [
              'src/client/form/StepPage.tsx',
              ...(step.social ? ['src/client/form/SocialSignIn.tsx'] : []),
              `build/generated/forms/${formModuleOf(step.schema, locale)}.js`,
              ...(locale === DEFAULT_LOCALE ? [] : [translationFileOf(locale, 'rjsf.json')]),
            ]
          : [`src/client/screens/${pascal(step.screen)}Screen.tsx`];
      const texts = locale === DEFAULT_LOCALE ? [] : [translationFileOf(locale, basename(FLOW_FILE))];
      return staticClosure(metafile, [...page, ...texts].flatMap(chunksOf)).filter((file) => !shell.includes(file));
    };
    routes[step.route] = Object.fromEntries((Object.keys(LOCALES) as Locale[]).map((locale) => [locale, scriptsIn(locale)])) as Record<Locale, string[]>;
  }
  return { entry, css: output.cssBundle, shell, routes };
}
