/**
 * Each test file's limits, scaled again by the load as the file starts (machineSpeed.ts): the
 * test and hook limits, and every `scaled` limit the file's tests and helpers set (Playwright's
 * own included, tests/browser/support.ts).
 */
import { vi } from 'vitest';
import { measureAgain, vitestLimits } from './machineSpeed.js';

measureAgain();
vi.setConfig(vitestLimits());
