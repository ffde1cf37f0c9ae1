/**
 * What the tests need besides npm's packages, each a vitest tag on the tests that need it:
 * Debian's Chromium headless shell (`chromium`), PostgreSQL (`postgresql`), Redis (`redis`) and haproxy (`haproxy`). A piece that is
 * missing skips its tests, said in one line just above vitest's totals; under CI=true its tests
 * run, and fail. `npm test` installs the missing ones first where it can (ensurePrerequisites.ts).
 * A setting names each piece elsewhere, and hides it when it names nothing (CHROMIUM_PATH=/nonexistent).
 */
import { accessSync, constants } from 'node:fs';
import type { TestTagDefinition } from 'vitest/config';
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { chromiumPath, DEBIAN_CHROMIUM } from '../../tools/chromium.js';
import { DEBIAN_POSTGRES_ROOT, findPostgresBinDir } from '../../tools/postgres.js';
import { DEBIAN_HAPROXY, HAPROXY } from '../../tools/rollingRestart.js';
import { DEBIAN_REDIS_SERVER, REDIS_SERVER } from './redis.js';

export type PrerequisiteTag = 'chromium' | 'postgresql' | 'redis' | 'haproxy';

declare module 'vitest' {
  interface TestTags {
    tags: PrerequisiteTag;
  }
}

export interface Prerequisite {
  tag: PrerequisiteTag;
  name: string;
  /** The Debian package that installs it where Debian puts it. */
  aptPackage: string;
  /** The setting that names it elsewhere. */
  setting: string;
  debianLocation: string;
  /** The tests that need it, as the lines name them. */
  tests: string;
  present(): boolean;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export const PREREQUISITES: readonly Prerequisite[] = [
  {
    tag: 'chromium',
    name: 'Chromium',
    aptPackage: 'chromium-headless-shell',
    setting: 'CHROMIUM_PATH',
    debianLocation: DEBIAN_CHROMIUM,
    tests: 'the tests in Chromium',
    present: () => isExecutable(chromiumPath),
  },
  {
    tag: 'postgresql',
    name: 'PostgreSQL',
    aptPackage: 'postgresql',
    setting: 'POSTGRES_BIN_DIR',
    debianLocation: `${DEBIAN_POSTGRES_ROOT}/<version>/bin`,
    tests: 'the DATABASE_URL tests',
    present: () => findPostgresBinDir() !== undefined,
  },
  {
    tag: 'redis',
    name: 'Redis',
    aptPackage: 'redis-server',
    setting: 'REDIS_SERVER',
    debianLocation: DEBIAN_REDIS_SERVER,
    tests: 'the REDIS_URL tests',
    present: () => isExecutable(REDIS_SERVER),
  },
  {
    tag: 'haproxy',
    name: 'haproxy',
    aptPackage: 'haproxy',
    setting: 'HAPROXY',
    debianLocation: DEBIAN_HAPROXY,
    tests: 'the rolling restart behind a load balancer',
    present: () => isExecutable(HAPROXY),
  },
];

export const missingPrerequisites = (): Prerequisite[] => PREREQUISITES.filter((piece) => !piece.present());

/** CI=true, as CI services set it (any value but false or 0): there a missing piece fails the run. */
export const underCI = !['', 'false', '0'].includes(process.env.CI ?? '');

/** Why a missing piece is missing, and how to bring it: the end of each line below. */
function missingBecause(piece: Prerequisite): string {
  const setting = process.env[piece.setting];
  const where = setting ? `${piece.setting}=${setting} names nothing` : `no ${piece.debianLocation}`;
  const sudo = process.getuid?.() === 0 ? '' : 'sudo ';
  return `${piece.name} is missing (${where}); \`${sudo}apt-get install ${piece.aptPackage}\` installs it`;
}

/** What `npm test` says before the run of a missing piece. */
export const skippingLine = (piece: Prerequisite): string => `↓ Skipping ${piece.tests}: ${missingBecause(piece)}`;

/** What the run says at its end of a missing piece whose tests were skipped. */
export const skippedLine = (piece: Prerequisite, skipped: number): string =>
  `↓ Skipped ${piece.tests} (${skipped} ${skipped === 1 ? 'test' : 'tests'}): ${missingBecause(piece)}`;

/** What fails a run under CI=true. */
export const ciLine = (piece: Prerequisite): string => `✗ CI=true needs ${piece.tests}: ${missingBecause(piece)}`;

/** A missing piece's tag skips its tests, but under CI=true. Only a missing one says `skip`: a test under two tags is skipped if either is. */
function prerequisiteTags(): TestTagDefinition[] {
  return PREREQUISITES.map((piece) => ({
    name: piece.tag,
    description: `Needs ${piece.name} (${piece.setting}, or ${piece.debianLocation})`,
    ...(!underCI && !piece.present() && { skip: true }),
  }));
}

/** Repeats, just above vitest's totals, which tests a missing piece skipped and why (or, under CI=true, why they failed). */
class PrerequisitesReporter implements Reporter {
  private log: (line: string) => void = console.log;

  onInit(vitest: Vitest): void {
    this.log = (line) => vitest.logger.log(line);
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const tests = testModules.flatMap((module) => [...module.children.allTests()]);
    for (const piece of missingPrerequisites()) {
      const its = tests.filter((test) => test.tags.includes(piece.tag));
      if (its.length === 0) continue;
      this.log(underCI ? ciLine(piece) : skippedLine(piece, its.filter((test) => test.result().state === 'skipped').length));
    }
  }
}

/** For vitest.config.ts: the tags, and the reporter before vitest's own, so vitest's totals stay the run's last lines. */
export const prerequisitesConfig = { tags: prerequisiteTags(), reporters: [new PrerequisitesReporter(), 'default'] };
