import { expect } from 'chai';
import { startDataKernel, type DataKernel } from './data-kernel.ts';

interface PgConnection {
  query(sql: string, values?: unknown[]): Promise<{ rows: Array<Record<string, string>> }>;
}

describe('data: keyset pagination of the public list and query (after / nextCursor)', () => {
  let k: DataKernel;
  let cls: { id: string; name: string };
  before(async function () {
    this.timeout(30_000);
    k = await startDataKernel({ PUBLIC_DATA_RATE_LIMIT_PER_MINUTE: '100000' });
    cls = await k.createClass(
      [
        { name: 'title', type: 'text' },
        { name: 'rank', type: 'number' },
        { name: 'flag', type: 'boolean' },
      ],
      'keyset',
    );
    // Equal values, missing values (nulls) and equal timestamps, so ties and nulls are crossed.
    const rows = Array.from({ length: 23 }, (_, i) => ({
      key: `k${i}`,
      attributes: {
        ...(i % 5 === 0 ? {} : { title: `t${i % 4}` }),
        ...(i % 7 === 3 ? {} : { rank: (i * 37) % 9 }),
        flag: i % 2 === 0,
      },
    }));
    const bulk = await k.call('POST', '/data-objects/bulk', k.editor, { classId: cls.id, objects: rows });
    expect(bulk.statusCode, bulk.body).to.equal(200);
    const ids = bulk.json().created as string[];
    expect((await k.call('POST', '/data-objects/batch', k.publisher, { ids, action: 'publish' })).statusCode).to.equal(
      200,
    );
    // Two pairs with the very same created_at: the id breaks the tie.
    await k.t.db.raw(
      `update data_objects set created_at = '2024-01-01T00:00:00.000001Z' where class_id = ? and key in ('k1', 'k2', 'k3')`,
      [cls.id],
    );
  });
  after(() => k.t.close());

  const query = async (body: Record<string, unknown>) => {
    const res = await k.call('POST', '/public/data-objects/query', null, { className: cls.name, ...body });
    expect(res.statusCode, res.body).to.equal(200);
    return res.json() as { objects: Array<{ id: string }>; hasMore: boolean; nextCursor?: string };
  };

  /** Every object of the order, page by page through the cursors. */
  const walk = async (body: Record<string, unknown>, limit: number) => {
    const seen: string[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 50; pages++) {
      const page = await query({ ...body, limit, ...(after ? { after } : {}) });
      seen.push(...page.objects.map((o) => o.id));
      if (!page.hasMore) {
        expect(page).not.to.have.property('nextCursor');
        return seen;
      }
      after = page.nextCursor;
      expect(after).to.be.a('string');
    }
    throw new Error('did not end');
  };

  for (const orderBy of [
    undefined,
    [{ field: 'title', direction: 'asc' }],
    [{ field: 'title', direction: 'desc' }],
    [
      { field: 'rank', direction: 'desc' },
      { field: 'title', direction: 'asc' },
    ],
    [
      { field: 'flag', direction: 'asc' },
      { field: 'createdAt', direction: 'desc' },
    ],
    [{ field: 'key', direction: 'asc' }],
  ]) {
    it(`walks every object once, in the offset order: orderBy ${JSON.stringify(orderBy ?? 'default')}`, async () => {
      const body = orderBy ? { orderBy } : {};
      const all = (await query({ ...body, limit: 100 })).objects.map((o) => o.id);
      expect(all).to.have.length(23);
      expect(await walk(body, 4)).to.deep.equal(all);
    });
  }

  it('stays stable under concurrent inserts (newest first: new objects do not shift later pages)', async () => {
    const first = await query({ limit: 5 });
    for (let i = 0; i < 3; i++)
      await k.createObject({ classId: cls.id, published: true, attributes: { title: `new${i}` } });
    const rest: string[] = [];
    let after = first.nextCursor;
    while (after) {
      const page = await query({ limit: 5, after });
      rest.push(...page.objects.map((o) => o.id));
      after = page.nextCursor;
    }
    const ids = [...first.objects.map((o) => o.id), ...rest];
    expect(new Set(ids).size).to.equal(ids.length);
    expect(ids).to.have.length(23);
  });

  it('total (includeTotal) counts every match on every page, also after a cursor', async () => {
    const first = await query({ limit: 5, includeTotal: true });
    const next = await query({ limit: 5, includeTotal: true, after: first.nextCursor });
    expect((first as { total?: number }).total)
      .to.be.a('number')
      .greaterThan(5);
    expect((next as { total?: number }).total).to.equal((first as { total?: number }).total);
    expect(Object.keys(next)).to.deep.equal(['objects', 'hasMore', 'total', 'nextCursor']);
  });

  it('the GET list takes after too; after and filters go together', async () => {
    const first = await k.call('GET', `/public/data-objects?className=${cls.name}&limit=2&title=t1`, null);
    const page = first.json();
    expect(page.hasMore).to.equal(true);
    const next = await k.call(
      'GET',
      `/public/data-objects?className=${cls.name}&limit=2&title=t1&after=${page.nextCursor}`,
      null,
    );
    expect(next.statusCode, next.body).to.equal(200);
    const ids = [...page.objects, ...next.json().objects].map((o: { id: string }) => o.id);
    expect(new Set(ids).size).to.equal(4);
    for (const o of next.json().objects) expect(o.attributes.title).to.equal('t1');
  });

  it('answers 400 naming after for a malformed cursor or one of another order', async () => {
    const page = await query({ limit: 2 });
    const forged = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const cursorOf = JSON.parse(Buffer.from(page.nextCursor!, 'base64url').toString()) as { o: string; v: unknown[] };
    for (const after of [
      'not a cursor!',
      'AAAA',
      forged({ o: cursorOf.o, v: ['2024-01-01T00:00:00.000000Z'] }),
      forged({ o: cursorOf.o, v: ['yesterday', cursorOf.v[1]] }),
      forged({ o: cursorOf.o, v: [cursorOf.v[0], 'not-a-uuid'] }),
      forged({ o: cursorOf.o, v: [null, cursorOf.v[1]] }),
      forged([1, 2]),
    ]) {
      const res = await k.call('POST', '/public/data-objects/query', null, { className: cls.name, after });
      expect(res.statusCode, after).to.equal(400);
      expect(res.json().field).to.equal('after');
    }
    const other = await k.call('POST', '/public/data-objects/query', null, {
      className: cls.name,
      orderBy: [{ field: 'rank' }],
      after: page.nextCursor,
    });
    expect(other.statusCode).to.equal(400);
    expect(other.json().field).to.equal('after');
    const number = await query({ orderBy: [{ field: 'rank' }], limit: 1 });
    const bad = JSON.parse(Buffer.from(number.nextCursor!, 'base64url').toString()) as { o: string; v: unknown[] };
    const res = await k.call('POST', '/public/data-objects/query', null, {
      className: cls.name,
      orderBy: [{ field: 'rank' }],
      after: forged({ o: bad.o, v: ['1e999x', bad.v[1]] }),
    });
    expect(res.statusCode).to.equal(400);
    const get = await k.call('GET', `/public/data-objects?className=${cls.name}&after=%21%21`, null);
    expect(get.statusCode).to.equal(400);
    expect(get.json().field).to.equal('after');
  });

  it('the unfiltered newest-first page, first and after a cursor, walks the published-newest index of the partition', async () => {
    const page = await query({ limit: 3 });
    const seen: Array<{ sql: string; bindings: unknown[] }> = [];
    const listener = (q: { sql: string; bindings: unknown[] }) => seen.push(q);
    k.t.db.on('query', listener);
    try {
      await k.call('GET', `/public/data-objects?className=${cls.name}&limit=3&offset=1`, null);
      await k.call('GET', `/public/data-objects?className=${cls.name}&limit=3&after=${page.nextCursor}`, null);
    } finally {
      k.t.db.removeListener('query', listener);
    }
    // The page statement selects the sort values as k0, k1... (store/public-read-sql.ts).
    const pages = seen.filter((q) => q.sql.includes(' as k0'));
    expect(pages).to.have.length(2);
    const client = k.t.db.client as {
      acquireConnection(): Promise<PgConnection>;
      releaseConnection(c: PgConnection): Promise<void>;
    };
    const conn = await client.acquireConnection();
    try {
      // 23 rows: without these settings a sequential scan and a sort are cheaper; what matters is that
      // the index exists and answers the order (no Sort node), as it will on a large class.
      await conn.query('begin');
      await conn.query('set local enable_seqscan = off');
      await conn.query('set local enable_bitmapscan = off');
      for (const q of pages) {
        const plan = (await conn.query(`explain ${q.sql}`, q.bindings)).rows.map((r) => r['QUERY PLAN']).join('\n');
        const index = new RegExp(`Index Scan using (\\S+) on data_objects_c${cls.id.replace(/-/g, '')}`).exec(
          plan,
        )?.[1];
        expect(index, plan).to.be.a('string');
        const def = (await conn.query('select indexdef from pg_indexes where indexname = $1', [index])).rows[0]
          .indexdef;
        expect(def, plan).to.contain('(created_at DESC, id DESC) WHERE published');
        // No Sort below the page's LIMIT: the index gives the order.
        expect(plan.slice(plan.indexOf('Limit')), plan).not.to.match(/-> +Sort /);
      }
    } finally {
      await conn.query('rollback');
      await client.releaseConnection(conn);
    }
  });

  describe('the admin query (POST /data-objects/query): drafts included, total optional', () => {
    const adminQuery = async (body: Record<string, unknown>) => {
      const res = await k.call('POST', '/data-objects/query', k.editor, { className: cls.name, ...body });
      expect(res.statusCode, res.body).to.equal(200);
      return res.json() as { objects: Array<{ id: string }>; hasMore: boolean; total?: number; nextCursor?: string };
    };

    for (const orderBy of [
      undefined,
      [{ field: 'title', direction: 'desc' }],
      [
        { field: 'rank', direction: 'asc' },
        { field: 'key', direction: 'desc' },
      ],
    ]) {
      it(`walks every object once by cursor: orderBy ${JSON.stringify(orderBy ?? 'default')}`, async () => {
        const body = orderBy ? { orderBy } : {};
        const draft = await k.createObject({ classId: cls.id, attributes: { title: 't1', rank: 4 } });
        const all = (await adminQuery({ ...body, limit: 100 })).objects.map((o) => o.id);
        expect(all).to.include(draft.id);
        const seen: string[] = [];
        let after: string | undefined;
        for (let pages = 0; pages < 50; pages++) {
          const page = await adminQuery({ ...body, limit: 4, includeTotal: false, ...(after ? { after } : {}) });
          expect(page).not.to.have.property('total');
          seen.push(...page.objects.map((o) => o.id));
          if (!page.hasMore) break;
          after = page.nextCursor;
          expect(after).to.be.a('string');
        }
        expect(seen).to.deep.equal(all);
      });
    }

    it('counts by default, and refuses a cursor of another order with 400 naming after', async () => {
      const page = await adminQuery({ limit: 2 });
      expect(page.total).to.be.a('number').greaterThan(2);
      const res = await k.call('POST', '/data-objects/query', k.editor, {
        className: cls.name,
        orderBy: [{ field: 'rank' }],
        after: page.nextCursor,
      });
      expect(res.statusCode).to.equal(400);
      expect(res.json().field).to.equal('after');
    });
  });
});
