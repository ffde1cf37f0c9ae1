import { chromium, type Browser } from 'playwright-core';

/** Debian's headless Chromium (CHROMIUM_PATH elsewhere), as the browser tests and the bench drive it: offline, no sandbox (root in CI). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}
