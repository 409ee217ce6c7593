import { expect } from 'chai';
import { startDataKernel, type DataKernel } from './data-kernel.ts';

/**
 * A new record is validated against the cached class definition and written in one statement that
 * checks the definition under the class's share lock; these specs change the stored definition behind
 * the cache's back (raw SQL, no invalidation) to show that the write statement, not the cache, decides.
 */
describe('data: single create against the cached class definition', () => {
  let k: DataKernel;
  before(async () => {
    k = await startDataKernel();
  });
  after(() => k.t.close());

  const statementsOf = async (work: () => Promise<unknown>): Promise<string[]> => {
    const seen: string[] = [];
    const listener = (q: { sql: string }) => seen.push(q.sql);
    k.t.db.on('query', listener);
    try {
      await work();
    } finally {
      k.t.db.removeListener('query', listener);
    }
    return seen;
  };
  const setFields = (classId: string, fields: unknown[]) =>
    k.t
      .db('data_classes')
      .where({ id: classId })
      .update({ fields: JSON.stringify(fields) });

  it('writes claims and row in one statement, without reading the class again; a lost claim is 409 and leaves nothing', async () => {
    const cls = await k.createClass(
      [
        { name: 'title', type: 'text' },
        { name: 'sku', type: 'text', unique: true },
      ],
      'fast',
    );
    await k.createObject({ className: cls.name, attributes: { title: 'warm', sku: 'S-0' } });
    // The class's own change notice may arrive late on a loaded machine and empty the cache once more:
    // the claim holds for a create against a warm cache, so a create that found it cold is repeated.
    let data: string[] = [];
    for (let attempt = 1; attempt <= 5; attempt++) {
      const statements = await statementsOf(() =>
        k.createObject({ className: cls.name, attributes: { title: 'a', sku: `S-${attempt}` } }),
      );
      data = statements.filter((s) => !/^(BEGIN|COMMIT|ROLLBACK)/i.test(s.trim()) && !s.includes('session'));
      if (data.length === 1) break;
    }
    expect(data, data.join('\n---\n')).to.have.length(1);
    expect(data[0]).to.contain('insert into data_unique_values').and.to.contain('insert into data_objects');

    const before = Number((await k.t.db('data_objects').where({ class_id: cls.id }).count({ n: '*' }).first())!.n);
    const dup = await k.call('POST', '/data-objects', k.editor, {
      classId: cls.id,
      attributes: { title: 'b', sku: 'S-1' },
    });
    expect(dup.statusCode).to.equal(409);
    expect(dup.json()).to.include({ code: 'UNIQUE_VIOLATION', field: 'sku' });
    expect(Number((await k.t.db('data_objects').where({ class_id: cls.id }).count({ n: '*' }).first())!.n)).to.equal(
      before,
    );
  });

  it('a definition that changed since it was cached writes nothing and the create is judged by the stored one', async () => {
    const cls = await k.createClass([{ name: 'title', type: 'text' }], 'stale');
    await k.createObject({ classId: cls.id, attributes: { title: 'warm the cache' } });
    // A required field the cached definition does not know: the cached check passes, the write
    // statement sees other fields, and the stored definition refuses.
    await setFields(cls.id, [
      { name: 'title', type: 'text' },
      { name: 'code', type: 'text', required: true },
    ]);
    const refused = await k.call('POST', '/data-objects', k.editor, {
      classId: cls.id,
      attributes: { title: 'no code' },
    });
    expect(refused.statusCode, refused.body).to.equal(400);
    expect(refused.json().field).to.equal('attributes.code');
    expect(
      await k.t.db('data_objects').where({ class_id: cls.id }).whereRaw(`attributes->>'title' = 'no code'`).first(),
    ).to.equal(undefined);
    // A field only the stored definition has: the cached check refuses, the stored one accepts.
    const accepted = await k.call('POST', '/data-objects', k.editor, {
      classId: cls.id,
      attributes: { title: 'with code', code: 'C-1' },
    });
    expect(accepted.statusCode, accepted.body).to.equal(201);
    expect(accepted.json().attributes).to.deep.equal({ title: 'with code', code: 'C-1' });
  });

  it("a class made in the caller's open transaction (not cached yet) takes objects in that transaction", async () => {
    const trx = await k.t.db.transaction();
    try {
      const cls = await k
        .services()
        .classes.create(
          { actor: { type: 'system', id: null } } as never,
          { name: `intrx_${Date.now()}`, fields: [{ name: 'title', type: 'text' }] },
          { trx },
        );
      const made = await k.t.kernel
        .resolve('dataObjects')
        .create(
          { actor: { type: 'system', id: null } as never, changeActor: { type: 'system', id: null }, trx },
          { classId: cls.id, attributes: { title: 'inside' } },
        );
      expect(made.class.id).to.equal(cls.id);
      await trx.commit();
    } catch (err) {
      await trx.rollback();
      throw err;
    }
  });
});
