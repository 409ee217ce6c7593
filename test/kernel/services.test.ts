import { expect } from 'chai';
import { discoverPlugins } from '../../kernel/loader.ts';
import { tableNameFor } from '../../kernel/migrations.ts';
import { definePlugin, type PluginManifest } from '../../kernel/plugin.ts';
import { SERVICE_NAMES, type ServiceName } from '../../kernel/config.ts';
import { startTestKernel } from '../helpers/kernel.ts';
import { ANY_JSON_ANSWER } from '../helpers/any-answer.ts';
import { startFailure } from './boot.ts';

const routePlugin = (id: string, config: Record<string, unknown> | undefined) =>
  definePlugin({
    id,
    processes: ['core-api'],
    needs: [],
    permissions: [{ key: `${id}:read`, description: 'The probe route' }],
    routes(app) {
      app.get(
        '/t/naked',
        { ...(config === undefined ? {} : { config }), schema: { response: ANY_JSON_ANSWER } },
        async () => ({ ok: true }),
      );
    },
  }) as PluginManifest;

describe('services: each process loads exactly its plugins', () => {
  let discovered: PluginManifest[];
  before(async () => {
    discovered = await discoverPlugins();
  });

  /** The knex migration tables of the test kernel's database (`knex_migrations_<plugin>`). */
  const pluginMigrationTables = async (t: Awaited<ReturnType<typeof startTestKernel>>) =>
    ((await t.db('pg_tables').where({ schemaname: 'public' }).pluck('tablename')) as string[])
      .filter((name) => name.startsWith('knex_migrations_') && !name.endsWith('_lock'))
      .sort();

  for (const service of [...SERVICE_NAMES, 'all'] as Array<ServiceName | 'all'>) {
    it(`${service} starts with the plugins whose manifest lists it, every route declaring its access, on only their tables`, async () => {
      // Start-up itself is the route check: the kernel refuses a route without a declaration.
      const t = await startTestKernel({ service });
      try {
        const expected = discovered.filter((p) => service === 'all' || p.processes.includes(service)).map((p) => p.id);
        expect(t.kernel.plugins.map((p) => p.id).sort()).to.deep.equal(expected.sort());
        expect(t.kernel.service).to.equal(service);
        const health = await t.inject({ method: 'GET', url: '/health' });
        expect(health.statusCode).to.equal(200);
        const audit = await t.inject({ method: 'GET', url: '/audit-log' });
        expect(audit.statusCode).to.equal(expected.includes('audit') ? 401 : 404);
        // Its database holds the migrations of exactly this plugin set, so this start proves that
        // they suffice; core-api, the migrating process of a split deployment, adds every other
        // installed plugin's (a gateway-only plugin's tables must exist before the gateway starts).
        const migrated = service === 'core-api' ? discovered.map((p) => p.id) : expected;
        const withMigrations = discovered
          .filter((p) => migrated.includes(p.id) && p.migrations)
          .map((p) => tableNameFor(p.id));
        expect(await pluginMigrationTables(t)).to.deep.equal(withMigrations.sort());
      } finally {
        await t.close();
      }
    });
  }

  it('switches a plugin off with CMS_DISABLED_PLUGINS', async () => {
    const t = await startTestKernel({ service: 'core-api', env: { CMS_DISABLED_PLUGINS: 'audit, nothing-such' } });
    try {
      expect(t.kernel.plugins.map((p) => p.id)).not.to.include('audit');
      expect(t.kernel.plugins.map((p) => p.id)).to.include('health');
      expect((await t.inject({ method: 'GET', url: '/audit-log' })).statusCode).to.equal(404);
    } finally {
      await t.close();
    }
    const explicit = await startTestKernel({ plugins: ['health', 'audit'], env: { CMS_DISABLED_PLUGINS: 'audit' } });
    try {
      expect(explicit.kernel.plugins.map((p) => p.id)).to.deep.equal(['health']);
    } finally {
      await explicit.close();
    }
  });
});

describe('services: access declaration on every route (fail closed)', () => {
  it('refuses to start with a route that declares no access, naming the route', async () => {
    const message = await startFailure({ service: 'all', plugins: [routePlugin('test-naked', undefined)] });
    expect(message).to.contain('GET /t/naked').and.to.contain('config.permission');
  });

  it('refuses a route declaring two kinds of access', async () => {
    const message = await startFailure({
      service: 'all',
      plugins: [routePlugin('test-both', { public: true, permission: 'test-both:read' })],
    });
    expect(message).to.contain('GET /t/naked').and.to.contain('exactly one');
  });

  it('refuses a route requiring an unknown permission key', async () => {
    const message = await startFailure({
      service: 'all',
      plugins: [routePlugin('test-unknown-key', { permission: 'nothing:such' })],
    });
    expect(message).to.contain('GET /t/naked').and.to.contain('nothing:such');
  });

  it('answers 401 without a valid session, 403 without the key and 200 with it', async () => {
    const t = await startTestKernel({
      plugins: [],
      extraPlugins: [routePlugin('test-guarded', { permission: 'test-guarded:read' })],
    });
    try {
      expect((await t.inject({ method: 'GET', url: '/t/naked' })).statusCode).to.equal(401);
      const bad = await t.inject({ method: 'GET', url: '/t/naked', headers: { cookie: 'cms_session=forged' } });
      expect(bad.statusCode).to.equal(401);
      const viewer = await t.createUser({ roles: ['viewer'] });
      expect(
        (await t.inject({ method: 'GET', url: '/t/naked', headers: { cookie: viewer.cookie } })).statusCode,
      ).to.equal(403);
      const manager = await t.createUser({ permissions: ['test-guarded:read'] });
      expect(
        (await t.inject({ method: 'GET', url: '/t/naked', headers: { cookie: manager.cookie } })).statusCode,
      ).to.equal(200);
    } finally {
      await t.close();
    }
  });
});
