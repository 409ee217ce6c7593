import { expect } from 'chai';
import { startDataKernel, type DataKernel } from './data-kernel.ts';

describe('data: unique fields', () => {
  let k: DataKernel;
  let cls: { id: string; name: string };
  before(async () => {
    k = await startDataKernel();
    cls = await k.createClass([
      { name: 'sku', type: 'text', unique: true },
      { name: 'slug', type: 'slug', unique: true, localized: true },
    ]);
  });
  after(() => k.t.close());

  const create = (attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    k.call('POST', '/data-objects', k.editor, { classId: cls.id, attributes, ...extra });

  it('answers 409 UNIQUE_VIOLATION naming the field', async () => {
    expect((await create({ sku: 'A1' })).statusCode).to.equal(201);
    const res = await create({ sku: 'A1' });
    expect(res.statusCode).to.equal(409);
    expect(res.json()).to.include({ code: 'UNIQUE_VIOLATION', field: 'sku', message: 'sku is already in use' });
  });

  it('refuses one of two concurrent creates with the same value', async () => {
    const results = await Promise.all([create({ sku: 'RACE' }), create({ sku: 'RACE' })]);
    expect(results.map((r) => r.statusCode).sort()).to.deep.equal([201, 409]);
    expect(results.find((r) => r.statusCode === 409)!.json().code).to.equal('UNIQUE_VIOLATION');
    expect(
      await k.t
        .db('data_objects')
        .where({ class_id: cls.id })
        .whereRaw(`attributes->>'sku' = 'RACE'`)
        .count('* as n')
        .first(),
    ).to.deep.equal({ n: 1 });
  });

  it('localized fields are unique per locale; shared ones across a translation group once', async () => {
    const en = (await create({ sku: 'G1', slug: 'hello' }, { locale: 'en' })).json();
    // Same localized slug in another locale of another record: allowed.
    expect((await create({ slug: 'hello' }, { locale: 'de' })).statusCode).to.equal(201);
    // Same slug in the same locale: refused.
    expect((await create({ slug: 'hello' }, { locale: 'en' })).json().field).to.equal('slug');
    // A translation of the same record shares the shared value without conflict.
    const fr = await create(
      { sku: 'G1', slug: 'bonjour' },
      { locale: 'fr', translationGroupId: en.translationGroupId },
    );
    expect(fr.statusCode).to.equal(201);
    // Freeing values: a changed value releases the old one; deleting releases them all.
    const sku = await k.call('PATCH', `/data-objects/${en.id}`, k.editor, { attributes: { sku: 'G2' } });
    expect(sku.statusCode).to.equal(200);
    expect((await create({ sku: 'G1' })).statusCode).to.equal(201);
    await k.call('DELETE', `/data-objects/${fr.json().id}`, k.editor);
    await k.call('DELETE', `/data-objects/${en.id}`, k.editor);
    expect((await create({ sku: 'G2', slug: 'hello' }, { locale: 'en' })).statusCode).to.equal(201);
  });

  it('a refused update leaves the object and its claims unchanged', async () => {
    const a = (await create({ sku: 'U1' })).json();
    await create({ sku: 'U2' });
    const res = await k.call('PATCH', `/data-objects/${a.id}`, k.editor, { attributes: { sku: 'U2' } });
    expect(res.statusCode).to.equal(409);
    expect((await k.call('GET', `/data-objects/${a.id}`, k.reader)).json().attributes.sku).to.equal('U1');
    expect((await create({ sku: 'U1' })).statusCode).to.equal(409);
  });
});
