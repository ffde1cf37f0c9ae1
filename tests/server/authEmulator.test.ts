// The Auth emulator of a test run: its own (tests/globalSetup.ts), not the one `npm start` shares
// on firebase.json's port, and the one what the run starts (`npm start`, a server, a tool) finds.
import { describe, expect, it } from 'vitest';
import { authEmulatorHost, launchAuthEmulator } from '../../src/cli/authEmulator.js';
import { LOCAL_AUTH_EMULATOR_HOST } from '../../src/server/config.js';
import { authEmulatorReady } from '../support/identity.js';

describe("a test run's Auth emulator", () => {
  it('is its own, on a port of its own', () => {
    expect(authEmulatorHost()).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(authEmulatorHost()).not.toBe(LOCAL_AUTH_EMULATOR_HOST);
  });

  it('is the one a command the run starts uses, started by nobody else and stopped by the run alone', async () => {
    await authEmulatorReady();
    const found = await launchAuthEmulator({ quiet: true });
    expect(found).toMatchObject({ host: authEmulatorHost(), started: false });
    await found.ready;
    await found.stop();
    expect((await fetch(`http://${authEmulatorHost()}/`)).ok).toBe(true);
  });
});
