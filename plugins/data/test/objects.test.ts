import { expect } from 'chai';
import { startDataKernel, type DataKernel } from './data-kernel.ts';

describe('data: objects', () => {
  let k: DataKernel;
  let cls: { id: string; name: string };
  let target: { id: string; name: string };
  before(async () => {
    k = await startDataKernel();
    await k.call('POST', '/data-components', k.admin, {
      name: 'seo',
      fields: [{ name: 'metaTitle', type: 'text', required: true }],
    });
    target = await k.createClass([{ name: 'title', type: 'text' }], 'author');
    cls = await k.createClass([
      { name: 'title', type: 'text', required: true, localized: true, validation: { maxLength: 20 } },
      { name: 'body', type: 'richtext', localized: true },
      { name: 'notes', type: 'markdown' },
      { name: 'meta', type: 'json' },
      { name: 'tags', type: 'array', of: 'text' },
      { name: 'slug', type: 'slug' },
      { name: 'author', type: 'relation', relation: { class: target.name } },
      { name: 'price', type: 'number', validation: { min: 0, max: 100 } },
      { name: 'live', type: 'boolean' },
      { name: 'day', type: 'date' },
      { name: 'at', type: 'datetime' },
      { name: 'color', type: 'select', options: ['red', 'blue'] },
      { name: 'image', type: 'asset' },
      { name: 'seo', type: 'component', component: 'seo' },
    ]);
  });
  after(() => k.t.close());

  it('creates an object with every field type and reads it back', async () => {
    const author = await k.createObject({ classId: target.id, attributes: { title: 'Ann' } });
    const res = await k.call('POST', '/data-objects', k.publisher, {
      className: cls.name,
      key: 'first',
      attributes: {
        title: 'Hello',
        body: '<p>x</p>',
        notes: '# n',
        meta: { a: [1] },
        tags: ['a', 'b'],
        slug: 'hello-world',
        author: author.id,
        price: 9.5,
        live: true,
        day: '2024-02-29',
        at: '2024-03-01T10:00:00+02:00',
        color: 'red',
        image: 'asset-1',
        seo: { metaTitle: 'M' },
      },
    });
    expect(res.statusCode).to.equal(201);
    const obj = res.json();
    expect(obj).to.include({
      key: 'first',
      locale: 'en',
      published: false,
      path: '/first',
      parentId: null,
      workflowState: null,
    });
    expect(obj.class).to.deep.equal({ id: cls.id, name: cls.name });
    expect(obj.attributes.at).to.equal('2024-03-01T08:00:00.000Z');
    const got = await k.call('GET', `/data-objects/${obj.id}`, k.reader);
    expect(got.json().attributes).to.deep.equal(obj.attributes);
  });

  it('answers 400 naming the attribute for each type, required and unknown attributes', async () => {
    const author = await k.createObject({ classId: cls.id, attributes: { title: 'not an author' } });
    const bad: Array<[Record<string, unknown>, string]> = [
      [{}, 'attributes.title'],
      [{ title: 'x'.repeat(21) }, 'attributes.title'],
      [{ title: 5 }, 'attributes.title'],
      [{ title: 't', body: 3 }, 'attributes.body'],
      [{ title: 't', notes: false }, 'attributes.notes'],
      [{ title: 't', tags: 'a' }, 'attributes.tags'],
      [{ title: 't', tags: ['a', 2] }, 'attributes.tags.1'],
      [{ title: 't', slug: 'Not A Slug' }, 'attributes.slug'],
      [{ title: 't', author: 'nope' }, 'attributes.author'],
      [{ title: 't', author: author.id }, 'attributes.author'],
      [{ title: 't', price: '5' }, 'attributes.price'],
      [{ title: 't', price: 101 }, 'attributes.price'],
      [{ title: 't', live: 'yes' }, 'attributes.live'],
      [{ title: 't', day: '2023-02-29' }, 'attributes.day'],
      [{ title: 't', at: 'yesterday' }, 'attributes.at'],
      [{ title: 't', color: 'green' }, 'attributes.color'],
      [{ title: 't', image: 7 }, 'attributes.image'],
      [{ title: 't', seo: {} }, 'attributes.seo.metaTitle'],
      [{ title: 't', seo: { metaTitle: 'x', other: 1 } }, 'attributes.seo.other'],
      [{ title: 't', unknown: 1 }, 'attributes.unknown'],
    ];
    for (const [attributes, field] of bad) {
      const res = await k.call('POST', '/data-objects', k.editor, { classId: cls.id, attributes });
      expect(res.statusCode, JSON.stringify(attributes)).to.equal(400);
      expect(res.json().field, JSON.stringify(attributes)).to.equal(field);
    }
    expect(
      (await k.call('POST', '/data-objects', k.editor, { className: 'missing', attributes: {} })).json().field,
    ).to.equal('className');
  });

  it('answers 404 for unknown ids, 400 for malformed ones', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await k.call('GET', `/data-objects/${unknown}`, k.reader)).statusCode).to.equal(404);
    expect((await k.call('PATCH', `/data-objects/${unknown}`, k.editor, { attributes: {} })).statusCode).to.equal(404);
    expect((await k.call('DELETE', `/data-objects/${unknown}`, k.editor)).statusCode).to.equal(404);
    expect((await k.call('GET', '/data-objects/not-a-uuid', k.reader)).statusCode).to.equal(400);
  });

  it('lists objects of a class with paging and total; readers cannot write', async () => {
    const c = await k.createClass([{ name: 'title', type: 'text' }]);
    for (let i = 0; i < 5; i++) await k.createObject({ classId: c.id, attributes: { title: `t${i}` } });
    const page = await k.call('GET', `/data-objects?classId=${c.id}&limit=2&offset=4`, k.reader);
    expect(page.statusCode).to.equal(200);
    expect(page.json()).to.include({ total: 5, hasMore: false });
    expect(page.json().objects).to.have.length(1);
    expect(page.json().objects[0].class.name).to.equal(c.name);
    const beyond = await k.call('GET', `/data-objects?classId=${c.id}&offset=10`, k.reader);
    expect(beyond.json()).to.deep.equal({ objects: [], total: 5, hasMore: false });
    expect((await k.call('POST', '/data-objects', k.reader, { classId: c.id, attributes: {} })).statusCode).to.equal(
      403,
    );
  });

  it('keeps tree paths: parent of the same class, paths follow key and parent changes', async () => {
    const c = await k.createClass([{ name: 'title', type: 'text' }]);
    const other = await k.createClass([{ name: 'title', type: 'text' }]);
    const root = await k.createObject({ classId: c.id, key: 'docs' });
    const child = await k.createObject({ classId: c.id, key: 'intro', parentId: root.id });
    const leaf = await k.createObject({ classId: c.id, parentId: child.id });
    expect(child.path).to.equal('/docs/intro');
    expect(leaf.path).to.equal(`/docs/intro/${leaf.id}`);
    const foreign = await k.createObject({ classId: other.id });
    const wrong = await k.call('POST', '/data-objects', k.editor, { classId: c.id, parentId: foreign.id });
    expect(wrong.statusCode).to.equal(400);
    expect(wrong.json().field).to.equal('parentId');
    const cycle = await k.call('PATCH', `/data-objects/${root.id}`, k.editor, { parentId: leaf.id });
    expect(cycle.statusCode).to.equal(400);
    k.clearEvents();
    const renamed = await k.call('PATCH', `/data-objects/${root.id}`, k.editor, { key: 'guide' });
    expect(renamed.json().path).to.equal('/guide');
    expect((await k.call('GET', `/data-objects/${leaf.id}`, k.reader)).json().path).to.equal(`/guide/intro/${leaf.id}`);
    // The renamed object first, then its descendants (in no promised order).
    const changes = k.events.map((e) => [e.recordId, e.kind, e.changedFields]);
    expect(changes[0]).to.deep.equal([root.id, 'updated', ['key', 'path']]);
    expect(changes.slice(1)).to.have.deep.members([
      [child.id, 'updated', ['path']],
      [leaf.id, 'updated', ['path']],
    ]);
    const refused = await k.call('DELETE', `/data-objects/${root.id}`, k.editor);
    expect(refused.statusCode).to.equal(409);
    expect(refused.json().code).to.equal('OBJECT_HAS_CHILDREN');
    const dupKey = await k.call('POST', '/data-objects', k.editor, { classId: c.id, key: 'guide' });
    expect(dupKey.statusCode).to.equal(409);
    expect(dupKey.json()).to.include({ code: 'KEY_IN_USE', field: 'key' });
  });
});
