import { expect } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../kernel/loader.ts';
import { acceptsConnections, freePort } from '../helpers/ports.ts';

const run = promisify(execFile);
const CMS = path.join(PROJECT_ROOT, 'bin', 'cms.js');

/** True when something accepts connections on the loopback port. */

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The `cms` command as an operator runs it on the zero-setup default: no DATABASE_URL, the embedded
 * cluster under CMS_DATA_DIR. The folder lies under the project's `.test-data/`, which the `postgres`
 * user can reach when the tests run as root.
 */
describe('cms command line on the embedded database', function () {
  this.timeout(60_000);
  const dataDir = path.join(
    PROJECT_ROOT,
    '.test-data',
    `cli-embedded-${process.pid}-${randomBytes(3).toString('hex')}`,
  );
  const pidFile = path.join(dataDir, 'postgres', 'pgdata', 'postmaster.pid');
  let pgPort: number;
  let env: NodeJS.ProcessEnv;
  let server: ChildProcess | undefined;

  before(async () => {
    pgPort = await freePort();
    const { DATABASE_URL: _url, TEST_DATABASE_URL: _testUrl, ...inherited } = process.env;
    env = {
      ...inherited,
      CMS_DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(pgPort),
      LOG_LEVEL: 'warn',
      NODE_ENV: 'test',
      CMS_ADMIN_EMAIL: '',
      CMS_ADMIN_PASSWORD: '',
    };
  });

  after(async () => {
    server?.kill('SIGKILL');
    // Whatever a failed test left running on this folder goes too.
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
      if (pid > 0 && isAlive(pid)) process.kill(pid, 'SIGINT');
      for (let i = 0; i < 50 && pid > 0 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it('cms migrate with no server running starts the cluster, migrates and stops it again', async () => {
    const out = await run('node', [CMS, 'migrate'], { env });
    // Whichever test of this file runs first migrates the folder's database; the other finds it current.
    expect(out.stdout).to.satisfy(
      (text: string) => text.includes('kernel/0001_accounts') || text.trim() === 'nothing to apply',
    );
    const again = await run('node', [CMS, 'migrate'], { env });
    expect(again.stdout.trim()).to.equal('nothing to apply');
    expect(existsSync(pidFile), 'postmaster.pid left behind').to.equal(false);
    expect(await acceptsConnections(pgPort), 'a server still listens on the embedded port').to.equal(false);
  });

  it('cms admin create and cms migrate use the cluster of a running server, and leave it running', async () => {
    const port = await freePort();
    server = spawn('node', [CMS, 'start'], { env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => server!.on('exit', (code) => resolve(code)));
    let health: Response | undefined;
    for (let i = 0; i < 200 && health?.status !== 200; i++) {
      health = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
      if (health?.status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(health?.status).to.equal(200);
    const postmasterPid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);

    // The port comes from the running cluster, not from EMBEDDED_PG_PORT.
    const cliEnv = { ...env, EMBEDDED_PG_PORT: String(await freePort()) };
    const created = await run('node', [CMS, 'admin', 'create', '--email', 'locked-out@example.com'], {
      env: { ...cliEnv, CMS_ADMIN_PASSWORD: 'operator-pass-1' },
    });
    expect(created.stdout).to.contain('administrator locked-out@example.com created');

    const login = await fetch(`http://127.0.0.1:${port}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'locked-out@example.com', password: 'operator-pass-1' }),
    });
    expect(login.status).to.equal(200);

    const migrated = await run('node', [CMS, 'migrate'], { env: cliEnv });
    expect(migrated.stdout.trim()).to.equal('nothing to apply');

    // The commands left the server's cluster alone.
    expect(isAlive(postmasterPid)).to.equal(true);
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).to.equal(200);

    server.kill('SIGTERM');
    expect(await exited).to.equal(0);
    server = undefined;
    expect(isAlive(postmasterPid), 'the server stops the cluster it started').to.equal(false);
  });

  it('as root, refuses a data folder the postgres user cannot enter, naming it', async function () {
    if (process.getuid?.() !== 0) {
      console.log('      (skipped: only root runs the embedded cluster as another user)');
      this.skip();
    }
    const locked = path.join(PROJECT_ROOT, '.test-data', `locked-${process.pid}-${randomBytes(3).toString('hex')}`);
    await mkdir(locked);
    await chmod(locked, 0o700);
    try {
      // A refusal, not a hang: the command's own timeout would end a wait for a cluster that never starts.
      const failed = await run('node', [CMS, 'migrate'], {
        env: { ...env, CMS_DATA_DIR: path.join(locked, 'data') },
        timeout: 20_000,
      }).catch((e) => e);
      expect(failed.code).to.equal(1);
      expect(failed.stderr.trim()).to.equal(
        `cms: embedded PostgreSQL runs as the \`postgres\` user, which cannot enter ${locked} (mode 0700): ` +
          'set CMS_DATA_DIR to a folder it can reach, e.g. /var/lib/cms, or set DATABASE_URL',
      );
      // Stopped before creating anything in there.
      expect(existsSync(path.join(locked, 'data'))).to.equal(false);
    } finally {
      await rm(locked, { recursive: true, force: true });
    }
  });
});
