import { expect } from 'chai';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { bootstrapFirstAdmin } from '../../runtime/bootstrap.ts';
import { loadKernelConfig } from '../../kernel/config.ts';
import { UserDirectory } from '../../kernel/users.ts';
import { verifyPassword } from '../../kernel/passwords.ts';
import { createTestDatabase } from '../helpers/database.ts';
import type { DatabaseHandle } from '../../kernel/database.ts';

function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

describe('first administrator at first start', () => {
  let database: DatabaseHandle;
  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(() => database.close());

  it('creates an active admin from CMS_ADMIN_EMAIL/CMS_ADMIN_PASSWORD and never logs the password', async () => {
    const { logger, lines } = capturingLogger();
    const config = loadKernelConfig({ CMS_ADMIN_EMAIL: 'boss@example.com', CMS_ADMIN_PASSWORD: 'Very-secret-42' });
    const users = new UserDirectory({ db: database.db });
    await bootstrapFirstAdmin({ users, config, logger });
    const user = await database.db('users').where({ email: 'boss@example.com' }).first();
    expect(user.active).to.equal(true);
    expect(await verifyPassword('Very-secret-42', user.password_hash)).to.equal(true);
    const roles = await database
      .db('user_roles')
      .join('roles', 'roles.id', 'user_roles.role_id')
      .where({ user_id: user.id })
      .pluck('name');
    expect(roles).to.deep.equal(['admin']);
    expect(lines.join('')).to.contain('first administrator created');
    expect(lines.join('')).not.to.contain('Very-secret-42');

    // A second start finds a user and creates nothing.
    await bootstrapFirstAdmin({
      users,
      config: loadKernelConfig({ CMS_ADMIN_EMAIL: 'other@example.com', CMS_ADMIN_PASSWORD: 'another-pass' }),
      logger,
    });
    expect(await users.count()).to.equal(1);
  });

  it('without the variables explains how to create one', async () => {
    const { logger, lines } = capturingLogger();
    await bootstrapFirstAdmin({ users: new UserDirectory({ db: database.db }), config: loadKernelConfig({}), logger });
    expect(await new UserDirectory({ db: database.db }).count()).to.equal(0);
    expect(lines.join('')).to.contain('admin create');
  });

  it('applies the password policy to the first administrator too', async () => {
    const { logger } = capturingLogger();
    const config = loadKernelConfig({ CMS_ADMIN_EMAIL: 'boss@example.com', CMS_ADMIN_PASSWORD: 'short' });
    let error: unknown;
    const users = new UserDirectory({ db: database.db });
    await bootstrapFirstAdmin({ users, config, logger }).catch((e) => (error = e));
    expect(String(error)).to.contain('at least 8');
    expect(await users.count()).to.equal(0);
  });
});
