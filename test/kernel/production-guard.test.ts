import { expect } from 'chai';
import { pino } from 'pino';
import { ConfigError, loadKernelConfig } from '../../kernel/config.ts';
import { databasePasswordProblem } from '../../kernel/database.ts';
import { createKernel } from '../../kernel/kernel.ts';
import { openDatabase } from '../../runtime/database.ts';
import { testEnv } from './boot.ts';

const silent = pino({ level: 'silent' });

/** The message a production start with this environment is refused with (before any database is opened). */
async function productionStartRefusal(env: Record<string, string>): Promise<Error> {
  try {
    const kernel = await createKernel({
      env: testEnv({ NODE_ENV: 'production', ...env }),
      service: 'all',
      plugins: [],
      jobs: false,
      openDatabase,
      logger: silent,
    });
    await kernel.close();
  } catch (err) {
    return err as Error;
  }
  throw new Error('the kernel started although it should not have');
}

describe('production guard: the database password is required unless NODE_ENV is development or test', () => {
  it('refuses a production start without DATABASE_URL (no embedded fallback), naming the variable', async () => {
    const err = await productionStartRefusal({});
    expect(err).to.be.instanceOf(ConfigError);
    expect(err.message).to.match(/^DATABASE_URL is required with NODE_ENV=production/);
  });

  it('refuses a production DATABASE_URL, DATABASE_OWNER_URL or DATABASE_READ_URL without a password', async () => {
    const err = await productionStartRefusal({ DATABASE_URL: 'postgresql://cms@db.invalid:5432/cms' });
    expect(err.message).to.match(/^DATABASE_URL has no password/);
    const owner = await productionStartRefusal({
      DATABASE_URL: 'postgresql://cms:secret@db.invalid:5432/cms',
      DATABASE_OWNER_URL: 'postgresql://owner@db.invalid:5432/cms',
    });
    expect(owner.message).to.match(/^DATABASE_OWNER_URL has no password/);
    const replica = await productionStartRefusal({
      DATABASE_URL: 'postgresql://cms:secret@db.invalid:5432/cms',
      DATABASE_READ_URL: 'postgresql://cms@replica.invalid:5432/cms',
    });
    expect(replica.message).to.match(/^DATABASE_READ_URL has no password/);
  });

  it('lets development and test run without a password, and the embedded default, while production needs one', () => {
    for (const NODE_ENV of ['development', 'test']) {
      expect(databasePasswordProblem(loadKernelConfig({ NODE_ENV }))).to.equal(null);
      const noPassword = loadKernelConfig({ NODE_ENV, DATABASE_URL: 'postgresql://cms@localhost/cms' });
      expect(databasePasswordProblem(noPassword)).to.equal(null);
    }
    const withPassword = loadKernelConfig({
      NODE_ENV: 'production',
      DATABASE_URL: 'postgresql://cms:s3cret@db:5432/cms',
    });
    expect(databasePasswordProblem(withPassword)).to.equal(null);
  });
});
