import { chromium, type Browser } from 'playwright-core';

/**
 * Where Debian's chromium-headless-shell package puts Chromium's headless shell: the browser
 * without a window of its own, as Playwright runs Chromium headless (the full browser, headless,
 * still draws its own window's pages out of sight).
 */
export const DEBIAN_CHROMIUM = '/usr/bin/chromium-headless-shell';
/** The Chromium the tests and the bench launch: CHROMIUM_PATH, or Debian's headless shell. */
export const chromiumPath = process.env.CHROMIUM_PATH || DEBIAN_CHROMIUM;

/** Offline, no sandbox (root in CI). */
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Headless Chromium, as the bench drives it, and a phone's browser runs a page. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: ARGS });
}

/**
 * Headless Chromium as the tests drive it: with V8's optimizing compilers (Maglev, TurboFan) off. A
 * test's page lives for seconds, too short for them to pay back the CPU they cost. With them, in the
 * full browser, the browser project took 796 CPU-seconds (401 s) on an idle two-core machine; in
 * the headless shell without them, 394 (203 s).
 */
export function launchTestChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: [...ARGS, '--js-flags=--no-opt --no-maglev'] });
}
