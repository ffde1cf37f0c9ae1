// What operators run: two built servers on one PostgreSQL behind haproxy with no retries, under a
// steady mix of status polls, sign-ups and photo uploads, restarted one after the other with
// SIGTERM (tools/rollingRestart.ts). Every request is answered, every photo answered as stored
// reads back whole, and the storage holds nothing else. `npm run bench` prints the same figures
// beside those with haproxy's retries on.
import { describe, expect, it } from 'vitest';
import { rollingRestart } from '../../tools/rollingRestart.js';
import { authEmulatorReady } from '../support/identity.js';
import { scaled } from '../support/machineSpeed.js';

describe('a rolling restart of two servers behind haproxy, without retries', { tags: ['postgresql', 'haproxy'] }, () => {
  it(
    'answers every request, loses no upload and leaves nothing behind in storage',
    async () => {
      await authEmulatorReady();
      const result = await rollingRestart({ retries: false });
      const context = `${JSON.stringify(result.requests)} in ${result.seconds.toFixed(1)} s\n${result.serverOutput}`;
      expect(result.requests.polls, context).toBeGreaterThan(100);
      expect(result.requests.signUps, context).toBeGreaterThan(10);
      expect(result.requests.uploads, context).toBeGreaterThan(10);
      expect(result.failed, context).toEqual([]);
      expect(result.lostUploads, context).toEqual([]);
      expect(result.leftovers, context).toEqual([]);
      expect(result.signUpMismatch, context).toBe(0);
    },
    scaled(180_000),
  );
});
