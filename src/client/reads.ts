/**
 * What a page shows of the server is read through swr, with fetchers built on api.ts: a failure
 * is thrown as a RequestError, whose message is the one to show.
 */
import { useState } from 'react';
import type { SWRConfiguration } from 'swr';
import type { ApiFailure, ApiResult } from './api.js';
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

/** Read when shown, and again when asked; not on focus, reconnection or failure. */
export const READ_ONCE: SWRConfiguration = { revalidateOnFocus: false, revalidateOnReconnect: false, shouldRetryOnError: false };

let openings = 0;

/** A key part new each time a screen opens: what it reads then is read afresh, never shown from an earlier visit. */
export function useOpening(): number {
  const [opening] = useState(() => ++openings);
  return opening;
}
