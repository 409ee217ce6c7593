import { expect } from 'chai';
import { createKnex } from '../../kernel/database.ts';
import { migrationSets } from '../../kernel/kernel.ts';
import { discoverPlugins } from '../../kernel/loader.ts';
import { migrateAll } from '../../kernel/migrations.ts';
import { createTestDatabase } from '../helpers/database.ts';

describe('migrations: processes migrating one new database at once', () => {
  it('serialise on a lock: every migration applied exactly once, neither process fails', async () => {
    const database = await createTestDatabase({ fresh: true });
    const [a, b] = [createKnex(database.url, 3), createKnex(database.url, 3)];
    try {
      const sets = migrationSets(await discoverPlugins());
      const [first, second] = await Promise.all([migrateAll(a, sets), migrateAll(b, sets)]);
      const all = [...first, ...second];
      expect(all.length).to.be.greaterThan(3);
      expect(new Set(all).size).to.equal(all.length);
      expect(first.length === 0 || second.length === 0).to.equal(true);
    } finally {
      await a.destroy();
      await b.destroy();
      await database.close();
    }
  });
});
