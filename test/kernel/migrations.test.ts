import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { DatabaseHandle } from '../../kernel/database.ts';
import { createKernel, type Kernel } from '../../kernel/kernel.ts';
import { discoverPlugins, KERNEL_MIGRATIONS_DIR, PROJECT_ROOT } from '../../kernel/loader.ts';
import type { PluginManifest } from '../../kernel/plugin.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { startTestKernel } from '../helpers/kernel.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.join(here, 'fixtures', 'migrations');
const names = (dir: string) =>
  readdirSync(dir)
    .filter((f) => /\.(ts|js)$/.test(f))
    .map((f) => f.replace(/\.(ts|js)$/, ''))
    .sort();
const kernelMigrations = names(KERNEL_MIGRATIONS_DIR);

// beta needs what alpha provides, so alpha's migrations must run first whatever the listing order.
const alpha = {
  id: 'alpha',
  processes: ['core-api'],
  needs: [],
  migrations: path.join(fixtures, 'alpha'),
  provides: { alphaService: () => ({}) },
} as unknown as PluginManifest;
const beta = {
  id: 'beta',
  processes: ['core-api'],
  needs: ['alphaService'],
  migrations: path.join(fixtures, 'beta'),
} as unknown as PluginManifest;

const env = { NODE_ENV: 'test', LOG_LEVEL: 'silent', CMS_DATA_DIR: path.join(PROJECT_ROOT, '.test-data', 'data') };
const boot = (database: DatabaseHandle, plugins: PluginManifest[]) =>
  createKernel({ service: 'all', env, plugins, database, logger: pino({ level: 'silent' }), jobs: false });

describe('migrations', () => {
  // Each case starts from an empty database of its own and boots what it needs.
  let database: DatabaseHandle;
  let kernels: Kernel[];
  const start = async (plugins: PluginManifest[]) => {
    const kernel = await boot(database, plugins);
    kernels.push(kernel);
    return kernel;
  };
  beforeEach(async () => {
    database = await createTestDatabase({ fresh: true });
    kernels = [];
  });
  afterEach(async () => {
    for (const k of kernels) await k.close();
    await database.close();
  });

  it('applies kernel migrations first, then plugins in dependency order, then files in name order', async () => {
    const kernel = await start([beta, alpha]);
    expect(kernel.plugins.map((p) => p.id)).to.deep.equal(['alpha', 'beta']);
    expect(kernel.appliedMigrations).to.deep.equal([
      ...kernelMigrations.map((n) => `kernel/${n}`),
      'alpha/0001_alpha_items',
      'alpha/0002_alpha_more',
      'beta/0001_beta_view',
    ]);
    expect(await database.db('t_beta_view').select()).to.deep.equal([]);
  });

  it('core-api also applies the migrations of plugins that run only in other services', async () => {
    const gatewayOnly = { ...beta, processes: ['gateway'] } as unknown as PluginManifest;
    const kernel = await createKernel({
      service: 'core-api',
      env,
      plugins: [alpha, gatewayOnly],
      database,
      logger: pino({ level: 'silent' }),
      jobs: false,
    });
    kernels.push(kernel);
    expect(kernel.plugins.map((p) => p.id)).to.deep.equal(['alpha']);
    expect(kernel.appliedMigrations).to.include('beta/0001_beta_view');
    expect(await database.db('t_beta_view').select()).to.deep.equal([]);
  });

  it('records names without extension, each owner in its own table', async () => {
    await start([alpha, beta]);
    const recorded = async (table: string) => (await database.db(table).orderBy('id').pluck('name')) as string[];
    expect(await recorded('knex_migrations')).to.deep.equal(kernelMigrations);
    expect(await recorded('knex_migrations_alpha')).to.deep.equal(['0001_alpha_items', '0002_alpha_more']);
    expect(await recorded('knex_migrations_beta')).to.deep.equal(['0001_beta_view']);
  });

  it('applies nothing on a second start against the same database', async () => {
    expect((await start([alpha, beta])).appliedMigrations).to.have.length(kernelMigrations.length + 3);
    expect((await start([alpha, beta])).appliedMigrations).to.deep.equal([]);
  });

  it('lets a process with fewer plugins start without seeing the others migrations', async () => {
    await start([alpha, beta]);
    const fewer = await start([alpha]);
    expect(fewer.appliedMigrations).to.deep.equal([]);
    expect(fewer.plugins.map((p) => p.id)).to.deep.equal(['alpha']);
  });

  it('runs every installed plugin migration on an empty database (fresh: true)', async () => {
    const discovered = await discoverPlugins();
    const t = await startTestKernel({ fresh: true });
    try {
      const applied = t.kernel.appliedMigrations;
      expect(applied.slice(0, kernelMigrations.length)).to.deep.equal(kernelMigrations.map((n) => `kernel/${n}`));
      for (const p of discovered.filter((d) => d.migrations)) {
        expect(
          applied.filter((a) => a.startsWith(`${p.id}/`)),
          p.id,
        ).to.deep.equal(names(p.migrations!).map((n) => `${p.id}/${n}`));
      }
      expect(applied).to.have.length(
        kernelMigrations.length + discovered.reduce((n, p) => n + (p.migrations ? names(p.migrations).length : 0), 0),
      );
    } finally {
      await t.close();
    }
  });
});
