import type { AppConfig } from '../../shared/appConfig.js';

let cached: AppConfig | undefined;

export function appConfig(): AppConfig {
  if (!cached) {
    const text = document.getElementById('app-config')?.textContent;
    if (!text) throw new Error('The page has no #app-config; it must be served by the Onramp server.');
    cached = JSON.parse(text) as AppConfig;
  }
  return cached;
}
