import { chromium, type Browser } from 'playwright-core';

/** Where Debian's chromium package puts the browser. */
export const DEBIAN_CHROMIUM = '/usr/bin/chromium';
/** The Chromium the tests and the bench launch: CHROMIUM_PATH, or Debian's. */
export const chromiumPath = process.env.CHROMIUM_PATH || DEBIAN_CHROMIUM;

/** Headless Chromium, as the browser tests and the bench drive it: offline, no sandbox (root in CI). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}
