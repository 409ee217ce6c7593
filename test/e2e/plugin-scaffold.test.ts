import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../kernel/loader.ts';
import type { DatabaseHandle } from '../../kernel/database.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { freePort } from '../helpers/ports.ts';

const run = promisify(execFile);
const CMS = path.join(PROJECT_ROOT, 'bin', 'cms.js');

/** Starts `cms start` with `env` and resolves once GET /health answers 200; `stop()` sends SIGTERM. */
async function startProduct(env: NodeJS.ProcessEnv, port: number) {
  const output: string[] = [];
  const child = spawn('node', [CMS, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (c) => output.push(String(c)));
  child.stderr.on('data', (c) => output.push(String(c)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`cms start exited with ${child.exitCode}:\n${output.join('')}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`cms start did not answer in time:\n${output.join('')}`);
    }
    const res = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
    if (res?.status === 200) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/**
 * An integrator's first plugin, as CONTRIBUTING tells it: `cms plugin new` writes a folder outside the
 * repository, and the product started with CMS_PLUGIN_PATH on that folder serves its route.
 */
describe('cms plugin new: an external plugin folder that starts as written', function () {
  this.timeout(180_000);
  let root: string;
  let database: DatabaseHandle;
  before(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'cms-ext-'));
    database = await createTestDatabase({ fresh: true });
  });
  after(async () => {
    await database.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('writes the folder, whose own test passes, and the product serves its public route', async () => {
    expect(path.relative(PROJECT_ROOT, root).startsWith('..'), 'outside the repository').to.equal(true);
    const out = await run('node', [CMS, 'plugin', 'new', 'hello-scaffold', '--dir', root]);
    expect(out.stdout).to.contain(`CMS_PLUGIN_PATH=${root}`);
    expect(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).type).to.equal('module');
    expect(realpathSync(path.join(root, 'node_modules', 'cms-platform'))).to.equal(realpathSync(PROJECT_ROOT));
    for (const file of ['index.ts', 'README.md', 'test/hello-scaffold.test.ts'])
      expect(existsSync(path.join(root, 'hello-scaffold', file)), file).to.equal(true);

    // The scaffold's own mocha test, run with this checkout's mocha and tsx.
    const mocha = path.join(PROJECT_ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');
    const tsx = pathToFileURL(path.join(PROJECT_ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs')).href;
    const tested = await run('node', [mocha, `--import=${tsx}`, 'hello-scaffold/test/*.test.ts'], { cwd: root });
    expect(tested.stdout).to.contain('1 passing');

    // A second plugin with the same id is refused, naming the folder.
    const again = await run('node', [CMS, 'plugin', 'new', 'hello-scaffold', '--dir', root]).catch((e) => e);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.contain(path.join(root, 'hello-scaffold')).and.to.contain('already exists');

    const port = await freePort();
    const product = await startProduct(
      {
        ...process.env,
        DATABASE_URL: database.url,
        CMS_PLUGIN_PATH: root,
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
        PORT: String(port),
        CMS_ADMIN_PASSWORD: '',
      },
      port,
    );
    try {
      const hello = await fetch(`http://127.0.0.1:${port}/api/remote/hello-scaffold/greetings/world`);
      expect(hello.status).to.equal(200);
      expect(await hello.json()).to.deep.equal({ name: 'world', text: 'hello, world' });
      const missing = await fetch(`http://127.0.0.1:${port}/api/remote/hello-scaffold/greetings/mars`);
      expect(missing.status).to.equal(404);
      expect(((await missing.json()) as { code: string }).code).to.equal('GREETING_NOT_FOUND');
      const tooLong = await fetch(`http://127.0.0.1:${port}/api/remote/hello-scaffold/greetings/${'x'.repeat(101)}`);
      expect(tooLong.status).to.equal(400);
    } finally {
      expect(await product.stop()).to.equal(0);
    }
  });

  it('refuses a plugin folder without "type": "module", naming the folder and the fix', async () => {
    const bare = mkdtempSync(path.join(tmpdir(), 'cms-ext-bare-'));
    try {
      const plugin = path.join(bare, 'hello-ext');
      mkdirSync(path.join(bare, 'node_modules'), { recursive: true });
      mkdirSync(plugin);
      symlinkSync(PROJECT_ROOT, path.join(bare, 'node_modules', 'cms-platform'), 'dir');
      writeFileSync(
        path.join(plugin, 'index.ts'),
        "import { definePlugin } from 'cms-platform/kernel';\nexport default definePlugin({ id: 'hello-ext', processes: ['gateway'], needs: [] });\n",
      );
      const env = { ...process.env, DATABASE_URL: database.url, CMS_PLUGIN_PATH: bare, LOG_LEVEL: 'warn' };
      const failed = await run('node', [CMS, 'migrate'], { env }).catch((e) => e);
      expect(failed.code).to.equal(1);
      expect(failed.stderr.trim()).to.equal(
        `cms: plugin folder ${plugin} is not an ES module scope: add a package.json with "type": "module" to it (\`cms plugin new\` writes one)`,
      );
      writeFileSync(path.join(bare, 'package.json'), '{ "type": "module" }\n');
      // Accepted once the folder is an ES module scope (the database is already migrated).
      const migrated = await run('node', [CMS, 'migrate'], { env });
      expect(migrated.stdout.trim()).to.equal('nothing to apply');
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });
});
