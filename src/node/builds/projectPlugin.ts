/**
 * What the client's code imports from the content folder: the generated forms (`virtual:forms`),
 * the flow file and the translations.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type * as esbuild from 'esbuild';
import { GENERATED } from './paths.js';
import { CONTENT_ROOT, FLOW_FILE, noteMissingTranslation } from '../projectFiles.js';

/** The namespace of a translation file the content folder does not have. */
const NO_TRANSLATIONS = 'no-translations';
/** The namespace of the content folder's flow file and translations. */
export const DATA_FILE = 'data-file';

/** A data file's value without its "$comment"s: notes for whoever edits the file, which no page reads. */
function withoutComments(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutComments);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).flatMap(([key, each]) => (key === '$comment' ? [] : [[key, withoutComments(each)]])));
}

/**
 * `virtual:forms` is the generated loader (read at each build: an edit may add a form); the flow
 * file is the content folder's. The flow file and the translations reach the browser without
 * their "$comment"s (a tenth of the flow file, in the script every page loads first).
 */
export function projectPlugin(formsLoader: () => string): esbuild.Plugin {
  return {
    name: 'onramp',
    setup(build) {
      build.onResolve({ filter: /^virtual:forms$/ }, () => ({ path: 'forms', namespace: 'virtual' }));
      build.onLoad({ filter: /.*/, namespace: 'virtual' }, () => ({ contents: formsLoader(), resolveDir: GENERATED, loader: 'js' }));
      build.onResolve({ filter: /\/flows\/onboarding\.flow\.json$/ }, () => ({ path: FLOW_FILE, namespace: DATA_FILE }));
      // The translations of the content folder, as the flow file; one it does not have is none (its texts stay English).
      build.onResolve({ filter: /\/locales\/[\w-]+\/[\w.-]+\.json$/ }, ({ path }) => {
        const file = path.slice(path.lastIndexOf('locales/'));
        if (existsSync(join(CONTENT_ROOT, file))) return { path: join(CONTENT_ROOT, file), namespace: DATA_FILE };
        noteMissingTranslation(file);
        return { path: file, namespace: NO_TRANSLATIONS };
      });
      build.onLoad({ filter: /.*/, namespace: NO_TRANSLATIONS }, () => ({ contents: '{}', loader: 'json' }));
      build.onLoad({ filter: /.*/, namespace: DATA_FILE }, async ({ path }) => ({
        contents: JSON.stringify(withoutComments(JSON.parse(await readFile(path, 'utf8')))),
        loader: 'json',
        watchFiles: [path],
      }));
    },
  };
}
