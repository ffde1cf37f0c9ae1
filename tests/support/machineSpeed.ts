/**
 * How many times longer than its CPU time work takes on this machine now: 1 when the process has
 * a core to itself, 5 when it gets a fifth of one (other processes, other test workers). Measured
 * once per process, timing a fixed piece of busy work by the wall clock and by the process's CPU
 * time. A limit a test sets on the wall clock is `scaled`, so a loaded two-core machine gets the
 * time its load takes, and an idle one fails as soon as before.
 */
const SAMPLES = 5;
const SAMPLE_MS = 20;
/** Past this, the machine is stuck rather than busy: a limit stays a limit. */
const MAX_SLOWDOWN = 10;

export function measure(): number {
  const ratios: number[] = [];
  for (let sample = 0; sample < SAMPLES; sample++) {
    const startedCpu = process.cpuUsage();
    const started = performance.now();
    let spin = 0;
    while (performance.now() - started < SAMPLE_MS) spin += Math.sqrt(spin + sample);
    const cpu = process.cpuUsage(startedCpu);
    ratios.push((performance.now() - started) / Math.max((cpu.user + cpu.system) / 1000, 0.1));
  }
  const median = ratios.sort((a, b) => a - b)[Math.floor(SAMPLES / 2)]!;
  return Math.min(MAX_SLOWDOWN, Math.max(1, median));
}

/** As the process started: no later measure sets the limits below it. */
const FIRST_SLOWDOWN = measure();
let slowdown = FIRST_SLOWDOWN;

/**
 * Measures again, as a test file starts (fileLimits.ts): a load that rose since the process began
 * (another process started beside the run, heavier files in the other workers) would make a long
 * journey miss a limit an idle machine keeps easily. Never below the first measure.
 */
export function measureAgain(): void {
  slowdown = Math.max(FIRST_SLOWDOWN, measure());
}

/** `ms` of an idle machine, on this one now (as last measured). */
export const scaled = (ms: number): number => Math.round(ms * slowdown);

/**
 * The limits on an idle machine: a test's and a hook's, an `expect.poll`'s wait, and Playwright's
 * for one action or navigation (tests/browser/support.ts).
 */
const TEST_LIMIT_MS = 60_000;
const HOOK_LIMIT_MS = 120_000;
const POLL_LIMIT_MS = 15_000;
export const BROWSER_ACTION_LIMIT_MS = 30_000;

/** vitest's limits (vitest.config.ts, and each file's: fileLimits.ts), on this machine now. */
export const vitestLimits = () => ({
  testTimeout: scaled(TEST_LIMIT_MS),
  hookTimeout: scaled(HOOK_LIMIT_MS),
  expect: { poll: { timeout: scaled(POLL_LIMIT_MS) } },
});
