import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../kernel/config.ts';
import { PLUGIN_ID, PROJECT_ROOT } from '../kernel/loader.ts';

/** This checkout's package root (the folder of package.json, one level above dist/ in a build). */
const PACKAGE_ROOT = [PROJECT_ROOT, path.join(PROJECT_ROOT, '..')].find((d) =>
  existsSync(path.join(d, 'package.json')),
)!;

/**
 * `cms plugin new <id> --dir <folder>`: writes an external plugin folder that starts as it is with
 * `CMS_PLUGIN_PATH=<folder>`: `<folder>/package.json` (`"type": "module"`, without which Node loads the
 * TypeScript index as CommonJS), `<folder>/node_modules/cms-platform` linked to this checkout, and
 * `<folder>/<id>/` with the manifest (one public route, one migration), a mocha test and a README.
 * Refuses to overwrite a plugin folder or a package.json that is not an ES module scope.
 */
export function scaffoldPlugin(id: string, dir: string): string[] {
  if (!PLUGIN_ID.test(id)) throw new ConfigError(`plugin id "${id}" must be kebab-case (a-z, 0-9, single dashes)`);
  const root = path.resolve(dir);
  const plugin = path.join(root, id);
  if (existsSync(plugin)) throw new ConfigError(`${plugin} already exists; choose another id or --dir`);
  const packageFile = path.join(root, 'package.json');
  if (existsSync(packageFile) && JSON.parse(readFileSync(packageFile, 'utf8')).type !== 'module')
    throw new ConfigError(`${packageFile} exists without "type": "module"; add it, or choose another --dir`);

  const written: string[] = [];
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text, { flag: 'wx' });
    written.push(file);
  };
  const table = `${id.replace(/-/g, '_')}_greetings`;
  if (!existsSync(packageFile)) write(packageFile, packageJson(id));
  const link = path.join(root, 'node_modules', 'cms-platform');
  if (!existsSync(link)) {
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(PACKAGE_ROOT, link, 'dir');
    written.push(`${link} -> ${PACKAGE_ROOT}`);
  }
  write(path.join(plugin, 'index.ts'), indexTs(id, table));
  write(path.join(plugin, 'migrations', `0001_${table}.ts`), migrationTs(table));
  write(path.join(plugin, 'test', `${id}.test.ts`), testTs(id));
  write(path.join(plugin, 'README.md'), readme(id, root));
  return written;
}

const packageJson = (id: string) =>
  `${JSON.stringify(
    {
      name: `${id}-extension`,
      private: true,
      type: 'module',
      description: 'External plugins of the content platform: start it with CMS_PLUGIN_PATH set to this folder',
      scripts: { test: 'mocha --import tsx "*/test/**/*.test.ts"' },
    },
    null,
    2,
  )}\n`;

const indexTs = (id: string, table: string) => `import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin, notFound } from 'cms-platform/kernel';

const here = path.dirname(fileURLToPath(import.meta.url));

/** ${id}: one public route reading one table of its own. */
export default definePlugin({
  id: '${id}', // equals the folder name
  processes: ['gateway'], // all-in-one loads it too
  needs: ['db'],
  migrations: path.join(here, 'migrations'),
  setup: ({ db }) => ({
    async greeting(name: string): Promise<{ name: string; text: string }> {
      const row = await db('${table}').where({ name }).first();
      if (!row) throw notFound(\`No greeting for \${name}\`, 'GREETING_NOT_FOUND');
      return { name: row.name, text: row.text };
    },
  }),
  routes(app, { services }) {
    app.get<{ Params: { name: string } }>(
      '/api/remote/${id}/greetings/:name',
      {
        config: { public: true },
        schema: {
          params: {
            type: 'object',
            properties: { name: { type: 'string', minLength: 1, maxLength: 100 } },
            required: ['name'],
          },
          // The answer's schema: its only fields reach the client (the kernel refuses a route without one).
          response: {
            200: {
              type: 'object',
              properties: { name: { type: 'string' }, text: { type: 'string' } },
              required: ['name', 'text'],
              additionalProperties: false,
            },
          },
        },
      },
      async (request) => services.greeting(request.params.name),
    );
  },
});
`;

const migrationTs = (table: string) => `import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('${table}', (t) => {
    t.text('name').primary();
    t.text('text').notNullable();
  });
  await knex('${table}').insert({ name: 'world', text: 'hello, world' });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('${table}');
}
`;

const testTs = (id: string) => `import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import manifest from '../index.ts';

describe('${id} manifest', () => {
  it('is the plugin of its folder, with its migrations and a public route', async () => {
    const folder = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
    assert.equal(manifest.id, path.basename(folder));
    assert.ok(manifest.migrations && readdirSync(manifest.migrations).some((f) => /^\\d{4}_.*\\.ts$/.test(f)));
    const routes: Array<{ url: string; public?: boolean }> = [];
    const app = { get: (url: string, opts: { config?: { public?: boolean } }) => routes.push({ url, public: opts.config?.public }) };
    await manifest.routes?.(app as never, {} as never);
    assert.deepEqual(routes, [{ url: '/api/remote/${id}/greetings/:name', public: true }]);
  });
});
`;

const readme = (id: string, root: string) => `# ${id}

An external plugin of the content platform, written by \`cms plugin new ${id}\`.

## Run it

\`\`\`
CMS_PLUGIN_PATH=${root} npm start            # in the platform's checkout
curl http://localhost:3000/api/remote/${id}/greetings/world
\`\`\`

The folder \`${root}\` needs:

- \`package.json\` with \`"type": "module"\`: without it Node loads \`index.ts\` as CommonJS and the
  platform refuses the folder, naming it;
- \`node_modules/cms-platform\` linking the platform's checkout (\`npm link\`, a \`file:\` dependency, or the
  link \`cms plugin new\` made), because the plugin imports the kernel as \`cms-platform/kernel\`.

## Routes

| Method | Path | Access | Answer |
| ------ | ---- | ------ | ------ |
| GET | \`/api/remote/${id}/greetings/:name\` | public | \`{ name, text }\`; 404 \`GREETING_NOT_FOUND\` |

## Tables

Its migrations (\`migrations/\`, recorded in \`knex_migrations_${id.replace(/-/g, '_')}\`) run when core-api or
the all-in-one process starts, or with \`cms migrate\`.

## Test

\`\`\`
npm install --save-dev mocha tsx   # once, in ${root}
npm test
\`\`\`
`;
