// The contracts' types come from their JSON Schemas (npm run types, run by npm run lint before the
// type check): the committed files are what the schemas make, and a field renamed in a schema
// fails the type check where the code still reads the old name.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateContractTypes } from '../../src/cli/contractTypes.js';
import { PROJECT_ROOT } from '../../src/node/projectFiles.js';
import { REVIEW_STATUSES } from '../../src/shared/review.js';
import { AUDIT_ACTIONS, STAFF_ROLES } from '../../src/shared/generated/staff.js';
import { driverContract, staffContract } from '../../src/shared/contracts/index.js';

describe('npm run types', () => {
  it('has made the committed types from the schemas as they are', async () => {
    for (const [path, text] of await generateContractTypes()) {
      expect(readFileSync(path, 'utf8'), `${path} is stale: run npm run types`).toBe(text);
    }
  });

  it('makes each list of an API contract a constant the code goes through: the roles are the schema’s', () => {
    expect(STAFF_ROLES).toEqual(staffContract.$defs.staffRole.enum);
    expect(REVIEW_STATUSES).toEqual(driverContract.$defs.reviewStatus.enum);
    expect(AUDIT_ACTIONS).toEqual(staffContract.$defs.auditAction.enum);
  });

  describe('on a copy of the project where a form field is renamed in its schema', () => {
    const copy = mkdtempSync(join(tmpdir(), 'onramp-types-'));
    afterAll(() => rmSync(copy, { recursive: true, force: true }));

    it('fails the type check at the route that reads the old name', () => {
      for (const path of ['package.json', 'tsconfig.json', 'src', 'schemas', 'flows']) cpSync(join(PROJECT_ROOT, path), join(copy, path), { recursive: true });
      symlinkSync(realpathSync(join(PROJECT_ROOT, 'node_modules')), join(copy, 'node_modules'));
      const schemaPath = join(copy, 'schemas', 'email-code.schema.json');
      writeFileSync(schemaPath, readFileSync(schemaPath, 'utf8').replaceAll('"otp"', '"emailCode"'));

      execFileSync(process.execPath, [join(PROJECT_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'src/cli/contractTypes.ts'], { cwd: copy, stdio: 'pipe' });
      expect(readFileSync(join(copy, 'src', 'shared', 'generated', 'forms.ts'), 'utf8')).toContain('emailCode: string;');

      // The project's type check of the server (and what it imports), where the route reads the field.
      writeFileSync(join(copy, 'tsconfig.route.json'), JSON.stringify({ extends: './tsconfig.json', include: ['src/server'] }));
      let typeCheck = '';
      try {
        execFileSync(process.execPath, [join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', 'tsconfig.route.json'], {
          cwd: copy,
          stdio: 'pipe',
        });
      } catch (error) {
        typeCheck = String((error as { stdout?: Buffer }).stdout);
      }
      expect(typeCheck).toMatch(/src\/server\/routes\/auth\.ts\(\d+,\d+\): error TS2339: Property 'otp' does not exist/);
    });
  });
});
