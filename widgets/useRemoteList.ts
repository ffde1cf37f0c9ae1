import { useCallback, useEffect, useState } from 'react';

export type RemoteList<T> = { status: 'idle' } | { status: 'loading' } | { status: 'ready'; items: T[] } | { status: 'error' };

/**
 * A list fetched by key (a state code) through a module-level cache: `cached(key)` answers at
 * once for a list seen before, `load(key)` fetches it. Both must be stable functions. Returns the
 * list's state for the current key and a retry for a failed load.
 */
export function useRemoteList<T>(
  key: string | undefined,
  cached: (key: string) => T[] | undefined,
  load: (key: string) => Promise<T[]>,
): [RemoteList<T>, () => void] {
  const hit = key === undefined ? undefined : cached(key);
  const [failedKey, setFailedKey] = useState<string | undefined>(undefined);
  const [attempt, setAttempt] = useState(0);
  const [, setLoadedKey] = useState<string | undefined>(undefined);

  useEffect(() => {
    if (key === undefined || cached(key) !== undefined) return;
    let current = true;
    load(key).then(
      () => {
        // The list is in the cache now; re-render to read it.
        if (current) setLoadedKey(key);
      },
      () => {
        if (current) setFailedKey(key);
      },
    );
    return () => {
      current = false;
    };
  }, [key, attempt, cached, load]);

  const retry = useCallback(() => {
    setFailedKey(undefined);
    setAttempt((n) => n + 1);
  }, []);

  if (key === undefined) return [{ status: 'idle' }, retry];
  if (hit !== undefined) return [{ status: 'ready', items: hit }, retry];
  if (failedKey === key) return [{ status: 'error' }, retry];
  return [{ status: 'loading' }, retry];
}
