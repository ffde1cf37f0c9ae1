import { useCallback } from 'react';
import useSWR, { preload, useSWRConfig, type SWRConfiguration } from 'swr';

export type RemoteList<T> = { status: 'idle' } | { status: 'loading' } | { status: 'ready'; items: T[] } | { status: 'error' };

/** A list is read once and kept for the visit: not again on focus, reconnection or failure, only on Retry. */
const KEPT_FOR_THE_VISIT: SWRConfiguration = {
  revalidateIfStale: false,
  revalidateOnFocus: false,
  revalidateOnReconnect: false,
  shouldRetryOnError: false,
};

/**
 * Begins reading a list before the widget that shows it is drawn (swr's preload), with the page's
 * fetcher: the widget's first read takes this one, however it ends.
 */
export function preloadRemoteList<T>(path: string, shape: (data: unknown) => T[], fetcher: (path: string) => Promise<unknown>): void {
  // A failure is the widget's to show (its read takes this very promise); not an unhandled rejection meanwhile.
  preload(path, async (key: string) => shape(await fetcher(key))).catch(() => undefined);
}

/**
 * A list read through swr under `path` (undefined: nothing to read yet, e.g. no state chosen) with
 * the page's fetcher (the SWRConfig around the app, src/client/app/App.tsx), its answer checked by
 * `shape`, which throws on a list of another shape. Returns the list's state and a retry for a
 * failed read; a retry shows as loading until it ends.
 */
export function useRemoteList<T>(path: string | undefined, shape: (data: unknown) => T[]): [RemoteList<T>, () => void] {
  const { fetcher } = useSWRConfig();
  const { data, error, isValidating, mutate } = useSWR(
    path ?? null,
    async (key: string) => {
      if (!fetcher) throw new Error('No fetcher: the widget is drawn outside the app’s SWRConfig');
      return shape(await fetcher(key));
    },
    KEPT_FOR_THE_VISIT,
  );
  const retry = useCallback(() => void mutate(), [mutate]);
  if (path === undefined) return [{ status: 'idle' }, retry];
  if (data !== undefined) return [{ status: 'ready', items: data }, retry];
  if (error !== undefined && !isValidating) return [{ status: 'error' }, retry];
  return [{ status: 'loading' }, retry];
}
