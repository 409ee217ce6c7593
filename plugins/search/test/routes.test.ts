import { expect } from 'chai';
import { startSearchKernel, type SearchKernel } from './search-kernel.ts';

describe('search: routes, access, caching, reindex', () => {
  let k: SearchKernel;
  before(async () => {
    k = await startSearchKernel({
      PUBLIC_SEARCH_RATE_LIMIT_PER_MINUTE: '40',
      PUBLIC_SEARCH_CACHE_CONTROL: 'public, max-age=30',
    });
  });
  after(() => k.t.close());

  it('editor search needs a session (401) and objects:read (403); reindex needs settings:manage', async () => {
    expect((await k.call('GET', '/cms-one/search?q=a', null)).statusCode).to.equal(401);
    expect((await k.call('GET', '/cms-one/search?q=a', k.nobody)).statusCode).to.equal(403);
    expect((await k.call('GET', '/cms-one/search?q=a', k.reader)).statusCode).to.equal(200);
    expect((await k.call('POST', '/cms-one/search/reindex', null)).statusCode).to.equal(401);
    expect((await k.call('POST', '/cms-one/search/reindex', k.publisher)).statusCode).to.equal(403);
    expect((await k.call('POST', '/cms-one/search/reindex', k.admin)).statusCode).to.equal(200);
  });

  it('public answers carry an ETag and the configured Cache-Control; a revalidation gets 304', async () => {
    await k.createPage({ title: 'Etag narwhal', published: true, slug: 'narwhal' });
    const first = await k.call('GET', '/public/search?q=narwhal', null);
    expect(first.statusCode).to.equal(200);
    expect(first.headers['cache-control']).to.equal('public, max-age=30');
    const tag = first.headers.etag as string;
    expect(tag).to.be.a('string');
    const again = await k.call('GET', '/public/search?q=narwhal', null, undefined, { 'if-none-match': tag });
    expect(again.statusCode).to.equal(304);
    await k.createPage({ title: 'Second narwhal', published: true, slug: 'narwhal-2' });
    expect(
      (await k.call('GET', '/public/search?q=narwhal', null, undefined, { 'if-none-match': tag })).statusCode,
    ).to.equal(200);
  });

  it('reindex rebuilds from every source, drops documents whose record is gone, and keeps search working', async () => {
    const cls = await k.createClass([{ name: 'title', type: 'text' }], 'Reindexed');
    const obj = await k.createObject({ classId: cls.id, published: true, attributes: { title: 'Reindexed pangolin' } });
    const page = await k.createPage({ title: 'Reindexed pangolin page', published: true, slug: 'pangolin' });
    // Damage the index behind the hooks' back: a lost document, a stale one, one of a vanished source.
    await k.t.db('search_documents').where({ source_id: obj.id }).delete();
    await k.t.db('search_documents').where({ source_id: page.id }).update({ title: 'pangolin stale' });
    await k.t.db('search_documents').insert({
      source_type: 'gone',
      source_id: 'x',
      config: 'simple',
      title: 'pangolin ghost',
      body: '',
      public: true,
      updated_at: new Date(),
    });
    await k.t.db('search_documents').insert({
      source_type: 'page',
      source_id: 'deleted-page',
      config: 'simple',
      title: 'pangolin orphan',
      body: '',
      public: true,
      updated_at: new Date(),
    });
    expect(k.ids(await k.publicSearch({ q: 'pangolin' }))).to.have.members([page.id, 'x', 'deleted-page']);

    const res = await k.call('POST', '/cms-one/search/reindex', k.admin);
    expect(res.statusCode, res.body).to.equal(200);
    const report = res.json();
    const byType = new Map(report.sources.map((s: { sourceType: string }) => [s.sourceType, s]));
    expect(byType.get('page')).to.deep.include({ removed: 1 });
    expect((byType.get('object') as { documents: number }).documents).to.be.greaterThan(0);
    expect((byType.get('class') as { documents: number }).documents).to.be.greaterThan(0);
    expect(report.removedOrphans).to.equal(1);
    const after = await k.publicSearch({ q: 'pangolin' });
    expect(k.ids(after)).to.have.members([page.id, obj.id]);
    expect(after.results.find((r) => r.sourceId === page.id)).to.include({ title: 'Reindexed pangolin page' });

    const one = await k.call('POST', '/cms-one/search/reindex?type=page', k.admin);
    expect(one.json().sources.map((s: { sourceType: string }) => s.sourceType)).to.deep.equal(['page']);
    expect((await k.call('POST', '/cms-one/search/reindex?type=Bad!', k.admin)).statusCode).to.equal(400);
  });

  it('a second reindex while one runs answers 409 REINDEX_RUNNING', async () => {
    // Hold the lock a running reindex holds (its reading transaction takes it).
    const trx = await k.t.db.transaction();
    try {
      await trx.raw('SELECT pg_advisory_xact_lock(7354112021)');
      const res = await k.call('POST', '/cms-one/search/reindex', k.admin);
      expect(res.statusCode, res.body).to.equal(409);
      expect(res.json()).to.include({ code: 'REINDEX_RUNNING' });
    } finally {
      await trx.rollback();
    }
    expect((await k.call('POST', '/cms-one/search/reindex', k.admin)).statusCode).to.equal(200);
  });

  it('objects deleted in bulk (retention) are pruned from their class', async () => {
    const cls = await k.createClass([{ name: 'title', type: 'text' }]);
    const a = await k.createObject({ classId: cls.id, attributes: { title: 'Prunable axolotl one' } });
    const b = await k.createObject({ classId: cls.id, attributes: { title: 'Prunable axolotl two' } });
    // What the retention job does: delete rows and announce one bulk event naming only some ids.
    await k.t.db.transaction(async (trx) => {
      await trx('data_objects').where({ class_id: cls.id, id: a.id }).delete();
      await k.t.kernel.resolve('recordHooks').announce(trx, {
        recordType: 'object',
        recordId: cls.id,
        kind: 'bulk',
        actor: { type: 'system', id: null },
        data: { class: { id: cls.id, name: cls.name }, bulk: { kind: 'retention', count: 1, firstIds: [] } },
      });
    });
    expect(k.ids(await k.editorSearch({ q: 'axolotl' }))).to.deep.equal([b.id]);
  });

  it('a failing source fails the write: neither the record nor its document is stored', async () => {
    const res = await k.call('POST', '/test-pages', k.publisher, { title: 'source-failure okapi', published: true });
    expect(res.statusCode).to.equal(500);
    expect(await k.t.db('search_fixture_pages').where('title', 'source-failure okapi')).to.have.length(0);
    expect(await k.t.db('search_documents').where('title', 'source-failure okapi')).to.have.length(0);
  });

  it('public search is rate limited per address (429 with Retry-After)', async () => {
    let res: Awaited<ReturnType<typeof k.call>> | undefined;
    for (let i = 0; i < 45; i++) {
      res = await k.call('GET', `/public/search?q=limit${i}`, null, undefined, { 'x-forwarded-for': '203.0.113.9' });
      if (res.statusCode === 429) break;
    }
    expect(res!.statusCode).to.equal(429);
    expect(res!.headers['retry-after']).to.be.a('string');
  });
});
