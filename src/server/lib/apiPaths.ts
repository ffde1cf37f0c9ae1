/**
 * Which request paths belong to the API (never answered with the web page, always no-store):
 * every first path segment of the given paths (the flow's calls: /auth, /driver; /ip; /admin)
 * plus /dev. A page may share its first segment with an API: the admin review page is exactly
 * /admin (or /admin/), while everything below /admin/ is the admin API; such pages are named
 * in `pagePaths`.
 */
export function apiPathTest(apiPaths: string[], pagePaths: string[] = []): (url: string) => boolean {
  const roots = new Set(apiRoots(apiPaths));
  const pages = new Set(pagePaths.flatMap((path) => [path.replace(/\/+$/, ''), `${path.replace(/\/+$/, '')}/`]));
  // Asked of every answer (app.ts), so it slices rather than splits.
  return (url) => {
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const slash = path.indexOf('/', 1);
    return roots.has(path.slice(1, slash === -1 ? undefined : slash)) && !pages.has(path);
  };
}

/** The first path segments that are the API's: those of the given paths, and "dev". */
export function apiRoots(apiPaths: string[]): string[] {
  return [...new Set(['dev', ...apiPaths.map((path) => path.split('/')[1] ?? '')])].filter((root) => root !== '');
}

/**
 * The resume page, /:id/:token (spec §2), as the server serves it: slashes doubled or trailing
 * too. Whatever follows a driver id first in a path may be a resume link's token.
 */
const RESUME_PAGE = /^\/+([0-9a-fA-F-]{36})\/.*$/;

/**
 * The request's URL as a log line may show it: its path alone, as a query may carry a token (refused,
 * but sent all the same) or a driver's details; and a resume link's token is left out of its path (no
 * token in a log line: docs/architecture.md, "Security rules the code keeps").
 */
export function loggableUrl(url: string): string {
  const query = url.search(/[?#]/);
  return (query === -1 ? url : url.slice(0, query)).replace(RESUME_PAGE, '/$1/[token]');
}
