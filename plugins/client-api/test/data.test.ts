import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { startClientKernel, type ClientKernel } from './helpers.ts';

describe('client-api: data on /client/v1', () => {
  let k: ClientKernel;
  let article: string;
  let other: string;
  let secret: string;
  let reader: string;
  let writer: string;
  const ids: Record<string, string> = {};

  before(async () => {
    k = await startClientKernel({ env: { CLIENT_DEFAULT_REQUESTS_PER_MINUTE: '100000' } });
    const fields = [
      { name: 'title', type: 'text' },
      { name: 'price', type: 'number' },
      { name: 'code', type: 'text' },
    ];
    article = await k.createClass(fields);
    other = await k.createClass(fields);
    secret = await k.createClass(fields);
    const rows = [
      { key: 'apple', title: 'Apple pie', price: 5, code: '42', published: true },
      { key: 'bread', title: 'Bread', price: 2, code: '7', published: true },
      { key: 'cake', title: 'Cheese cake', price: 8, code: '42', published: false },
      { key: 'donut', title: 'Donut', price: 1, code: 'x', published: true },
    ];
    for (const { key, published, ...attributes } of rows)
      ids[key] = await k.createObject(article, attributes, published, key);
    ids.otherClass = await k.createObject(other, { title: 'Elsewhere', price: 3 }, true);
    ids.secret = await k.createObject(secret, { title: 'Hidden', price: 3 }, true);
    reader = (await k.createClient({ scopes: [`data:read:${article}`, `data:read:${other}`] })).key;
    writer = (await k.createClient({ scopes: [`data:read:${article}`, `data:write:${article}`] })).key;
  });
  after(() => k?.close());

  const list = async (query: string, key = reader) => {
    const res = await k.asClient(key, 'GET', `/client/v1/data/${article}${query}`);
    expect(res.statusCode, res.body).to.equal(200);
    return (res.json().objects as Array<{ key: string }>).map((o) => o.key);
  };

  it("lists published objects only, with the class's own attributes", async () => {
    const res = await k.asClient(reader, 'GET', `/client/v1/data/${article}?orderBy=title`);
    expect(res.statusCode).to.equal(200);
    const objects = res.json().objects;
    expect(objects.map((o: { key: string }) => o.key)).to.deep.equal(['apple', 'bread', 'donut']);
    expect(objects[0]).to.deep.include({
      id: ids.apple,
      className: article,
      published: true,
      attributes: { title: 'Apple pie', price: 5, code: '42' },
    });
  });

  it('filters (field:op:value, up to 5), orders, pages and takes a locale', async () => {
    expect(await list('?filter=price:gt:1&orderBy=price&dir=desc')).to.deep.equal(['apple', 'bread']);
    expect(await list('?filter=title:startsWith:B')).to.deep.equal(['bread']);
    expect(await list('?filter=price:in:1,5&orderBy=price')).to.deep.equal(['donut', 'apple']);
    // A number-looking value for a text field is compared as the text sent.
    expect(await list('?filter=code:eq:42')).to.deep.equal(['apple']);
    expect(await list('?filter=title:contains:e%3Ap')).to.deep.equal([]);
    expect(await list('?filter=price:gte:1&filter=price:lte:5&orderBy=price&limit=2&offset=1')).to.deep.equal([
      'bread',
      'apple',
    ]);
    expect(await list('?locale=de')).to.deep.equal([]);
    const page = await k.asClient(reader, 'GET', `/client/v1/data/${article}?limit=1`);
    expect(page.json().hasMore).to.equal(true);
  });

  it('answers 400 naming the parameter for bad filters and limits', async () => {
    const bad = async (query: string, field: string) => {
      const res = await k.asClient(reader, 'GET', `/client/v1/data/${article}${query}`);
      expect(res.statusCode, query).to.equal(400);
      expect(res.json().field, query).to.equal(field);
    };
    await bad(`?${Array.from({ length: 6 }, () => 'filter=price:gt:1').join('&')}`, 'filter');
    await bad('?limit=101', 'limit');
    await bad('?limit=0', 'limit');
    await bad('?filter=price', 'filter.0');
    await bad('?filter=price:like:1', 'filter.0');
    await bad('?filter=nope:eq:1', 'filter.0');
    await bad('?filter=price:eq:abc', 'filter.0');
    await bad('?orderBy=nope', 'orderBy');
    await bad('?dir=up', 'dir');
  });

  it('reads one published object; draft, other class, unknown and malformed ids give 404 Not found', async () => {
    const ok = await k.asClient(reader, 'GET', `/client/v1/data/${article}/${ids.apple}`);
    expect(ok.statusCode).to.equal(200);
    expect(ok.json()).to.include({ id: ids.apple, key: 'apple' });
    for (const id of [ids.cake, ids.otherClass, randomUUID(), 'not-a-uuid', '1']) {
      const res = await k.asClient(reader, 'GET', `/client/v1/data/${article}/${id}`);
      expect(res.statusCode, id).to.equal(404);
      expect(res.body, id).to.equal('Not found');
    }
  });

  it('a repeated read is served again after the object changes: an edit shows, an unpublished object is gone', async () => {
    const id = await k.createObject(article, { title: 'Eclair', price: 4 }, true, 'eclair');
    const one = () => k.asClient(reader, 'GET', `/client/v1/data/${article}/${id}`);
    // Read twice so the second answer comes from the read caches.
    for (let i = 0; i < 2; i++) {
      expect((await one()).json().attributes.title).to.equal('Eclair');
      expect(await list('?orderBy=title')).to.include('eclair');
    }
    expect(
      (await k.asAdmin('PATCH', `/data-objects/${id}`, { attributes: { title: 'Eclair au chocolat' } })).statusCode,
    ).to.equal(200);
    expect((await one()).json().attributes.title).to.equal('Eclair au chocolat');
    expect((await k.asAdmin('PATCH', `/data-objects/${id}`, { published: false })).statusCode).to.equal(200);
    const gone = await one();
    expect(gone.statusCode).to.equal(404);
    expect(gone.body).to.equal('Not found');
    expect(await list('?orderBy=title')).to.not.include('eclair');
  });

  it('answers 404 Not found for a class out of scope or unknown', async () => {
    for (const url of [
      `/client/v1/data/${secret}`,
      `/client/v1/data/${secret}/${ids.secret}`,
      '/client/v1/data/NoSuchClass',
    ]) {
      const res = await k.asClient(reader, 'GET', url);
      expect(res.statusCode, url).to.equal(404);
      expect(res.body).to.equal('Not found');
    }
    const all = (await k.createClient({ scopes: ['data:read:*'] })).key;
    expect((await k.asClient(all, 'GET', `/client/v1/data/${secret}`)).statusCode).to.equal(200);
    const unknown = await k.asClient(all, 'GET', '/client/v1/data/NoSuchClass');
    expect(unknown.statusCode).to.equal(404);
    expect(unknown.body).to.equal('Not found');
  });

  describe('writes', () => {
    it('creates a draft with the client as actor; X-Cms-Flow: stop reaches the record-change hooks', async () => {
      k.changes.splice(0);
      const res = await k.asClient(writer, 'POST', `/client/v1/data/${article}`, {
        payload: { key: 'new-one', attributes: { title: 'From a client', price: 9 } },
        headers: { 'x-cms-flow': 'stop' },
      });
      expect(res.statusCode, res.body).to.equal(201);
      const created = res.json();
      expect(created).to.include({ published: false, className: article, key: 'new-one' });
      const writerId = (await k.asClient(writer, 'GET', '/client/v1/me')).json().id;
      expect(k.changes).to.have.length(1);
      expect(k.changes[0]).to.deep.include({
        recordId: created.id,
        kind: 'created',
        actor: { type: 'api-client', id: writerId },
        flags: { flow: 'stop' },
      });
      // A draft: not readable on the client surface.
      expect((await k.asClient(writer, 'GET', `/client/v1/data/${article}/${created.id}`)).statusCode).to.equal(404);
    });

    it('patches its own draft (without flags when the header is absent); refuses it once published, and other classes, with nothing changed', async () => {
      const own = await k.asClient(writer, 'POST', `/client/v1/data/${article}`, {
        payload: { attributes: { title: 'Cheese cake' } },
      });
      const ownId = own.json().id;
      k.changes.splice(0);
      const res = await k.asClient(writer, 'PATCH', `/client/v1/data/${article}/${ownId}`, {
        payload: { attributes: { title: 'Cheesecake' } },
      });
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.json().attributes.title).to.equal('Cheesecake');
      expect(k.changes[0]).to.deep.include({ kind: 'updated', flags: undefined });
      expect(k.changes[0].actor.type).to.equal('api-client');

      await k.asAdmin('PATCH', `/data-objects/${ownId}`, { published: true });
      const published = await k.asClient(writer, 'PATCH', `/client/v1/data/${article}/${ownId}`, {
        payload: { attributes: { title: 'Changed' } },
      });
      expect(published.statusCode).to.equal(409);
      expect(published.json().code).to.equal('OBJECT_PUBLISHED');
      const otherClass = await k.asClient(writer, 'PATCH', `/client/v1/data/${article}/${ids.otherClass}`, {
        payload: { attributes: { title: 'Changed' } },
      });
      expect(otherClass.statusCode).to.equal(404);
      expect(otherClass.body).to.equal('Not found');
      const rows = await k.t.db('data_objects').whereIn('id', [ownId, ids.otherClass]).select('attributes');
      for (const row of rows) expect(row.attributes.title).to.not.equal('Changed');
    });

    it('refuses writes without data:write for the class (404), a published flag (400) and bad attributes (400)', async () => {
      const none = await k.asClient(reader, 'POST', `/client/v1/data/${article}`, {
        payload: { attributes: { title: 'x' } },
      });
      expect(none.statusCode).to.equal(404);
      expect(none.body).to.equal('Not found');
      const flag = await k.asClient(writer, 'POST', `/client/v1/data/${article}`, {
        payload: { attributes: { title: 'x' }, published: true },
      });
      expect(flag.statusCode).to.equal(400);
      expect(flag.json().field).to.equal('published');
      const typed = await k.asClient(writer, 'POST', `/client/v1/data/${article}`, {
        payload: { attributes: { price: 'cheap' } },
      });
      expect(typed.statusCode).to.equal(400);
    });
  });
});
