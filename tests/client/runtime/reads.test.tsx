// @vitest-environment happy-dom
// The page's reads (runtime/reads.ts): a failure thrown with the server's message, and a read
// begun as the page opened taken by the first screen that asks for it, at its first draw.
import { cleanup, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { SWRConfig, useSWRConfig } from 'swr';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { beginOpeningRead, dataOf, RequestError, useOpeningRead, type KeyedRead } from '../../../src/client/runtime/reads.js';
import { flow } from '../../../src/client/runtime/flow.js';

afterEach(cleanup);

/** A fresh swr cache for each test, as each page load has. */
function freshCache() {
  const cache = new Map();
  const wrapper = ({ children }: { children: ReactNode }) => <SWRConfig value={{ provider: () => cache }}>{children}</SWRConfig>;
  return { wrapper };
}

/** A read that counts how often it is made. */
function countedRead<T>(key: string, answer: () => Promise<T>): KeyedRead<T> & { made: () => number } {
  const read = vi.fn(answer);
  return { key, read, made: () => read.mock.calls.length };
}

describe('a read’s answer (dataOf)', () => {
  it('answers the data, and throws a failure with the server’s message, else the fallback', async () => {
    await expect(dataOf(Promise.resolve({ ok: true as const, status: 200, data: { a: 1 } }))).resolves.toEqual({ a: 1 });
    const refused = dataOf(Promise.resolve({ ok: false as const, status: 403, message: 'Not yours' }));
    await expect(refused).rejects.toBeInstanceOf(RequestError);
    await expect(refused).rejects.toThrow('Not yours');
    await expect(dataOf(Promise.resolve({ ok: false as const, status: 500 }))).rejects.toThrow(flow.messages.requestFailed);
    await expect(dataOf(Promise.resolve({ ok: false as const, status: 500 }), 'No list')).rejects.toThrow('No list');
  });
});

describe('a screen’s read (useOpeningRead)', () => {
  it('reads when the screen opens, shaped once', async () => {
    const read = countedRead('draft:new:signup', async () => ({ firstName: 'Ana' }));
    const { result } = renderHook(() => useOpeningRead(read, (value) => ({ shaped: value })), freshCache());
    await waitFor(() => expect(result.current.data).toEqual({ shaped: { firstName: 'Ana' } }));
    expect(read.made()).toBe(1);
  });

  it('shows a read begun as the page opened at its first draw, without reading again', async () => {
    const read = countedRead('draft:new:signup', async () => ({ firstName: 'Ana' }));
    const cache = freshCache();
    // The page's opening read goes into the cache the screen reads (the app's, here the test's).
    const { result: config } = renderHook(() => useSWRConfig(), cache);
    await config.current.mutate(
      `opened:${read.key}`,
      read.read().then((value) => ({ value })),
      { revalidate: false },
    );
    const { result } = renderHook(() => useOpeningRead(read, (value) => value), cache);
    expect(result.current.data).toEqual({ firstName: 'Ana' });
    expect(read.made()).toBe(1);
  });

  it('takes the read begun as the page opened only once: a screen opened again reads afresh', async () => {
    let name = 'Ana';
    const read = countedRead('draft:new:signup', async () => ({ firstName: name }));
    await beginOpeningRead(read);
    const first = renderHook(() => useOpeningRead(read, (value) => value));
    expect(first.result.current.data).toEqual({ firstName: 'Ana' });
    first.unmount();
    name = 'Anabel';
    const again = renderHook(() => useOpeningRead(read, (value) => value));
    await waitFor(() => expect(again.result.current.data).toEqual({ firstName: 'Anabel' }));
    expect(read.made()).toBe(2);
  });

  it('gives the failure of a read begun as the page opened to the screen', async () => {
    const read = countedRead('answers:driver-1:completeProfile', async () => {
      throw new Error('Something went wrong.');
    });
    await beginOpeningRead(read);
    const { result } = renderHook(() => useOpeningRead(read, (value) => value));
    await waitFor(() => expect(result.current.error).toEqual(new Error('Something went wrong.')));
    expect(read.made()).toBe(1);
  });

  it('reads nothing for no read', () => {
    const { result } = renderHook(() => useOpeningRead(null, (value) => value), freshCache());
    expect(result.current.data).toBeUndefined();
    expect(result.current.isLoading).toBe(false);
  });
});
