import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.{ts,tsx}'],
    // Starts the Firebase Auth emulator once for the whole run (the server tests verify real ID tokens).
    globalSetup: 'tests/globalSetup.ts',
    // Three files at a time on the two cores: much of a file's time is spent waiting (on Chromium,
    // the emulator, the servers and processes the tests start), not computing (measured: 4 min 6 s
    // for the whole run, against 4 min 58 s with two).
    fileParallelism: true,
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
