import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../kernel/loader.ts';
import { verifyPassword } from '../../kernel/passwords.ts';
import type { DatabaseHandle } from '../../kernel/database.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { freePort } from '../helpers/ports.ts';

const run = promisify(execFile);
const CMS = path.join(PROJECT_ROOT, 'bin', 'cms.js');

/** The `cms` command as an operator runs it, against a fresh database named by DATABASE_URL. */
describe('cms command line', function () {
  this.timeout(60_000);
  let database: DatabaseHandle;
  let env: NodeJS.ProcessEnv;
  // Each case on an empty database of its own.
  beforeEach(async () => {
    database = await createTestDatabase({ fresh: true });
    env = { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'warn', NODE_ENV: 'test', CMS_ADMIN_PASSWORD: '' };
  });
  afterEach(() => database.close());

  it('cms migrate applies every migration once, then nothing', async () => {
    const first = await run('node', [CMS, 'migrate'], { env });
    expect(first.stdout).to.contain('kernel/0001_accounts').and.to.contain('data/0001_data_model');
    const second = await run('node', [CMS, 'migrate'], { env });
    expect(second.stdout.trim()).to.equal('nothing to apply');
  });

  it('cms admin create makes an active administrator with the password from the environment', async () => {
    const out = await run('node', [CMS, 'admin', 'create', '--email', 'ops@example.com'], {
      env: { ...env, CMS_ADMIN_PASSWORD: 'operator-pass-1' },
    });
    expect(out.stdout).to.contain('administrator ops@example.com created');
    const user = await database.db('users').where({ email: 'ops@example.com' }).first();
    expect(user.active).to.equal(true);
    expect(user.password_hash, 'a real process hashes at production cost').to.match(/^scrypt\$16384\$8\$1\$/);
    expect(await verifyPassword('operator-pass-1', user.password_hash)).to.equal(true);
    const refused = await run('node', [CMS, 'admin', 'create', '--email', 'ops@example.com'], {
      env: { ...env, CMS_ADMIN_PASSWORD: 'operator-pass-2' },
    }).catch((e) => e);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.contain('already exists');
  });

  it("lists each loaded plugin's commands in its usage, and a turned-off plugin takes its command with it", async () => {
    const usage = await run('node', [CMS], { env }).catch((e) => e);
    expect(usage.code).to.equal(2);
    expect(usage.stderr).to.match(/^ {2}cms migrate /m);
    expect(usage.stderr).to.match(/^ {2}cms publish-runner \[--once\] +carry out publish jobs/m);
    const off = { ...env, CMS_DISABLED_PLUGINS: 'publish' };
    const gone = await run('node', [CMS, 'publish-runner', '--once'], { env: off }).catch((e) => e);
    expect(gone.code, 'an unknown command prints the usage').to.equal(2);
    expect(gone.stderr).to.contain('usage:').and.not.to.contain('publish-runner');
  });

  it('refuses to start on an invalid variable, naming it', async () => {
    const failed = await run('node', [CMS, 'start'], { env: { ...env, PORT: 'abc' } }).catch((e) => e);
    expect(failed.code).to.equal(1);
    expect(failed.stderr).to.contain('PORT');
  });

  it('cms start --service gateway serves its own plugins and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const child = spawn('node', [CMS, 'start', '--service', 'gateway'], {
      env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let health: Response | undefined;
    for (let i = 0; i < 300 && !health; i++) {
      health = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
      if (!health) await new Promise((r) => setTimeout(r, 100));
    }
    expect(health?.status).to.equal(200);
    // core-api routes are not part of the gateway service.
    expect((await fetch(`http://127.0.0.1:${port}/auth/me`)).status).to.equal(404);
    child.kill('SIGTERM');
    expect(await exited).to.equal(0);
  });
});
