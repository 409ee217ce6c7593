import { expect } from 'chai';
import { startSearchKernel, type SearchKernel } from './search-kernel.ts';

describe('search: documents kept current in the write transaction', () => {
  let k: SearchKernel;
  before(async () => {
    k = await startSearchKernel();
  });
  after(() => k.t.close());

  it('indexes a page of another plugin (registry) and a rolled-back write leaves no document', async () => {
    const page = await k.createPage({
      title: 'Lighthouse keepers',
      body: 'The keeper climbs the spiral staircase',
      published: true,
      slug: 'lighthouse',
    });
    const found = await k.publicSearch({ q: 'spiral staircase' });
    expect(k.ids(found)).to.deep.equal([page.id]);
    expect(found.results[0]).to.include({
      sourceType: 'page',
      url: '/en/lighthouse',
      websiteId: 'site-1',
      locale: 'en',
      public: true,
    });

    const refused = await k.call('POST', '/test-pages', k.publisher, {
      title: 'Phantom zeppelin',
      body: 'zeppelin',
      published: true,
      fail: true,
    });
    expect(refused.statusCode).to.equal(400);
    expect(k.ids(await k.editorSearch({ q: 'zeppelin' }))).to.deep.equal([]);
    const rows = await k.t.db('search_documents').where('title', 'like', '%zeppelin%');
    expect(rows).to.have.length(0);

    const patchRefused = await k.call('PATCH', `/test-pages/${page.id}`, k.publisher, {
      title: 'Changed title',
      fail: true,
    });
    expect(patchRefused.statusCode).to.equal(400);
    expect((await k.publicSearch({ q: 'lighthouse' })).results[0]).to.include({ title: 'Lighthouse keepers' });
  });

  it('a non-indexable or unpublished page is for editors only; deleting it removes its document', async () => {
    const hidden = await k.createPage({ title: 'Hidden orchard', body: 'apricots', published: true, indexable: false });
    const draft = await k.createPage({ title: 'Draft orchard', body: 'apricots', published: false });
    expect(k.ids(await k.publicSearch({ q: 'orchard' }))).to.deep.equal([]);
    expect(k.ids(await k.editorSearch({ q: 'orchard' }))).to.have.members([hidden.id, draft.id]);

    await k.call('PATCH', `/test-pages/${hidden.id}`, k.publisher, { indexable: true });
    expect(k.ids(await k.publicSearch({ q: 'orchard' }))).to.deep.equal([hidden.id]);

    expect((await k.call('DELETE', `/test-pages/${hidden.id}`, k.publisher)).statusCode).to.equal(200);
    expect(k.ids(await k.editorSearch({ q: 'orchard' }))).to.deep.equal([draft.id]);
  });

  it('objects: published ones are public, drafts for editors; unpublishing removes from public results', async () => {
    const cls = await k.createClass(
      [
        { name: 'name', type: 'text' },
        { name: 'summary', type: 'richtext' },
        { name: 'notes', type: 'markdown' },
        { name: 'price', type: 'number' },
      ],
      'Bicycles',
    );
    const pub = await k.createObject({
      classId: cls.id,
      key: 'tandem',
      published: true,
      attributes: {
        name: 'Tandem touring bicycle',
        summary: '<p>Two <b>riders</b> &amp; luggage</p>',
        notes: '# Frame\nsteel',
        price: 12,
      },
    });
    const draft = await k.createObject({
      classId: cls.id,
      key: 'racer',
      attributes: { name: 'Carbon racing bicycle', summary: '<p>light</p>' },
    });

    const open = await k.publicSearch({ q: 'bicycle' });
    expect(k.ids(open)).to.deep.equal([pub.id]);
    expect(open.results[0]).to.deep.include({
      sourceType: 'object',
      title: 'Tandem touring bicycle',
      locale: 'en',
      websiteId: null,
      url: null,
    });
    expect(open.results[0].meta).to.deep.equal({ class: cls.name, key: 'tandem' });
    // Richtext is indexed as text (no tag names), markdown as written.
    expect(k.ids(await k.publicSearch({ q: 'riders luggage' }))).to.deep.equal([pub.id]);
    expect(k.ids(await k.publicSearch({ q: 'steel' }))).to.deep.equal([pub.id]);
    expect(k.ids(await k.publicSearch({ q: 'p' }))).to.not.include(pub.id);
    expect(k.ids(await k.editorSearch({ q: 'bicycle', type: 'object' }))).to.have.members([pub.id, draft.id]);
    expect(k.ids(await k.editorSearch({ q: 'bicycle', public: false, type: 'object' }))).to.deep.equal([draft.id]);
    // The class is a document of its own (type class).
    expect(k.ids(await k.editorSearch({ q: 'bicycles', type: 'class' }))).to.deep.equal([cls.id]);

    const off = await k.call('POST', '/data-objects/batch', k.publisher, { ids: [pub.id], action: 'unpublish' });
    expect(off.statusCode, off.body).to.equal(200);
    expect(k.ids(await k.publicSearch({ q: 'bicycle' }))).to.deep.equal([]);
    expect(k.ids(await k.editorSearch({ q: 'bicycle', type: 'object' }))).to.have.members([pub.id, draft.id]);

    const edited = await k.call('PATCH', `/data-objects/${draft.id}`, k.publisher, {
      attributes: { name: 'Carbon gravel bicycle' },
    });
    expect(edited.statusCode, edited.body).to.equal(200);
    expect(k.ids(await k.editorSearch({ q: 'gravel' }))).to.deep.equal([draft.id]);

    expect((await k.call('DELETE', `/data-objects/${draft.id}`, k.publisher)).statusCode).to.equal(204);
    expect(k.ids(await k.editorSearch({ q: 'bicycle', type: 'object' }))).to.deep.equal([pub.id]);
  });

  it('bulk writes index every row they wrote; emptying a class drops its documents', async () => {
    const cls = await k.createClass([{ name: 'title', type: 'text' }]);
    const objects = Array.from({ length: 30 }, (_, i) => ({
      key: `k${i}`,
      attributes: { title: `Quokka number ${i}` },
    }));
    const bulk = await k.call('POST', '/data-objects/bulk', k.publisher, { classId: cls.id, objects });
    expect(bulk.json().created, bulk.body).to.have.length(30);
    expect((await k.editorSearch({ q: 'quokka', limit: 50, type: 'object' })).results).to.have.length(30);

    const update = await k.call('POST', '/data-objects/bulk', k.publisher, {
      classId: cls.id,
      onConflict: 'update',
      objects: [{ key: 'k29', attributes: { title: 'Wombat now' } }],
    });
    expect(update.json().updated, update.body).to.have.length(1);
    expect((await k.editorSearch({ q: 'quokka', limit: 50 })).results).to.have.length(29);
    expect((await k.editorSearch({ q: 'wombat' })).results).to.have.length(1);

    // More than the 10 ids a bulk event names, updates and creates mixed.
    const mixed = Array.from({ length: 15 }, (_, i) => ({ key: `k${i + 20}`, attributes: { title: `Numbat ${i}` } }));
    const upsert = await k.call('POST', '/data-objects/bulk', k.publisher, {
      classId: cls.id,
      onConflict: 'update',
      objects: mixed,
    });
    expect(upsert.json().updated, upsert.body).to.have.length(10);
    expect(upsert.json().created, upsert.body).to.have.length(5);
    expect((await k.editorSearch({ q: 'numbat', limit: 50 })).results).to.have.length(15);
    expect((await k.editorSearch({ q: 'quokka', limit: 50 })).results).to.have.length(20);

    const emptied = await k.call('POST', `/data-classes/${cls.id}/empty`, k.admin, { confirm: cls.name });
    expect(emptied.statusCode, emptied.body).to.equal(200);
    expect((await k.editorSearch({ q: 'quokka or numbat', type: 'object' })).results).to.have.length(0);
  });

  it('classes are indexed for editors (never public) and follow create, update and delete', async () => {
    const cls = await k.createClass([{ name: 'habitat', type: 'text', label: 'Natural habitat' }], 'Marsupials');
    const found = await k.editorSearch({ q: 'marsupials', type: 'class' });
    expect(found.results.map((r) => r.sourceId)).to.deep.equal([cls.id]);
    expect(k.ids(await k.editorSearch({ q: 'habitat', type: 'class' }))).to.deep.equal([cls.id]);
    expect(k.ids(await k.publicSearch({ q: 'marsupials' }))).to.deep.equal([]);

    await k.call('PATCH', `/data-classes/${cls.id}`, k.admin, { label: 'Pouched mammals' });
    expect(k.ids(await k.editorSearch({ q: 'pouched', type: 'class' }))).to.deep.equal([cls.id]);
    expect((await k.call('DELETE', `/data-classes/${cls.id}`, k.admin)).statusCode).to.equal(204);
    expect(k.ids(await k.editorSearch({ q: 'pouched', type: 'class' }))).to.deep.equal([]);
  });
});
