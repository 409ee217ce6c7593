import { expect } from 'chai';
import { startDataKernel, type DataKernel } from './data-kernel.ts';

/** Bounded memory per request: a stored object's size and a page's bytes are capped. */
describe('data: object size and page byte caps', () => {
  let k: DataKernel;
  let cls: { id: string; name: string };
  const text = (bytes: number, c = 'x') => c.repeat(bytes);
  before(async () => {
    k = await startDataKernel({ DATA_MAX_OBJECT_BYTES: '40000', DATA_MAX_PAGE_BYTES: '65536' });
    cls = await k.createClass(
      [
        { name: 'body', type: 'markdown' },
        { name: 'n', type: 'number' },
      ],
      'Caps',
    );
  });
  after(() => k.t.close());

  it('refuses a create or an update over DATA_MAX_OBJECT_BYTES with 413 OBJECT_TOO_LARGE, storing nothing', async () => {
    const big = await k.call('POST', '/data-objects', k.publisher, {
      classId: cls.id,
      attributes: { body: text(40_001) },
    });
    expect(big.statusCode).to.equal(413);
    expect(big.json()).to.include({ code: 'OBJECT_TOO_LARGE', field: 'attributes' });
    expect(await k.t.db('data_objects').where({ class_id: cls.id }).count({ n: '*' }).first()).to.deep.equal({ n: 0 });
    const ok = await k.createObject({ classId: cls.id, attributes: { body: 'small', n: 1 } });
    const grown = await k.call('PATCH', `/data-objects/${ok.id}`, k.publisher, { attributes: { body: text(40_001) } });
    expect(grown.statusCode).to.equal(413);
    expect((await k.call('GET', `/data-objects/${ok.id}`, k.admin)).json().attributes.body).to.equal('small');
    await k.call('DELETE', `/data-objects/${ok.id}`, k.admin);
  });

  it('rejects an oversized row of a bulk call and stores the others', async () => {
    const res = await k.call('POST', '/data-objects/bulk', k.publisher, {
      classId: cls.id,
      objects: [{ attributes: { body: 'a' } }, { attributes: { body: text(50_000) } }, { attributes: { body: 'c' } }],
    });
    expect(res.statusCode).to.be.oneOf([200, 201, 207]);
    expect(res.json().rejected).to.have.length(1);
    expect(res.json().rejected[0]).to.include({ index: 1, field: 'attributes' });
    const ids = (await k.t.db('data_objects').where({ class_id: cls.id }).pluck('id')) as string[];
    expect(ids).to.have.length(2);
    await k.t.db('data_objects').whereIn('id', ids).delete();
  });

  it('stops a page at DATA_MAX_PAGE_BYTES (at least one object) and answers hasMore, on every list and query route', async () => {
    for (let n = 0; n < 5; n++)
      await k.createObject({ classId: cls.id, published: true, attributes: { body: text(30_000, String(n)), n } });
    const pages: Array<{
      route: string;
      fetch: (offset: number) => Promise<{ objects: Array<{ attributes: { n: number } }>; hasMore: boolean }>;
    }> = [
      {
        route: 'admin list',
        fetch: async (offset) =>
          (await k.call('GET', `/data-objects?classId=${cls.id}&limit=10&offset=${offset}`, k.admin)).json(),
      },
      {
        route: 'public query',
        fetch: async (offset) =>
          (
            await k.call('POST', '/public/data-objects/query', null, {
              className: cls.name,
              orderBy: [{ field: 'n' }],
              limit: 10,
              offset,
            })
          ).json(),
      },
      {
        route: 'public list',
        fetch: async (offset) =>
          (await k.call('GET', `/public/data-objects?className=${cls.name}&limit=10&offset=${offset}`, null)).json(),
      },
    ];
    for (const { route, fetch } of pages) {
      const first = await fetch(0);
      // 30 kB each: starts at 0, 30k and 60k fit under 64 KiB; the fourth would start past it.
      expect(first.objects, route).to.have.length(3);
      expect(first.hasMore, route).to.equal(true);
      const rest = await fetch(3);
      expect(rest.objects, route).to.have.length(2);
      expect(rest.hasMore, route).to.equal(false);
    }
    const sorted = await pages[1].fetch(0);
    expect(sorted.objects.map((o) => o.attributes.n)).to.deep.equal([0, 1, 2]);
  });
});
