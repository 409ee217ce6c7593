import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { SYSTEM } from '../../kernel/actor.ts';
import { createKnex, type Db } from '../../kernel/database.ts';
import { createKernel, type Kernel } from '../../kernel/kernel.ts';
import { discoverPlugins } from '../../kernel/loader.ts';
import { SESSION_COOKIE } from '../../kernel/sessions.ts';
import { createTestDatabase } from '../helpers/database.ts';

/**
 * The split the embedded default uses: the owner role migrates, the processes connect as an
 * application role. These statements run as the application role, the way an attacker with the
 * application's credentials (or an injected query) would try to rewrite history.
 */
describe('database roles: the application role cannot alter the audit log', () => {
  const role = `cms_app_${randomBytes(3).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  let owner: Db;
  let app: Db;
  let kernel: Kernel;
  let close: () => Promise<void>;

  before(async () => {
    const database = await createTestDatabase({ fresh: true });
    owner = database.db;
    await owner.raw(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    const appUrl = new URL(database.url);
    appUrl.username = role;
    appUrl.password = password;
    app = createKnex(appUrl.toString(), 4);
    kernel = await createKernel({
      service: 'all',
      plugins: (await discoverPlugins()).filter((p) => ['identity', 'audit', 'data', 'health'].includes(p.id)),
      env: { NODE_ENV: 'test', LOG_LEVEL: 'silent', AUDIT_RETENTION_DAYS: '30' },
      database: { db: app, url: appUrl.toString(), ownerUrl: database.url, close: () => app.destroy() },
      logger: pino({ level: 'silent' }),
      jobs: false,
    });
    close = async () => {
      await kernel.close();
      await app.destroy();
      await owner.raw(`REASSIGN OWNED BY ${role} TO CURRENT_USER`);
      await owner.raw(`DROP OWNED BY ${role}`);
      await database.close();
    };
    await kernel.resolve('audit').record({ actor: SYSTEM }, { action: 'user.create' });
    await owner('audit_log').insert({
      at: new Date(Date.now() - 40 * 86_400_000),
      actor_type: 'system',
      action: 'test.old',
    });
  });
  after(() => close());

  const refused = async (statement: () => Promise<unknown>) => {
    const err = await statement().then(
      () => null,
      (e: { code?: string }) => e,
    );
    expect(err, 'statement was not refused').not.to.equal(null);
    expect(err!.code).to.equal('42501'); // insufficient_privilege / must be owner
  };

  it('connects as the application role, which is no superuser and owns neither the audit log nor its trigger', async () => {
    const me = (await app.raw('SELECT current_user AS who, usesuper FROM pg_user WHERE usename = current_user'))
      .rows[0];
    expect(me).to.deep.equal({ who: role, usesuper: false });
    const auditOwner = (await app.raw("SELECT tableowner FROM pg_tables WHERE tablename = 'audit_log'")).rows[0]
      .tableowner;
    expect(auditOwner).not.to.equal(role);
  });

  it('refuses UPDATE, DELETE, TRUNCATE, the SET LOCAL purge flag, disabling or replacing the trigger, and changing the retention', async () => {
    await refused(() => app('audit_log').update({ action: 'user.forged' }));
    await refused(() => app('audit_log').delete());
    await refused(() => app.raw('TRUNCATE audit_log'));
    await refused(() =>
      app.transaction(async (trx) => {
        await trx.raw("SET LOCAL cms.audit_purge = 'on'");
        await trx('audit_log').where({ action: 'user.create' }).delete();
      }),
    );
    await refused(() => app.raw('ALTER TABLE audit_log DISABLE TRIGGER ALL'));
    await refused(() => app.raw('ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_update'));
    await refused(() => app.raw('DROP TRIGGER audit_log_no_update ON audit_log'));
    await refused(() =>
      app.raw(
        'CREATE OR REPLACE FUNCTION audit_log_guard() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN OLD; END $$',
      ),
    );
    await refused(() => app('audit_settings').update({ retention_days: 0 }));
    await refused(() => app.raw('ALTER TABLE audit_log OWNER TO CURRENT_USER'));
    expect(await app('audit_log').where({ action: 'user.create' }).first()).to.include({ action: 'user.create' });
  });

  it('purges only through audit_purge(), never rows younger than the stored retention, whatever the cutoff asked', async () => {
    const future = new Date(Date.now() + 365 * 86_400_000);
    const deleted = Number((await app.raw('SELECT audit_purge(?) AS n', [future])).rows[0].n);
    expect(deleted).to.equal(1);
    const left = await app('audit_log').pluck('action');
    expect(left).to.include('user.create').and.not.to.include('test.old');
  });

  it('still runs the product: sign-in, a class with indexed fields (run-time DDL on its own tables), objects', async () => {
    const users = kernel.resolve('users');
    const { id } = await users.create({
      email: 'owner-split@example.test',
      password: 'split-pass-123',
      displayName: 'x',
      roles: ['admin'],
    });
    const session = await kernel.resolve('sessions').create(id, {});
    const headers = { cookie: `${SESSION_COOKIE}=${session.token}` };
    const cls = await kernel.app.inject({
      method: 'POST',
      url: '/data-classes',
      headers,
      payload: {
        name: 'RoleSplit',
        fields: [
          { name: 'slug', type: 'slug', unique: true },
          { name: 'n', type: 'number' },
        ],
      },
    });
    expect(cls.statusCode, cls.body).to.equal(201);
    const obj = await kernel.app.inject({
      method: 'POST',
      url: '/data-objects',
      headers,
      payload: { classId: cls.json().id, published: true, attributes: { slug: 'a', n: 1 } },
    });
    expect(obj.statusCode, obj.body).to.equal(201);
    const log = await kernel.app.inject({ method: 'GET', url: '/audit-log?action=data_class.create', headers });
    expect(log.json().entries).to.have.length(1);
  });
});
