import { expect } from 'chai';
import { startDataKernel, type DataKernel } from './data-kernel.ts';

describe('data: bulk and batch', () => {
  let k: DataKernel;
  let cls: { id: string; name: string };
  before(async () => {
    k = await startDataKernel();
  });
  // Each case gets a class of its own, so keys and unique values of other cases never collide.
  beforeEach(async () => {
    cls = await k.createClass([
      { name: 'title', type: 'text', required: true },
      { name: 'sku', type: 'text', unique: true },
      { name: 'price', type: 'number' },
    ]);
    k.clearEvents();
  });
  after(() => k.t.close());

  /** Objects k0..k<n-1> with title t<i>, sku S<i> and price i, then no event. */
  const seed = async (n: number) => {
    const objects = Array.from({ length: n }, (_, i) => ({
      key: `k${i}`,
      attributes: { title: `t${i}`, sku: `S${i}`, price: i },
    }));
    const res = await k.call('POST', '/data-objects/bulk', k.publisher, { classId: cls.id, objects });
    expect(res.json().created, res.body).to.have.length(n);
    k.clearEvents();
  };

  it('creates 500 drafts in one call with exactly one object.bulk event', async () => {
    const objects = Array.from({ length: 500 }, (_, i) => ({
      key: `k${i}`,
      attributes: { title: `t${i}`, sku: `S${i}`, price: i },
    }));
    const res = await k.call('POST', '/data-objects/bulk', k.publisher, { classId: cls.id, objects });
    expect(res.statusCode).to.equal(200);
    const body = res.json();
    expect(body.created).to.have.length(500);
    expect(body.rejected).to.deep.equal([]);
    expect(k.events).to.have.length(1);
    expect(k.events[0].kind).to.equal('bulk');
    const bulk = (k.events[0].data as { bulk: { kind: string; count: number; firstIds: string[] } }).bulk;
    expect(bulk).to.deep.include({ kind: 'bulk', count: 500 });
    expect(bulk.firstIds).to.deep.equal(body.created.slice(0, 10));
    const rows = await k.t.db('data_objects').where({ class_id: cls.id }).select('published');
    expect(rows).to.have.length(500);
    expect(rows.every((r: { published: boolean }) => !r.published)).to.equal(true);
  });

  it('rejects rows breaking a rule with index/field/reason and keeps the others', async () => {
    await seed(2);
    const res = await k.call('POST', '/data-objects/bulk', k.editor, {
      className: cls.name,
      objects: [
        { attributes: { title: 'ok', sku: 'B1' } },
        { attributes: { sku: 'B2' } },
        { attributes: { title: 'dup in call', sku: 'B1' } },
        { attributes: { title: 'dup in db', sku: 'S1' } },
        { attributes: { title: 'bad', price: 'x' } },
        { key: 'k1', attributes: { title: 'key taken' } },
        { locale: 'not a locale', attributes: { title: 'x' } },
        { attributes: { title: 'ok too', nope: 1 } },
      ],
    });
    expect(res.statusCode).to.equal(200);
    const body = res.json();
    expect(body.created).to.have.length(1);
    expect(body.rejected).to.deep.equal([
      { index: 1, field: 'attributes.title', reason: 'is required' },
      { index: 2, field: 'attributes.sku', reason: 'sku is already in use' },
      { index: 3, field: 'attributes.sku', reason: 'sku is already in use' },
      { index: 4, field: 'attributes.price', reason: 'must be a number' },
      { index: 5, field: 'key', reason: 'key is already in use in this class and locale' },
      { index: 6, field: 'locale', reason: 'locale must look like en, de or pt-BR' },
      { index: 7, field: 'attributes.nope', reason: 'is not a field of this class' },
    ]);
    // The rejected rows' claims were released.
    expect(
      (await k.call('POST', '/data-objects', k.editor, { classId: cls.id, attributes: { title: 'x', sku: 'B2' } }))
        .statusCode,
    ).to.equal(201);
  });

  it("onConflict: 'update' updates objects matched by key and locale", async () => {
    await seed(6);
    const res = await k.call('POST', '/data-objects/bulk', k.editor, {
      classId: cls.id,
      onConflict: 'update',
      objects: [
        { key: 'k2', attributes: { title: 'changed', sku: 'S2', price: 99 } },
        { key: 'k3', attributes: { title: 't3', sku: 'S3', price: 3 } },
        { key: 'new-one', attributes: { title: 'new' } },
        { key: 'k4', attributes: { title: 'steal', sku: 'S5' } },
      ],
    });
    const body = res.json();
    expect(body.created).to.have.length(1);
    expect(body.updated).to.have.length(1);
    expect(body.unchanged).to.have.length(1);
    expect(body.rejected).to.deep.equal([{ index: 3, field: 'attributes.sku', reason: 'sku is already in use' }]);
    expect(k.events).to.have.length(1);
    const row = await k.t.db('data_objects').where({ class_id: cls.id, key: 'k2' }).first();
    expect(row.attributes).to.deep.equal({ title: 'changed', sku: 'S2', price: 99 });
  });

  it('refuses more than 500 objects with 400', async () => {
    const objects = Array.from({ length: 501 }, () => ({ attributes: { title: 'x' } }));
    const res = await k.call('POST', '/data-objects/bulk', k.editor, { classId: cls.id, objects });
    expect(res.statusCode).to.equal(400);
    expect(res.json().field).to.equal('objects');
  });

  it('GET /data-objects/batch returns drafts in the asked order and lists missing ids; 400 for bad ids', async () => {
    const a = await k.createObject({ classId: cls.id, attributes: { title: 'a' } }, k.editor);
    const b = await k.createObject({ classId: cls.id, attributes: { title: 'b' } }, k.editor);
    const missing = '00000000-0000-4000-8000-000000000000';
    const res = await k.call('GET', `/data-objects/batch?ids=${b.id},${missing},${a.id}`, k.reader);
    expect(res.json().objects.map((o: { id: string }) => o.id)).to.deep.equal([b.id, a.id]);
    expect(res.json().missing).to.deep.equal([missing]);
    const bad = await k.call('GET', '/data-objects/batch?ids=abc', k.reader);
    expect(bad.statusCode).to.equal(400);
    expect(bad.json().field).to.equal('ids');
  });

  it('POST /data-objects/batch publishes, unpublishes and deletes with one event per changed row', async () => {
    const a = await k.createObject({ classId: cls.id, attributes: { title: 'a' } }, k.editor);
    const b = await k.createObject({ classId: cls.id, published: true, attributes: { title: 'b' } });
    k.clearEvents();
    const denied = await k.call('POST', '/data-objects/batch', k.editor, { ids: [a.id], action: 'publish' });
    expect(denied.statusCode).to.equal(403);
    const pub = await k.call('POST', '/data-objects/batch', k.publisher, { ids: [a.id, b.id], action: 'publish' });
    expect(pub.json().results).to.deep.equal([
      { id: a.id, status: 'published' },
      { id: b.id, status: 'unchanged' },
    ]);
    expect(k.events.map((e) => [e.recordId, e.kind])).to.deep.equal([[a.id, 'published']]);
    k.clearEvents();
    await k.call('POST', '/data-objects/batch', k.publisher, { ids: [a.id], action: 'unpublish' });
    expect(k.events.map((e) => e.kind)).to.deep.equal(['unpublished']);
    k.clearEvents();
    const missing = '00000000-0000-4000-8000-000000000000';
    const del = await k.call('POST', '/data-objects/batch', k.editor, { ids: [a.id, b.id, missing], action: 'delete' });
    expect(del.json().results.map((r: { status: string }) => r.status)).to.deep.equal([
      'deleted',
      'deleted',
      'not_found',
    ]);
    expect(k.events.map((e) => [e.recordId, e.kind])).to.have.deep.members([
      [a.id, 'deleted'],
      [b.id, 'deleted'],
    ]);
    const bDeleted = k.events.find((e) => e.recordId === b.id)!;
    expect((bDeleted.data as { object: { published: boolean } }).object.published).to.equal(true);
  });

  it('resolve-assets answers 409 ASSETS_UNAVAILABLE while the asset plugin is not loaded (resolved with it: plugins/assets/test/resolve-assets.test.ts)', async () => {
    const a = await k.createObject({ classId: cls.id, attributes: { title: 'a' } });
    const res = await k.call('POST', '/data-objects/batch', k.editor, { ids: [a.id], action: 'resolve-assets' });
    expect(res.statusCode).to.equal(409);
    expect(res.json().code).to.equal('ASSETS_UNAVAILABLE');
  });
});
