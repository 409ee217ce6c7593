import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../kernel/loader.ts';
import { startTestKernel } from '../helpers/kernel.ts';
import { startFailure, testEnv } from './boot.ts';

/**
 * An integrator's plugin folder outside the repository, found through CMS_PLUGIN_PATH: it imports the
 * kernel by package name (as an installed dependency would), brings its own migration and presets.
 */
function writeExternalFolder(root: string, pluginId: string): void {
  const plugin = path.join(root, 'plugins', pluginId);
  mkdirSync(path.join(plugin, 'migrations'), { recursive: true });
  mkdirSync(path.join(root, 'node_modules'), { recursive: true });
  mkdirSync(path.join(root, 'presets'), { recursive: true });
  symlinkSync(PROJECT_ROOT, path.join(root, 'node_modules', 'cms-platform'), 'dir');
  writeFileSync(
    path.join(plugin, 'index.ts'),
    `import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin, notFound } from 'cms-platform/kernel';

export default definePlugin({
  id: '${pluginId}',
  processes: ['gateway'],
  needs: ['db'],
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  permissions: [{ key: 'greetings:read', description: 'read greetings' }],
  setup: ({ db }) => ({
    async greeting(name: string) {
      const row = await db('ext_greetings').where({ name }).first();
      if (!row) throw notFound('No greeting for ' + name, 'GREETING_NOT_FOUND');
      return { name, text: row.text };
    },
  }),
  routes(app, { services }) {
    app.get<{ Params: { name: string } }>('/api/remote/${pluginId}/greetings/:name', { config: { public: true }, schema: { response: { 200: { type: 'object', properties: { name: { type: 'string' }, text: { type: 'string' } } } } } }, async (request) =>
      services.greeting(request.params.name),
    );
  },
});
`,
  );
  writeFileSync(
    path.join(plugin, 'migrations', '0001_greetings.ts'),
    `import type { Knex } from 'knex';
export async function up(knex: Knex) {
  await knex.schema.createTable('ext_greetings', (t) => { t.text('name').primary(); t.text('text').notNullable(); });
  await knex('ext_greetings').insert({ name: 'world', text: 'hello, world' });
}
export async function down(knex: Knex) {
  await knex.schema.dropTable('ext_greetings');
}
`,
  );
  writeFileSync(
    path.join(root, 'presets', 'acme-weather.json'),
    JSON.stringify({ id: 'acme-weather', baseUrl: 'https://weather.example' }),
  );
}

describe('plugins from outside the repository (CMS_PLUGIN_PATH)', () => {
  const root = path.join(PROJECT_ROOT, '.test-data', `ext-${randomBytes(4).toString('hex')}`);
  before(() => writeExternalFolder(root, 'hello-ext'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it("loads the plugin with its own migration, permission keys and routes, beside the project's plugins", async () => {
    const t = await startTestKernel({ service: 'all', env: { CMS_PLUGIN_PATH: root } });
    try {
      const ids = t.kernel.plugins.map((p) => p.id);
      expect(ids).to.include('hello-ext').and.to.include('data');
      // Its migration ran (on this database or on the template the test database was cloned from).
      expect(await t.db('knex_migrations_hello_ext').pluck('name')).to.deep.equal(['0001_greetings']);
      const hello = await t.inject({ method: 'GET', url: '/api/remote/hello-ext/greetings/world' });
      expect(hello.statusCode).to.equal(200);
      expect(hello.json()).to.deep.equal({ name: 'world', text: 'hello, world' });
      // The kernel's error type from the package import is the kernel's own: one error body.
      const missing = await t.inject({ method: 'GET', url: '/api/remote/hello-ext/greetings/mars' });
      expect(missing.statusCode).to.equal(404);
      expect(missing.json()).to.include({ code: 'GREETING_NOT_FOUND' });
      expect(t.kernel.resolve('permissions').has('greetings:read')).to.equal(true);
      // Presets are found the same way: the project's presets/ and the external folder's.
      const presets = t.kernel.resolve('extensions').files('presets', '.json');
      expect(presets).to.include(path.join(root, 'presets', 'acme-weather.json'));
    } finally {
      await t.close();
    }
  });

  it('loads it only in the services its manifest names', async () => {
    const t = await startTestKernel({ service: 'core-api', env: { CMS_PLUGIN_PATH: root } });
    try {
      expect(t.kernel.plugins.map((p) => p.id)).not.to.include('hello-ext');
    } finally {
      await t.close();
    }
  });

  it('refuses a missing folder and an id already taken, naming them', async () => {
    const missing = await startFailure({ service: 'all', env: testEnv({ CMS_PLUGIN_PATH: path.join(root, 'nope') }) });
    expect(missing).to.contain(path.join(root, 'nope'));
    const clash = path.join(root, 'clash');
    mkdirSync(path.join(clash, 'data'), { recursive: true });
    writeFileSync(
      path.join(clash, 'data', 'index.js'),
      "export default { id: 'data', processes: ['core-api'], needs: [] };\n",
    );
    const taken = await startFailure({ service: 'all', env: testEnv({ CMS_PLUGIN_PATH: clash }) });
    expect(taken).to.contain('"data"').and.to.contain(path.join(clash, 'data'));
  });
});
