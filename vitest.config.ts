import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Starts the Firebase Auth emulator once for the whole run (the server tests verify real ID tokens).
    globalSetup: 'tests/globalSetup.ts',
    // Two cores, and each server test file opens its own embedded Postgres (seconds of CPU):
    // files run one after another.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
