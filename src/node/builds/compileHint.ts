import type { PageScripts } from './pageScripts.js';

/**
 * V8's explicit compile hint (Chrome 136 on): every function of a file so marked is compiled as the
 * file streams in, on a background thread, instead of on the main thread the first time it is
 * called. A drawn step's first visit calls most of React's and rjsf's functions at once, to hydrate
 * the form: compiled while the bytes still arrive, the form is the driver's ~200 ms sooner on the
 * bench's slow phone. Only on the scripts a first visit runs at once (scriptsRunAtOnce): on the
 * others (Firebase's sign-in, the staff pages) it would compile much that never runs.
 */
export const COMPILE_ALL_HINT = Buffer.from('//# allFunctionsCalledOnLoad\n');

/** The scripts some page runs as it loads, paths under the project (dist/assets/…): the shell and each route's own. */
export function scriptsRunAtOnce({ shell, routes }: PageScripts): Set<string> {
  return new Set([...shell, ...Object.values(routes).flatMap((byLocale) => Object.values(byLocale).flat())]);
}
