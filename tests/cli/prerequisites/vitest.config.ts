// The tags and the reporter of vitest.config.ts on a few tests that need one piece each, for
// tests/cli/prerequisites.test.ts, which runs it with pieces hidden.
import { defineConfig } from 'vitest/config';
import { prerequisitesConfig } from '../../support/prerequisites.js';

export default defineConfig({ test: { include: ['tests/cli/prerequisites/*.sample.ts'], ...prerequisitesConfig } });
