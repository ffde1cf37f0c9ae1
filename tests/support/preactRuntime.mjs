// Registers tests/support/preactResolve.mjs in the unit project's workers (vitest.config.ts execArgv).
import { register } from 'node:module';

register('./preactResolve.mjs', import.meta.url);
