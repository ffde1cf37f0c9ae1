import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { vitestLimits } from './tests/support/machineSpeed.js';
import { prerequisitesConfig } from './tests/support/prerequisites.js';
import ProjectSequencer from './tests/sequencer.js';

/**
 * Three projects, run together by `vitest run` (one with `--project unit|server|browser`):
 * - unit: pure logic, the commands and the guide; components (widgets, the step page) in happy-dom
 *   with React's Testing Library; no emulator, no server.
 * - server: the API through Fastify's inject, one database per worker (on the run's PostgreSQL),
 *   emptied for each file.
 * - browser: journeys in headless Chromium against a real server.
 * The files of a worker share their modules (isolate: false): loading the server's modules and
 * compiling the embedded database once per worker, not once per file, took the server project
 * from 108 s to 67 s (CPU from 208 s to 127 s), and the unit project from 39 to 32 CPU-s. A file
 * that changes what a module reads at import (ONRAMP_CONTENT_DIR) resets the modules when it ends.
 * The server and browser projects start the Firebase Auth emulator (the tests verify real ID
 * tokens) and PostgreSQL (tests/globalSetup.ts).
 * The tests that need Chromium, PostgreSQL or Redis carry its tag (`// @module-tag chromium` on
 * a file): without the piece they are skipped, said above vitest's totals (tests/support/prerequisites.ts).
 */
/**
 * The server and browser projects: the run's services (started by tests/globalSetup.ts, found by
 * tests/support/runServices.ts), and each file's limits scaled again by the load as it starts
 * (tests/support/fileLimits.ts).
 */
const withServices = {
  isolate: false,
  globalSetup: 'tests/globalSetup.ts',
  setupFiles: ['tests/support/fileLimits.ts', 'tests/support/runServices.ts'],
};

/**
 * Each folder's floor: the per cent of its statements, branches, functions and lines the tests
 * run, three points below what was measured. The client's screens, admin page and app start run
 * in Chromium only, where nothing is measured: they have none.
 */
const floor = (statements: number, branches: number, functions: number, lines: number) => ({ statements, branches, functions, lines });
const COVERAGE_FLOORS = {
  'src/client/runtime/**': floor(66, 63, 70, 70),
  'src/client/form/**': floor(59, 49, 58, 60),
  'src/client/ui/**': floor(58, 51, 55, 56),
  'src/shared/**': floor(91, 81, 93, 93),
  'widgets/**': floor(84, 82, 88, 87),
  'src/cli/**': floor(71, 68, 79, 72),
  'src/node/**': floor(38, 29, 22, 43),
  'src/server/*.ts': floor(55, 43, 59, 57),
  'src/server/lib/**': floor(90, 80, 92, 92),
  'src/server/routes/**': floor(83, 75, 80, 86),
  'src/server/plugins/**': floor(72, 58, 66, 75),
  'src/server/db/**': floor(71, 57, 69, 76),
  'src/server/payments/**': floor(88, 66, 97, 95),
  'src/server/messaging/**': floor(39, 22, 54, 37),
  'src/server/storage/**': floor(27, 3, 32, 28),
};

export default defineConfig({
  // The build's generated forms module, for the component tests: the same forms, read from schemas/.
  resolve: { alias: { 'virtual:forms': fileURLToPath(new URL('./tests/support/forms.ts', import.meta.url)) } },
  test: {
    // Three files at a time on the two cores: much of a file's time is spent waiting (on Chromium,
    // the emulator, the servers and processes the tests start), not computing.
    fileParallelism: true,
    maxWorkers: 3,
    // WebAssembly (the embedded database, which some files still open) compiled once, by the
    // baseline compiler: optimising it in the background cost more CPU than it saved in a test's life.
    execArgv: ['--liftoff-only'],
    // Limits on the wall clock, scaled by how loaded the machine is as the run starts (machineSpeed.ts):
    // what a page or a server does in the background gets the time a busy two-core machine needs
    // (an expect.poll's default is 1 s).
    ...vitestLimits(),
    sequence: { sequencer: ProjectSequencer },
    // The server's step drawings (build/ssr/render.mjs, a megabyte of built code) load as Node loads
    // them in production, not through vitest's transform: that took a file's first drawn page from
    // under 2 s to 12 s on a busy machine, in every worker and every content folder's build.
    server: { deps: { external: [/\/build\/ssr\//] } },
    // Measured by `npm test` (`vitest run --coverage`), not by a single file or project run: V8's own
    // counters in the test workers (and the server the browser journeys talk to, which runs in
    // theirs), none in Chromium's pages nor in the processes the tests start (docs/testing.md).
    // Each folder has its floor, a few points below what it measured: the run fails when one drops.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.{ts,tsx}', 'widgets/**/*.{ts,tsx}'],
      exclude: ['src/shared/generated/**', '**/*.d.ts'],
      reporter: ['text-summary'],
      thresholds: COVERAGE_FLOORS,
    },
    ...prerequisitesConfig,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['tests/*.test.ts', 'tests/{shared,widgets,client,cli,docs}/**/*.test.{ts,tsx}'],
          isolate: false,
          setupFiles: ['tests/support/testingLibrary.ts', 'tests/support/indexedDb.ts'],
        },
      },
      { extends: true, test: { name: 'server', include: ['tests/server/**/*.test.ts'], ...withServices } },
      { extends: true, test: { name: 'browser', include: ['tests/browser/**/*.test.ts'], ...withServices } },
    ],
  },
});
