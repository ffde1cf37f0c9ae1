// Every fixture under tests/fixtures/ through the very code `npm run validate` runs: the
// browser's precompiled validator and the server's check must both give exactly the messages
// the fixture lists (tests/server/fixtures.test.ts sends the bad ones through the real routes).
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkFixture } from '../src/cli/fixtures.js';
import { parseFixture } from '../src/shared/fixtureFiles.js';
import { listFixtureFiles } from '../src/node/projectFiles.js';
import { FIXTURES_DIR, loadFlow, readJsonFile } from '../src/node/projectFiles.js';

const flow = loadFlow();
const files = listFixtureFiles();
const fixtures = files.map((file) => ({ file, ...parseFixture(readJsonFile(file), flow) }));

describe('fixtures', () => {
  it('include at least 20 bad payloads', () => {
    expect(fixtures.filter((f) => f.expect === 'invalid').length).toBeGreaterThanOrEqual(20);
  });

  it('sit in tests/fixtures/<step>/<valid or invalid>/, so a tester finds them', () => {
    const misplaced = fixtures.filter((f) => !relative(FIXTURES_DIR, f.file).startsWith(`${f.step}/${f.expect}/`));
    expect(misplaced.map((f) => f.file)).toEqual([]);
  });

  it.each(files.map((file) => [relative(FIXTURES_DIR, file), file]))('%s gets its messages from both validators', (_name, file) => {
    const result = checkFixture(file, flow);
    expect(result.lines.filter((line) => !line.ok).map((line) => line.text)).toEqual([]);
    expect(result.passed).toBe(true);
  });
});
