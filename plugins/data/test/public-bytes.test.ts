import { expect } from 'chai';
import { toObjectDto } from '../model.ts';
import { compactJsonbText } from '../services/public-row.ts';
import { findObjectById } from '../store/object-store.ts';
import { startDataKernel, type DataKernel } from './data-kernel.ts';

/**
 * The public read path builds answers in PostgreSQL (json_build_object, to_char) and reparses them
 * once in Node; these answers must be byte for byte what the row-by-row path gives
 * (`toObjectDto` on a knex row, then JSON.stringify), which the admin routes still use.
 */
describe('data: public answers are byte for byte those of the DTO mapping', () => {
  let k: DataKernel;
  let cls: { id: string; name: string };
  let target: { id: string };
  before(async () => {
    k = await startDataKernel({ PUBLIC_DATA_RATE_LIMIT_PER_MINUTE: '100000' });
    await k.call('POST', '/data-components', k.admin, {
      name: 'seoBytes',
      fields: [
        { name: 'metaTitle', type: 'text' },
        { name: 'weight', type: 'number' },
        { name: 'extra', type: 'json' },
      ],
    });
    const related = await k.createClass([{ name: 'title', type: 'text' }], 'rel');
    target = await k.createObject({ classId: related.id, published: true, attributes: { title: 'target' } });
    cls = await k.createClass(
      [
        { name: 'title', type: 'text' },
        { name: 'body', type: 'richtext' },
        { name: 'notes', type: 'markdown' },
        { name: 'slug', type: 'slug' },
        { name: 'price', type: 'number' },
        { name: 'active', type: 'boolean' },
        { name: 'day', type: 'date' },
        { name: 'at', type: 'datetime' },
        { name: 'color', type: 'select', options: ['red', 'grün', '🟦'] },
        { name: 'image', type: 'asset' },
        { name: 'link', type: 'relation', relation: { class: related.name } },
        { name: 'data', type: 'json' },
        { name: 'tags', type: 'array', of: 'text' },
        { name: 'seo', type: 'component', component: 'seoBytes' },
        { name: 'blocks', type: 'array', of: 'component', component: 'seoBytes' },
      ],
      'bytes',
    );
  });
  after(() => k.t.close());

  const samples = () => [
    { title: 'plain', price: 1 },
    {
      title: 'Ünïcödé 日本語 🎉 e\u0301 \u2028 \u2029 "quoted" \\back\\ \t tab \u0001 ctl </script>',
      body: '<p>a &amp; b</p>',
      notes: '# head\n\n* item',
      slug: 'a-b-c',
      price: -1234.5678,
      active: false,
      day: '2024-02-29',
      at: '2024-05-01T10:00:00.123Z',
      color: '🟦',
      image: 'asset-1',
      link: target.id,
      data: {
        z: 1,
        a: [1, 2.5, -0.001, 1e21, 1e-7, 123456789012345680000, null, true, 'x'],
        nested: { deeper: { deepest: [{}, []] } },
        '': 'empty key',
        ключ: 'значение',
      },
      tags: ['a', 'β', 'γ δ'],
      seo: { metaTitle: 'Méta', weight: 0.1, extra: { k: [null] } },
      blocks: [
        { metaTitle: 'one', weight: 3 },
        { metaTitle: 'two', extra: 'text' },
      ],
    },
    { title: null, price: 0, active: true, data: null, tags: [] },
    { price: 9007199254740991, data: [[[['deep']]]] },
    // Keys JavaScript orders first (array indexes) and keys that only look like them; numbers jsonb prints its own way.
    {
      title: 'keys',
      price: 1e-7,
      data: {
        '10': 1,
        b: 2,
        '2': [3, { '0': 'x', z: 0.00001 }],
        '01': 'not an index',
        '4294967295': 'nor this',
        '-1': 'nor this',
      },
    },
    {
      title: 'numbers',
      price: -1e21,
      data: [0, -0, 1.5e300, -2.5e-300, 5e-324, 0.1, 100, 1e21, 123e-20, 'a "quoted, spaced: string" \\" x'],
    },
  ];

  it('get by id: the same bytes for every field type, unicode, numbers, nulls and nested components', async () => {
    for (const [i, attributes] of samples().entries()) {
      const created = await k.createObject({ classId: cls.id, key: `b${i}`, published: true, attributes });
      // Microseconds in the timestamps: both paths truncate to milliseconds.
      await k.t.db.raw(
        `update data_objects set created_at = '2024-01-02 03:04:05.678999+00', updated_at = '2024-01-02 03:04:05.999999+00' where class_id = ? and id = ?`,
        [cls.id, created.id],
      );
      const row = await findObjectById(k.t.db, created.id);
      const expected = JSON.stringify(toObjectDto(row!, cls.name));
      const res = await k.call('GET', `/public/data-objects/${created.id}`, null);
      expect(res.statusCode).to.equal(200);
      expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
      expect(res.body).to.equal(expected);
      // Upper-case ids are the same object.
      expect((await k.call('GET', `/public/data-objects/${created.id.toUpperCase()}`, null)).body).to.equal(expected);
    }
  });

  it('pages: the same bytes as the DTO mapping of the same rows, with and without total', async () => {
    const data = k.services();
    for (const input of [
      { className: cls.name, limit: 100 },
      { className: cls.name, limit: 100, includeTotal: true },
      { className: cls.name, orderBy: [{ field: 'price', direction: 'desc' as const }], limit: 100 },
      { className: cls.name, filters: [{ field: 'title', op: 'eq', value: 'plain' }] },
    ]) {
      const page = await data.query.run(input, 'public');
      const objects = await data.reads.toDtos(page.rows);
      const expected = JSON.stringify(
        page.total === undefined
          ? { objects, hasMore: page.hasMore }
          : { objects, hasMore: page.hasMore, total: page.total },
      );
      expect(objects.length).to.be.greaterThan(0);
      const res = await k.call('POST', '/public/data-objects/query', null, input);
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.body).to.equal(expected);
      // Through the provided service (the gateway's path) the same values.
      expect(JSON.stringify(await data.publicReads.page(input).then((a) => JSON.parse(a.body)))).to.equal(expected);
    }
    const list = await k.call('GET', `/public/data-objects?className=${cls.name}&limit=100`, null);
    const page = await data.query.run({ className: cls.name, limit: 100 }, 'public');
    expect(list.body).to.equal(JSON.stringify({ objects: await data.reads.toDtos(page.rows), hasMore: false }));
  });

  it('jsonb text made compact equals JSON.stringify(JSON.parse(text)) for random documents', async () => {
    let seed = 7;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
    const chars = [
      'a',
      ' ',
      ':',
      ',',
      '"',
      '\\',
      '\n',
      '\t',
      '\u0001',
      '\u001f',
      '\u007f',
      'é',
      '日',
      '🎉',
      '\u2028',
      '{',
      '[',
      '1',
      '-',
    ];
    const text = () => Array.from({ length: Math.floor(rnd() * 12) }, () => pick(chars)).join('');
    const num = () =>
      pick([
        0,
        -0,
        1,
        -1,
        0.5,
        1e21,
        1e-7,
        123456.789,
        -9.99e-12,
        2 ** 53 + 2,
        1.7976931348623157e308,
        5e-324,
        Math.floor(rnd() * 1e6) / 1e3,
      ]);
    const key = () => pick(['a', 'b', 'zz', '0', '7', '10', '01', '-3', '', ' ', ':', '"q"', 'ключ', text()]);
    const value = (depth: number): unknown => {
      const kind = depth > 3 ? Math.floor(rnd() * 4) : Math.floor(rnd() * 6);
      if (kind === 0) return text();
      if (kind === 1) return num();
      if (kind === 2) return pick([true, false, null]);
      if (kind === 3) return Math.floor(rnd() * 100);
      if (kind === 4) return Array.from({ length: Math.floor(rnd() * 4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(rnd() * 5) }, () => [key(), value(depth + 1)]));
    };
    let compacted = 0;
    for (let i = 0; i < 400; i++) {
      const doc = value(0);
      const { rows } = await k.t.db.raw('select ?::jsonb::text as t', [JSON.stringify(doc)]);
      const jsonbText = rows[0].t as string;
      const compact = compactJsonbText(jsonbText);
      if (compact === null) continue;
      compacted++;
      expect(compact, jsonbText).to.equal(JSON.stringify(JSON.parse(jsonbText)));
    }
    expect(compacted, 'most documents take the fast path').to.be.greaterThan(200);
  });
});
