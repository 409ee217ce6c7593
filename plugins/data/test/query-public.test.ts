import { expect } from 'chai';
interface PgConnection {
  query(sql: string, values: unknown[]): Promise<{ rows: Array<Record<string, string>> }>;
}
import { startDataKernel, type DataKernel } from './data-kernel.ts';

describe('data: queries and the public API', () => {
  let k: DataKernel;
  let cls: { id: string; name: string };
  const ids: Record<string, string> = {};
  before(async () => {
    k = await startDataKernel({ PUBLIC_DATA_RATE_LIMIT_PER_MINUTE: '1000' });
    cls = await k.createClass([
      { name: 'title', type: 'text' },
      { name: 'price', type: 'number' },
      { name: 'live', type: 'boolean' },
      { name: 'day', type: 'date' },
      { name: 'tags', type: 'array', of: 'text' },
      { name: 'body', type: 'markdown' },
    ]);
    const rows = [
      { key: 'apple', title: 'Apple pie', price: 5, live: true, day: '2024-01-01', tags: ['sweet'], published: true },
      { key: 'bread', title: 'Bread', price: 2, live: false, day: '2024-02-01', tags: ['salty'], published: true },
      {
        key: 'cake',
        title: 'Cheese cake',
        price: 8,
        live: true,
        day: '2024-03-01',
        tags: ['sweet', 'rich'],
        published: false,
      },
      { key: 'donut', title: 'Donut', price: 1, day: '2024-04-01', tags: [], published: true },
    ];
    for (const r of rows) {
      const { key, published, ...attributes } = r;
      ids[key] = (await k.createObject({ classId: cls.id, key, published, attributes })).id;
    }
  });
  after(() => k.t.close());

  const query = async (body: Record<string, unknown>, path = '/data-objects/query') => {
    const res = await k.call('POST', path, path.startsWith('/public') ? null : k.reader, {
      className: cls.name,
      ...body,
    });
    return res;
  };
  const keys = async (body: Record<string, unknown>, path?: string) => {
    const res = await query(body, path);
    expect(res.statusCode, res.body).to.equal(200);
    return res.json().objects.map((o: { key: string }) => o.key);
  };

  it('supports every operator on attributes and built-ins', async () => {
    const f = (field: string, op: string, value?: unknown) => ({
      filters: [{ field, op, value }],
      orderBy: [{ field: 'key' }],
    });
    expect(await keys(f('price', 'eq', 5))).to.deep.equal(['apple']);
    expect(await keys(f('title', 'ne', 'Bread'))).to.deep.equal(['apple', 'cake', 'donut']);
    expect(await keys(f('price', 'lt', 2))).to.deep.equal(['donut']);
    expect(await keys(f('price', 'lte', 2))).to.deep.equal(['bread', 'donut']);
    expect(await keys(f('price', 'gt', 5))).to.deep.equal(['cake']);
    expect(await keys(f('day', 'gte', '2024-03-01'))).to.deep.equal(['cake', 'donut']);
    expect(await keys(f('key', 'in', ['apple', 'cake', 'zzz']))).to.deep.equal(['apple', 'cake']);
    expect(await keys(f('title', 'contains', 'cake'))).to.deep.equal(['cake']);
    expect(await keys(f('tags', 'contains', 'sweet'))).to.deep.equal(['apple', 'cake']);
    expect(await keys(f('title', 'startsWith', 'B'))).to.deep.equal(['bread']);
    expect(await keys(f('live', 'exists', false))).to.deep.equal(['donut']);
    expect(await keys(f('live', 'eq', true))).to.deep.equal(['apple', 'cake']);
    expect(await keys(f('published', 'eq', false))).to.deep.equal(['cake']);
    expect(await keys(f('createdAt', 'gte', '2000-01-01T00:00:00Z'))).to.have.length(4);
    expect(await keys(f('title', 'contains', '%'))).to.deep.equal([]);
  });

  it('orders and pages with a total', async () => {
    expect(await keys({ orderBy: [{ field: 'price', direction: 'desc' }] })).to.deep.equal([
      'cake',
      'apple',
      'bread',
      'donut',
    ]);
    const page = await query({ orderBy: [{ field: 'title' }], limit: 2, offset: 1 });
    expect(page.json().total).to.equal(4);
    expect(page.json().objects.map((o: { key: string }) => o.key)).to.deep.equal(['bread', 'cake']);
  });

  it('answers 400 naming the filter for unknown fields, operators and bad values', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ filters: [{ field: 'nope', op: 'eq', value: 1 }] }, 'filters.0.field'],
      [
        {
          filters: [
            { field: 'price', op: 'eq', value: 1 },
            { field: 'price', op: 'like', value: 1 },
          ],
        },
        'filters.1.op',
      ],
      [{ filters: [{ field: 'price', op: 'eq', value: 'five' }] }, 'filters.0.value'],
      [{ filters: [{ field: 'price', op: 'contains', value: 'x' }] }, 'filters.0.op'],
      [{ filters: [{ field: 'body', op: 'eq', value: 'x' }] }, 'filters.0.field'],
      [{ orderBy: [{ field: 'tags' }] }, 'orderBy.0.field'],
      [{ limit: 101 }, 'limit'],
      [{ className: 'missing' }, 'className'],
    ];
    for (const [body, field] of cases) {
      const res = await query(body);
      expect(res.statusCode, JSON.stringify(body)).to.equal(400);
      expect(res.json().field, JSON.stringify(body)).to.equal(field);
    }
  });

  it('public routes serve published objects only; a draft answers the same 404 as an unknown id', async () => {
    expect(await keys({ orderBy: [{ field: 'key' }] }, '/public/data-objects/query')).to.deep.equal([
      'apple',
      'bread',
      'donut',
    ]);
    expect(
      (await query({ filters: [{ field: 'published', op: 'eq', value: false }] }, '/public/data-objects/query'))
        .statusCode,
    ).to.equal(400);
    const list = await k.call('GET', `/public/data-objects?className=${cls.name}&price=5`, null);
    expect(list.statusCode).to.equal(200);
    expect(list.json().objects.map((o: { key: string }) => o.key)).to.deep.equal(['apple']);
    const all = await k.call('GET', `/public/data-objects?className=${cls.name}&limit=2`, null);
    expect(all.json()).to.include({ hasMore: true }).and.not.to.have.property('total');
    expect(all.json().objects).to.have.length(2);
    const counted = await k.call(
      'GET',
      `/public/data-objects?className=${cls.name}&limit=2&offset=2&includeTotal=true`,
      null,
    );
    expect(counted.json()).to.include({ total: 3, hasMore: false });
    expect(counted.json().objects).to.have.length(1);
    const queried = await query({ limit: 1, includeTotal: true }, '/public/data-objects/query');
    expect(queried.json()).to.include({ total: 3, hasMore: true });
    expect((await query({ limit: 1 }, '/public/data-objects/query')).json()).not.to.have.property('total');
    const batch = await k.call('GET', `/public/data-objects/batch?ids=${ids.cake},${ids.apple}`, null);
    expect(batch.json().objects.map((o: { key: string }) => o.key)).to.deep.equal(['apple']);
    expect((await k.call('GET', `/public/data-objects/${ids.apple}`, null)).json().key).to.equal('apple');
    const draft = await k.call('GET', `/public/data-objects/${ids.cake}`, null);
    const unknown = await k.call('GET', '/public/data-objects/00000000-0000-4000-8000-000000000000', null);
    expect(draft.statusCode).to.equal(404);
    const strip = (b: Record<string, unknown>) => ({ ...b, requestId: undefined });
    expect(strip(draft.json())).to.deep.equal(strip(unknown.json()));
  });

  /** EXPLAIN of the exact statement the route sent ($n placeholders), through a pool connection. */
  const explain = async (sql: string, bindings: unknown[]): Promise<string> => {
    const client = k.t.db.client as {
      acquireConnection(): Promise<PgConnection>;
      releaseConnection(c: PgConnection): Promise<void>;
    };
    const conn = await client.acquireConnection();
    try {
      const res = await conn.query(`explain ${sql}`, bindings);
      return res.rows.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      await client.releaseConnection(conn);
    }
  };

  it('uses the per-field indexes for a filter plus sort on a 100k-row class', async function () {
    this.timeout(30_000);
    // Rows first, fields (and so their indexes) after: building an index is faster than 100k index inserts.
    const big = await k.createClass([], 'big');
    await k.t.db.raw(
      `insert into data_objects (class_id, translation_group_id, locale, key, path, published, attributes)
       select ?, gen_random_uuid(), 'en', 'k' || n, '/k' || n, n % 2 = 0, jsonb_build_object('title', 'title ' || n, 'price', n % 1000)
       from generate_series(1, 100000) n`,
      [big.id],
    );
    const fields = [
      { name: 'title', type: 'text' },
      { name: 'price', type: 'number' },
    ];
    expect((await k.call('PATCH', `/data-classes/${big.id}`, k.editor, { fields })).statusCode).to.equal(200);
    // The class has objects, so its new indexes are built concurrently after the PATCH answered.
    await k.t.kernel.resolve('jobs').settled('data.index-builds');
    await k.t.db.raw('analyze data_objects');
    const seen: Array<{ sql: string; bindings: unknown[] }> = [];
    const listener = (q: { sql: string; bindings: unknown[] }) => seen.push(q);
    k.t.db.on('query', listener);
    for (const path of ['/data-objects/query', '/public/data-objects/query']) {
      seen.length = 0;
      const res = await k.call('POST', path, path.startsWith('/public') ? null : k.reader, {
        className: big.name,
        filters: [{ field: 'price', op: 'gte', value: 990 }],
        orderBy: [{ field: 'price', direction: 'desc' }],
        limit: 10,
      });
      expect(res.statusCode).to.equal(200);
      expect(res.json().objects[0].attributes.price).to.equal(path.startsWith('/public') ? 998 : 999);
      // The admin page aggregates in SQL; the public page selects its sort values as k0, k1...
      const page = seen.find((q) => q.sql.includes('json_agg') || q.sql.includes(' as k0'))!;
      const plan = await explain(page.sql, page.bindings);
      const prefix = path.startsWith('/public') ? 'data_objects_p_' : 'data_objects_f_';
      expect(plan, plan).to.contain(`${prefix}${big.id.replace(/-/g, '')}`);
      expect(plan, plan).not.to.match(/Seq Scan/);
    }
    k.t.db.removeListener('query', listener);
  });

  it('limits public calls per address with 429 and Retry-After', async () => {
    const k2 = await startDataKernel({ PUBLIC_DATA_RATE_LIMIT_PER_MINUTE: '2' });
    try {
      const unknown = '/public/data-objects/00000000-0000-4000-8000-000000000000';
      const hit = (remoteAddress: string) => k2.t.inject({ method: 'GET', url: unknown, remoteAddress });
      // The limiter counts per wall-clock minute (not the kernel clock), so the calls must fall in one
      // minute: when a minute boundary passes between them, start over from another address.
      const minute = () => Math.floor(Date.now() / 60_000);
      let address = '';
      for (let attempt = 1; ; attempt++) {
        address = `192.0.2.${attempt}`;
        const started = minute();
        const answers = [await hit(address), await hit(address), await hit(address)];
        if (minute() !== started && attempt < 3) continue;
        expect(answers.map((a) => a.statusCode)).to.deep.equal([404, 404, 429]);
        expect(Number(answers[2].headers['retry-after'])).to.be.within(1, 60);
        // Another address has its own count.
        expect((await hit(`198.51.100.${attempt}`)).statusCode).to.equal(404);
        break;
      }
      // Admin routes are not counted, even from the limited address.
      const admin = await k2.t.inject({
        method: 'GET',
        url: '/data-classes',
        headers: { cookie: k2.reader.cookie },
        remoteAddress: address,
      });
      expect(admin.statusCode).to.equal(200);
    } finally {
      await k2.t.close();
    }
  });
});
