import Fastify from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { everyInterval, passSoon } from '../../../src/server/lib/backgroundPass.js';

const INTERVAL_MS = 1000;

/** A pass that runs until the test lets it finish. */
function heldPass() {
  const started: (() => void)[] = [];
  const run = vi.fn(() => new Promise<void>((resolve) => started.push(resolve)));
  return { run, finish: () => started.shift()?.() };
}

describe('everyInterval', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs one pass at a time: a tick while one is in flight starts none', async () => {
    const app = Fastify();
    const pass = heldPass();
    everyInterval(app, { name: 'test pass', intervalMs: INTERVAL_MS, run: pass.run });
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(pass.run).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(3 * INTERVAL_MS);
    expect(pass.run).toHaveBeenCalledTimes(1);
    pass.finish();
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(pass.run).toHaveBeenCalledTimes(2);
    pass.finish();
    await app.close();
  });

  it('logs a failed pass with its name, and the next pass still runs', async () => {
    const app = Fastify();
    const warn = vi.spyOn(app.log, 'warn');
    const run = vi.fn().mockRejectedValueOnce(new Error('database away')).mockResolvedValue(undefined);
    everyInterval(app, { name: 'test pass', intervalMs: INTERVAL_MS, run });
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(warn).toHaveBeenCalledWith({ pass: 'test pass', error: 'Error: database away' }, 'A background pass failed; the next one will try again');
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(run).toHaveBeenCalledTimes(2);
    await app.close();
  });

  it('runs a pass at once when asked to', async () => {
    const app = Fastify();
    const run = vi.fn().mockResolvedValue(undefined);
    everyInterval(app, { name: 'test pass', intervalMs: INTERVAL_MS, run, atStart: true });
    await vi.advanceTimersByTimeAsync(0);
    expect(run).toHaveBeenCalledTimes(1);
    await app.close();
  });

  it('stops on close, once the pass in flight is done', async () => {
    const app = Fastify();
    const pass = heldPass();
    everyInterval(app, { name: 'test pass', intervalMs: INTERVAL_MS, run: pass.run });
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    let closed = false;
    const closing = app.close().then(() => (closed = true));
    await vi.advanceTimersByTimeAsync(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    pass.finish();
    await closing;
    await vi.advanceTimersByTimeAsync(5 * INTERVAL_MS);
    expect(pass.run).toHaveBeenCalledTimes(1);
  });
});

describe('passSoon', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs one pass 50 ms after a change', async () => {
    const app = Fastify();
    const run = vi.fn().mockResolvedValue(undefined);
    const pass = passSoon(app, run, vi.fn());
    pass.soon();
    await vi.advanceTimersByTimeAsync(49);
    expect(run).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(run).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(500);
    expect(run).toHaveBeenCalledTimes(1);
    await app.close();
  });

  it('runs one more pass, 50 ms after the first, for the changes made while the first waited, which it may have missed', async () => {
    const app = Fastify();
    const run = vi.fn().mockResolvedValue(undefined);
    const pass = passSoon(app, run, vi.fn());
    pass.soon();
    await vi.advanceTimersByTimeAsync(40);
    pass.soon();
    pass.soon();
    await vi.advanceTimersByTimeAsync(10);
    expect(run).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(50);
    expect(run).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(500);
    expect(run).toHaveBeenCalledTimes(2);
    await app.close();
  });

  it('hands a failed pass to its handler', async () => {
    const app = Fastify();
    const failed = vi.fn();
    const pass = passSoon(app, () => Promise.reject(new Error('database away')), failed);
    pass.soon();
    await vi.advanceTimersByTimeAsync(50);
    expect(failed).toHaveBeenCalledWith(new Error('database away'));
    await app.close();
  });

  it('starts no pass once the server is closing, and says it is closing', async () => {
    const app = Fastify();
    const run = vi.fn().mockResolvedValue(undefined);
    const pass = passSoon(app, run, vi.fn());
    pass.soon();
    expect(pass.closing).toBe(false);
    await app.close();
    pass.soon();
    await vi.advanceTimersByTimeAsync(500);
    expect(run).not.toHaveBeenCalled();
    expect(pass.closing).toBe(true);
  });
});
