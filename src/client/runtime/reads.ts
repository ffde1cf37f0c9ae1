/**
 * What a page shows of the server is read through swr, with fetchers built on api.ts: a failure
 * is thrown as a RequestError, whose message is the one to show. The reads of the page a driver
 * opens by its address may begin before its scripts have run, into swr's cache (useOpeningRead).
 */
import { useEffect, useState } from 'react';
import useSWR, { mutate, useSWRConfig, type SWRConfiguration, type SWRResponse } from 'swr';
import { request, type ApiFailure, type ApiResult } from './api.js';
import { flow } from './flow.js';

export class RequestError extends Error {
  constructor(
    readonly failure: ApiFailure,
    fallback: string,
  ) {
    super(failure.message ?? fallback);
  }
}

/** A read's answer; a failure is thrown with the server's message, or `fallback`. */
export async function dataOf<T>(result: Promise<ApiResult<T>>, fallback: string = flow.messages.requestFailed): Promise<T> {
  const answer = await result;
  if (!answer.ok) throw new RequestError(answer, fallback);
  return answer.data;
}

/**
 * The page's own fetcher (the SWRConfig around the app): a key that is a path is read as it is,
 * its JSON answered. The widgets' remote lists (the US states and cities) are read with it.
 */
export const readPath = (path: string): Promise<unknown> => dataOf(request<unknown>(path));

/** Read when shown, and again when asked; not on focus, reconnection or failure. */
export const READ_ONCE: SWRConfiguration = { revalidateOnFocus: false, revalidateOnReconnect: false, shouldRetryOnError: false };

/** The first part of every key the driver's status is read under. */
const DRIVER_STATUS = 'driverStatus';

/** The key a screen reads the driver's status under with the flow's `call`. */
export const driverStatusKey = (call: string, driverId: string): [typeof DRIVER_STATUS, string, string] => [DRIVER_STATUS, call, driverId];

/**
 * Drops every read of the driver's status: a step just sent changed it (a fix sent is no longer
 * asked for), so no screen may show the one read before; each reads it afresh.
 */
export async function forgetDriverStatus(): Promise<void> {
  await mutate((key) => Array.isArray(key) && key[0] === DRIVER_STATUS, undefined, { revalidate: true });
}

let openings = 0;

/** A key part new each time a screen opens: what it reads then is read afresh, never shown from an earlier visit. */
export function useOpening(): number {
  const [opening] = useState(() => ++openings);
  return opening;
}

/** A read named by a key that holds all it depends on (the step, the driver). */
export interface KeyedRead<T> {
  key: string;
  read: () => Promise<T>;
}

/** How a read begun as the page opened ended, as swr's cache holds it (a draft read may find nothing: `value` undefined). */
type Ended = { value: unknown } | { error: unknown };

/** The swr key a read begun as the page opened is kept under until its screen takes it. */
const openedKey = (key: string) => `opened:${key}`;

/**
 * Begins a read the first screen needs as the page opens (main.tsx), beside the app's scripts
 * rather than after them, into swr's cache. Answers once it ended, however it ended.
 */
export async function beginOpeningRead({ key, read }: KeyedRead<unknown>): Promise<void> {
  const ended = read().then(
    (value): Ended => ({ value }),
    (error: unknown): Ended => ({ error }),
  );
  await mutate(openedKey(key), ended, { revalidate: false });
}

/**
 * A screen's read through swr, read afresh each time the screen opens (none for null). The read
 * begun as the page opened under the same key is taken instead (once), and shows at the first
 * draw, with no spinner before it. `shape` runs once on what was read (a draft's photos go back
 * in their slots) and never answers undefined, swr's "nothing yet".
 */
export function useOpeningRead<T, Shown>(keyed: KeyedRead<T> | null, shape: (value: T) => Shown): SWRResponse<Shown> {
  const opening = useOpening();
  const { cache } = useSWRConfig();
  const [begun] = useState(() => {
    const ended = keyed ? (cache.get(openedKey(keyed.key))?.data as Ended | undefined) : undefined;
    return ended && ('error' in ended ? ended : { shown: shape(ended.value as T) });
  });
  // Taken once the screen is on the page: a first draw React sets aside (a part of the page still
  // loading) and draws again takes it again.
  const takenKey = begun && keyed && openedKey(keyed.key);
  useEffect(() => {
    if (takenKey) cache.delete(takenKey);
  }, [cache, takenKey]);
  return useSWR(
    keyed && ([keyed.key, opening] as const),
    async () => {
      if (begun && 'error' in begun) throw begun.error;
      return shape(await (keyed as KeyedRead<T>).read());
    },
    {
      revalidateOnFocus: false,
      revalidateIfStale: false,
      fallbackData: begun && 'shown' in begun ? begun.shown : undefined,
      revalidateOnMount: !(begun && 'shown' in begun),
    },
  );
}
