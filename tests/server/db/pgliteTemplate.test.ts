import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, openPglite } from '../../../src/server/db/db.js';
import { seedPglite } from '../../../tools/pgliteTemplate.js';

const scratch = await mkdtemp(join(tmpdir(), 'onramp-template-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

describe('a new data folder of the tests', () => {
  it('gets an embedded database with every migration applied, and one already there is left as it is', async () => {
    const dir = join(scratch, 'pglite');
    await seedPglite(dir);
    const seeded = await openPglite(dir);
    try {
      expect(await migrate(seeded)).toEqual([]);
      await seeded.exec('CREATE TABLE kept (note text); INSERT INTO kept VALUES ($$written here$$)');
    } finally {
      await seeded.close();
    }
    await seedPglite(dir);
    const again = await openPglite(dir);
    try {
      expect((await again.query('SELECT note FROM kept')).rows).toEqual([{ note: 'written here' }]);
    } finally {
      await again.close();
    }
  });
});
