// @vitest-environment happy-dom
// A component whose code loads apart: drawn at once once loaded ahead (a page hydrating would
// otherwise wait for React's lazy to settle), through Suspense when it is not.
import { act, cleanup, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { preloadable } from '../../../src/client/ui/preloadable.js';

afterEach(cleanup);

/** A module that arrives when `arrive()` is called. */
function slowModule() {
  let arrive = () => undefined as void;
  const arrived = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  const module = { Greeting: ({ name }: { name: string }) => <p>Hello, {name}</p> };
  return { importModule: () => arrived.then(() => module), arrive };
}

describe('preloadable', () => {
  it('draws at once, never its fallback, once loaded ahead', async () => {
    const { importModule, arrive } = slowModule();
    const { Component, load } = preloadable(importModule, (module) => module.Greeting);
    arrive();
    await load();
    // Rendered synchronously: no act() wait for a promise, and the fallback never shows.
    render(
      <Suspense fallback={<p>Loading</p>}>
        <Component name="Ana" />
      </Suspense>,
    );
    expect(screen.queryByText('Loading')).toBeNull();
    expect(screen.getByText('Hello, Ana')).toBeTruthy();
  });

  it('suspends until its code arrives when drawn before it is loaded, and keeps its props', async () => {
    const { importModule, arrive } = slowModule();
    const { Component } = preloadable(importModule, (module) => module.Greeting);
    render(
      <Suspense fallback={<p>Loading</p>}>
        <Component name="Luis" />
      </Suspense>,
    );
    expect(screen.getByText('Loading')).toBeTruthy();
    await act(async () => arrive());
    expect(await screen.findByText('Hello, Luis')).toBeTruthy();
  });
});
