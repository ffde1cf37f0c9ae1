// @vitest-environment happy-dom
// The work a step does before its call (runtime/prepare.ts): the public IP the sign-up sends, and
// the flow naming an action that does not exist.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runPrepare } from '../../../src/client/runtime/prepare.js';

beforeAll(() => {
  // The configuration the server renders into the page (routes/static.ts): where to ask for the IP.
  const config = document.createElement('script');
  config.type = 'application/json';
  config.id = 'app-config';
  config.textContent = JSON.stringify({ ipLookupUrl: '/ip' });
  document.head.append(config);
});
afterEach(() => vi.unstubAllGlobals());

describe('a step’s prepare list', () => {
  it('adds the public IP to the call’s context', async () => {
    vi.stubGlobal('fetch', async (path: string) =>
      path === '/ip'
        ? new Response(JSON.stringify({ ip: '203.0.113.7' }), { headers: { 'Content-Type': 'application/json' } })
        : new Response(null, { status: 404 }),
    );
    expect(await runPrepare(['publicIp'], {})).toEqual({ ip: '203.0.113.7' });
  });

  it('goes on with no IP when the lookup fails or answers none', async () => {
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('Failed to fetch');
    });
    expect(await runPrepare(['publicIp'], {})).toEqual({ ip: null });
    vi.stubGlobal('fetch', async () => new Response('{}', { headers: { 'Content-Type': 'application/json' } }));
    expect(await runPrepare(['publicIp'], {})).toEqual({ ip: null });
  });

  it('adds nothing for no list, and refuses an action it does not have', async () => {
    expect(await runPrepare(undefined, {})).toEqual({});
    await expect(runPrepare(['guessTheWeather'], {})).rejects.toThrow('No prepare action "guessTheWeather"');
  });
});
