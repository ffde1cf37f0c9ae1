/**
 * Which request paths belong to the API (never answered with the web page, always no-store):
 * every first path segment of the flow's calls (/auth, /driver, /ip) plus /dev.
 */
export function apiPathTest(callPaths: string[]): (url: string) => boolean {
  const roots = new Set(['dev', ...callPaths.map((path) => path.split('/')[1] ?? '')]);
  roots.delete('');
  return (url) => roots.has((url.split('?')[0] ?? '').split('/')[1] ?? '');
}
