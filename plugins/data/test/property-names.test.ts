import { expect } from 'chai';
import { startDataKernel, type DataKernel } from './data-kernel.ts';

// Names every plain object answers to through its prototype: user text looked up in one finds them.
const INHERITED = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty'];

describe('data: names that plain objects inherit (__proto__, constructor, ...)', () => {
  let k: DataKernel;
  let cls: { id: string; name: string };
  before(async () => {
    k = await startDataKernel({ PUBLIC_DATA_RATE_LIMIT_PER_MINUTE: '10000' });
    cls = await k.createClass([{ name: 'title', type: 'text' }]);
    await k.createObject({ classId: cls.id, published: true, attributes: { title: 'x' } });
  });
  after(() => k.t.close());

  const expectUnknown = (
    res: { statusCode: number; body: string; json(): { field?: string; message?: string } },
    field: string,
    name: string,
  ) => {
    expect(res.statusCode, `${name}: ${res.body}`).to.equal(400);
    expect(res.json().field, name).to.equal(field);
    expect(res.json().message, name).to.match(/unknown field/i);
  };

  it('answers 400 naming the filter for each as a public query parameter', async () => {
    for (const name of INHERITED) {
      expectUnknown(
        await k.call('GET', `/public/data-objects?className=${cls.name}&${name}=1`, null),
        'filters.0.field',
        name,
      );
    }
  });

  it('answers 400 naming the filter or sort field in public and admin queries', async () => {
    for (const name of INHERITED) {
      const filter = {
        className: cls.name,
        filters: [
          { field: 'title', op: 'eq', value: 'x' },
          { field: name, op: 'eq', value: 'x' },
        ],
      };
      expectUnknown(await k.call('POST', '/public/data-objects/query', null, filter), 'filters.1.field', name);
      expectUnknown(await k.call('POST', '/data-objects/query', k.reader, filter), 'filters.1.field', name);
      const sort = { className: cls.name, orderBy: [{ field: name }] };
      expectUnknown(await k.call('POST', '/public/data-objects/query', null, sort), 'orderBy.0.field', name);
      expectUnknown(await k.call('POST', '/data-objects/query', k.reader, sort), 'orderBy.0.field', name);
    }
  });

  it('refuses them as attributes of a class that does not define them', async () => {
    for (const name of INHERITED.slice(1)) {
      const res = await k.call('POST', '/data-objects', k.editor, { classId: cls.id, attributes: { [name]: 'x' } });
      expect(res.statusCode, name).to.equal(400);
      expect(res.json(), name).to.include({
        field: `attributes.${name}`,
        message: `attributes.${name}: is not a field of this class`,
      });
    }
    const proto = await k.t.inject({
      method: 'POST',
      url: '/data-objects',
      headers: { cookie: k.editor.cookie, 'content-type': 'application/json' },
      payload: `{"classId":"${cls.id}","attributes":{"__proto__":{"title":"x"}}}`,
    });
    // The kernel drops a `__proto__` key while parsing the body: nothing of it is stored.
    expect(proto.statusCode, proto.body).to.equal(201);
    expect(proto.json().attributes).to.deep.equal({});
  });

  it('treats them as ordinary field names of a class: optional, written, queried, sorted, unique, shared', async () => {
    const own = await k.createClass([
      { name: 'title', type: 'text' },
      { name: 'constructor', type: 'text' },
      { name: 'toString', type: 'number', unique: true },
      { name: 'valueOf', type: 'boolean', localized: true },
      { name: 'hasOwnProperty', type: 'date' },
    ]);
    // Absent values stay absent: nothing inherited is mistaken for a value.
    const bare = await k.call('POST', '/data-objects', k.publisher, {
      classId: own.id,
      key: 'bare',
      published: true,
      attributes: { title: 'only' },
    });
    expect(bare.statusCode, bare.body).to.equal(201);
    expect(bare.json().attributes).to.deep.equal({ title: 'only' });
    const full = await k.call('POST', '/data-objects', k.publisher, {
      classId: own.id,
      key: 'full',
      published: true,
      attributes: { constructor: 'c', toString: 7, valueOf: true, hasOwnProperty: '2024-05-01' },
    });
    expect(full.statusCode, full.body).to.equal(201);
    const dup = await k.call('POST', '/data-objects', k.editor, { classId: own.id, attributes: { toString: 7 } });
    expect(dup.statusCode).to.equal(409);
    expect(dup.json().field).to.equal('toString');
    const de = await k.call('POST', '/data-objects', k.editor, {
      classId: own.id,
      locale: 'de',
      translationGroupId: full.json().translationGroupId,
      attributes: { valueOf: false },
    });
    expect(de.statusCode, de.body).to.equal(201);
    expect(de.json().attributes).to.deep.equal({
      constructor: 'c',
      toString: 7,
      valueOf: false,
      hasOwnProperty: '2024-05-01',
    });
    const patched = await k.call('PATCH', `/data-objects/${bare.json().id}`, k.editor, {
      attributes: { constructor: 'd' },
    });
    expect(patched.statusCode, patched.body).to.equal(200);
    expect(patched.json().attributes).to.deep.equal({ title: 'only', constructor: 'd' });

    const keys = async (body: Record<string, unknown>) => {
      const res = await k.call('POST', '/public/data-objects/query', null, {
        className: own.name,
        locale: 'en',
        ...body,
      });
      expect(res.statusCode, res.body).to.equal(200);
      return res.json().objects.map((o: { key: string }) => o.key);
    };
    expect(await keys({ filters: [{ field: 'constructor', op: 'eq', value: 'c' }] })).to.deep.equal(['full']);
    expect(await keys({ filters: [{ field: 'toString', op: 'gte', value: 7 }] })).to.deep.equal(['full']);
    expect(await keys({ filters: [{ field: 'hasOwnProperty', op: 'exists', value: true }] })).to.deep.equal(['full']);
    expect(await keys({ orderBy: [{ field: 'constructor', direction: 'desc' }] })).to.deep.equal(['bare', 'full']); // d, c
    const simple = await k.call('GET', `/public/data-objects?className=${own.name}&locale=en&valueOf=true`, null);
    expect(simple.json().objects.map((o: { key: string }) => o.key)).to.deep.equal(['full']);

    const bulk = await k.call('POST', '/data-objects/bulk', k.editor, {
      classId: own.id,
      objects: [
        { key: 'b1', attributes: { title: 'b' } },
        { key: 'b2', attributes: { toString: 7 } },
      ],
    });
    expect(bulk.statusCode, bulk.body).to.equal(200);
    expect(bulk.json().created).to.have.length(1);
    expect(bulk.json().rejected).to.deep.equal([
      { index: 1, field: 'attributes.toString', reason: 'toString is already in use' },
    ]);
  });
});
