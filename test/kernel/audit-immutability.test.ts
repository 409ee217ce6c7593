import { expect } from 'chai';
import { SYSTEM } from '../../kernel/actor.ts';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';

// `t.db` is the kernel's own handle (the application's database user), so these prove what the
// application itself can and cannot do to its audit log.
describe('audit log: append-only in the database', () => {
  let t: TestKernel;
  const count = async () => Number((await t.db('audit_log').count<{ count: number }[]>({ count: '*' }))[0].count);
  const refusal = async (statement: Promise<unknown>) => {
    const err = await statement.then(
      () => null,
      (e: { code?: string; message: string }) => e,
    );
    expect(err, 'statement was not refused').not.to.equal(null);
    expect(err!.code).to.equal('42501'); // insufficient_privilege, raised by the table's trigger
    expect(err!.message).to.match(/audit_log is append-only/);
  };

  beforeEach(async () => {
    t = await startTestKernel({ plugins: [] });
    for (const action of ['user.create', 'user.update', 'role.delete'])
      await t.kernel.resolve('audit').record({ actor: SYSTEM }, { action });
  });
  afterEach(() => t.close());

  it('refuses UPDATE', async () => {
    await refusal(t.db('audit_log').update({ action: 'user.forged' }));
    await refusal(t.db.raw("UPDATE audit_log SET actor_label = 'someone else' WHERE action = 'user.create'"));
    expect(await t.db('audit_log').where({ action: 'user.forged' }).first()).to.equal(undefined);
  });

  it('refuses TRUNCATE, even inside a purge transaction', async () => {
    await refusal(t.db.raw('TRUNCATE audit_log'));
    await refusal(
      t.db.transaction(async (trx) => {
        await trx.raw("SET LOCAL cms.audit_purge = 'on'");
        await trx.raw('TRUNCATE audit_log');
      }),
    );
    expect(await count()).to.equal(3);
  });

  it('refuses DELETE outside the retention transaction', async () => {
    await refusal(t.db('audit_log').where({ action: 'user.create' }).delete());
    await refusal(t.db.transaction((trx) => trx('audit_log').delete()));
    // SET LOCAL outside a transaction block has no effect on the next statement.
    await t.db.raw("SET LOCAL cms.audit_purge = 'on'");
    await refusal(t.db('audit_log').delete());
    // The setting ends with its transaction: a later transaction on the same pool is refused again.
    await t.db.transaction(async (trx) => {
      await trx.raw("SET LOCAL cms.audit_purge = 'on'");
    });
    await refusal(t.db('audit_log').delete());
    expect(await count()).to.equal(3);
  });

  it('allows DELETE in a transaction that did SET LOCAL cms.audit_purge = on', async () => {
    const deleted = await t.db.transaction(async (trx) => {
      await trx.raw("SET LOCAL cms.audit_purge = 'on'");
      return trx('audit_log').where({ action: 'user.create' }).delete();
    });
    expect(deleted).to.equal(1);
    expect(await count()).to.equal(2);
  });

  it('still accepts inserts', async () => {
    await t.db('audit_log').insert({ actor_type: 'system', action: 'test.insert' });
    expect(await count()).to.equal(4);
  });
});
