/**
 * Each test file's limits, scaled again by the load as the file starts (machineSpeed.ts): the
 * run's own were measured as it began, and a load that rose since (another process started beside
 * the run, heavier files in the other workers) would make a long journey miss a limit an idle
 * machine keeps easily. Never below the run's.
 */
import { vi } from 'vitest';
import { limitsAt, measure, SLOWDOWN } from './machineSpeed.js';

vi.setConfig(limitsAt(Math.max(SLOWDOWN, measure())));
