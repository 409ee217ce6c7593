import { expect } from 'chai';
import { type ContentKernel, startContentKernel } from './content-kernel.ts';

const BROWSER = 'text/html,application/xhtml+xml,*/*;q=0.8';

describe('content: data bindings to classes', () => {
  let k: ContentKernel;
  let site: { id: string; rootPath: string };
  let classId: string;
  before(async () => {
    k = await startContentKernel();
    site = await k.createWebsite();
    const cls = await k.call('POST', '/data-classes', k.admin, {
      name: k.unique('Product'),
      fields: [
        { name: 'name', type: 'text' },
        { name: 'rank', type: 'number' },
        { name: 'link', type: 'text' },
        { name: 'tags', type: 'array', of: 'text' },
        { name: 'notes', type: 'json' },
      ],
    });
    expect(cls.statusCode, cls.body).to.equal(201);
    classId = cls.json().id;
    const objects = [
      { key: 'c', published: true, attributes: { name: 'Charlie', rank: 3, link: '/p/c', tags: ['x', 'y'] } },
      { key: 'a', published: true, attributes: { name: 'Alpha', rank: 1, link: 'javascript:alert(1)' } },
      { key: 'd', published: false, attributes: { name: 'Draft Delta', rank: 0 } },
      { key: 'b', published: true, attributes: { name: '<script>alert("b")</script>', rank: 2, notes: { a: 1 } } },
      { key: 'e', published: true, attributes: { name: 'Echo', rank: 5 } },
    ];
    for (const body of objects) {
      const res = await k.call('POST', '/data-objects', k.publisher, { classId, locale: 'en', ...body });
      expect(res.statusCode, res.body).to.equal(201);
    }
  });
  after(() => k.t.close());

  /** A list bound to the class: one li per object with its name, rank and link. */
  const boundList = (binding: Record<string, unknown>) => ({
    type: 'section',
    children: [
      { type: 'h2', text: 'Products' },
      {
        type: 'ul',
        props: { className: 'products', dataBinding: { classId, ...binding } },
        children: [
          {
            type: 'li',
            props: { className: 'rank-{{rank}}' },
            children: [
              { type: 'a', props: { href: '{{link}}', title: '{{_key}}' }, text: '{{ name }} #{{rank}}' },
              { type: 'span', text: '[{{tags}}|{{notes}}|{{missing}}|{{constructor}}]' },
            ],
          },
        ],
      },
    ],
  });

  const publicHtml = async (path: string) => {
    const res = await k.call('GET', `/public/page${site.rootPath}${path}`, null, undefined, { accept: BROWSER });
    expect(res.statusCode, res.body).to.equal(200);
    return res.body;
  };

  it('the public page shows published objects only, in the order and number asked, placeholders escaped', async () => {
    const path = `/${k.unique('list')}`;
    await k.createPage({
      websiteId: site.id,
      path,
      published: true,
      content: boundList({ orderBy: 'rank', dir: 'asc', limit: 3 }),
    });
    const html = await publicHtml(path);
    const items = html.match(/<li[^>]*>.*?<\/li>/g) ?? [];
    expect(items).to.deep.equal([
      // A link value that is a script URL is left out, as the save would have refused it.
      '<li class="rank-1"><a title="a">Alpha #1</a><span>[|||]</span></li>',
      '<li class="rank-2"><a title="b">&lt;script&gt;alert(&quot;b&quot;)&lt;/script&gt; #2</a><span>[|||]</span></li>',
      '<li class="rank-3"><a href="/p/c" title="c">Charlie #3</a><span>[x, y|||]</span></li>',
    ]);
    expect(html).to.contain('<ul class="products">');
    expect(html).not.to.contain('Draft Delta');
    expect(html).not.to.contain('<script>');
    expect(html).not.to.contain('dataBinding');
    // The stored page keeps the template and its binding; the JSON answer is the page as stored.
    const json = await k.call('GET', `/public/page${site.rootPath}${path}`, null);
    expect(json.json().content.children[1].props.dataBinding.classId).to.equal(classId);
  });

  it('filters, the descending order and the page locale apply; changes of the objects show at once', async () => {
    const path = `/${k.unique('filter')}`;
    await k.createPage({
      websiteId: site.id,
      path,
      published: true,
      content: boundList({ filter: [{ field: 'rank', op: 'gte', value: 2 }], orderBy: 'rank', dir: 'desc' }),
    });
    const names = (html: string) => [...html.matchAll(/<a[^>]*>([^<]*) #/g)].map((m) => m[1]);
    expect(names(await publicHtml(path))).to.deep.equal([
      'Echo',
      'Charlie',
      '&lt;script&gt;alert(&quot;b&quot;)&lt;/script&gt;',
    ]);
    const created = await k.call('POST', '/data-objects', k.publisher, {
      classId,
      locale: 'en',
      published: true,
      attributes: { name: 'Foxtrot', rank: 9 },
    });
    expect(created.statusCode, created.body).to.equal(201);
    await k.call('POST', '/data-objects', k.publisher, {
      classId,
      locale: 'de',
      published: true,
      attributes: { name: 'Golf (de)', rank: 10 },
    });
    expect(names(await publicHtml(path))[0]).to.equal('Foxtrot');
    await k.call('PATCH', `/data-objects/${created.json().id}`, k.publisher, { published: false });
    expect(names(await publicHtml(path))[0]).to.equal('Echo');
  });

  it('the canvas shows the unsaved binding, with every item marked with the template paths', async () => {
    const page = await k.createPage({ websiteId: site.id, path: `/${k.unique('canvas')}` });
    const res = await k.call('POST', `/cms-one/pages/${page.id}/canvas`, k.reader, {
      content: boundList({ orderBy: 'rank', limit: 2 }),
    });
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.body).to.contain('<ul class="products" data-cms-node="r.1">');
    expect(res.body).to.contain(
      '<li class="rank-1" data-cms-node="r.1.0"><a title="a" data-cms-node="r.1.0.0">Alpha #1</a>',
    );
    expect(res.body).to.contain('<li class="rank-2" data-cms-node="r.1.0"><a title="b" data-cms-node="r.1.0.0">');
    expect(res.body).not.to.contain('Charlie');
    expect(res.body).not.to.contain('Draft Delta');
    // The e-mail rendering of the stored page shows the objects too.
    await k.call('PATCH', `/cms-one/pages/${page.id}`, k.publisher, {
      content: boundList({ orderBy: 'rank', limit: 1 }),
    });
    const mail = await k.call('POST', `/cms-one/pages/${page.id}/render`, k.reader);
    expect(mail.json().html).to.contain('<li class="rank-1"><a title="a">Alpha #1</a>');
    expect(mail.json().html).not.to.contain('{{');
    // A half-made binding (no class yet) draws the block empty instead of failing the canvas.
    const half = await k.call('POST', `/cms-one/pages/${page.id}/canvas`, k.reader, {
      content: { type: 'ul', props: { dataBinding: { classId: '' } }, children: [{ type: 'li', text: '{{name}}' }] },
    });
    expect(half.statusCode, half.body).to.equal(200);
    expect(half.body).to.contain('<ul data-cms-node="r"></ul>');
  });

  it('a class without published objects renders the bound block empty', async () => {
    const empty = await k.call('POST', '/data-classes', k.admin, {
      name: k.unique('Empty'),
      fields: [{ name: 'name', type: 'text' }],
    });
    await k.call('POST', '/data-objects', k.publisher, {
      classId: empty.json().id,
      published: false,
      attributes: { name: 'Only a draft' },
    });
    const path = `/${k.unique('empty')}`;
    await k.createPage({
      websiteId: site.id,
      path,
      published: true,
      content: {
        type: 'section',
        props: { dataBinding: { classId: empty.json().id } },
        children: [{ type: 'p', text: '{{name}}' }],
      },
    });
    expect(await publicHtml(path)).to.contain('<body>\n<main><section></section></main>\n</body>');
  });

  it('refuses bad bindings with 400 naming the field, on pages and snippets', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ classId: 'nope' }, 'classId'],
      [{ classId: '00000000-0000-4000-8000-000000000000' }, 'classId'],
      [{ classId, filter: [{ field: 'rank', op: 'like', value: 1 }] }, 'filter.0.op'],
      [{ classId, filter: [{ field: 'colour', op: 'eq', value: 'red' }] }, 'filter.0.field'],
      [{ classId, filter: [{ field: 'rank', op: 'eq', value: 'high' }] }, 'filter.0.value'],
      [{ classId, filter: Array.from({ length: 6 }, () => ({ field: 'rank', op: 'eq', value: 1 })) }, 'filter'],
      [{ classId, orderBy: 'notes' }, 'orderBy'],
      [{ classId, dir: 'up' }, 'dir'],
      [{ classId, limit: 0 }, 'limit'],
      [{ classId, limit: 101 }, 'limit'],
      [{ classId, locale: 'not a locale' }, 'locale'],
      [{ classId, sql: 'drop' }, 'sql'],
    ];
    for (const [binding, field] of cases) {
      const res = await k.call('POST', '/cms-one/pages', k.publisher, {
        websiteId: site.id,
        locale: 'en',
        path: `/${k.unique('bad')}`,
        title: 'Bad',
        content: { type: 'section', children: [{ type: 'ul', props: { dataBinding: binding } }] },
      });
      expect(res.statusCode, `${field}: ${res.body}`).to.equal(400);
      expect(res.json().field).to.equal(`content.children.0.props.dataBinding.${field}`);
    }
    const snippet = await k.call('POST', '/cms-one/snippets', k.admin, {
      name: k.unique('List'),
      content: { type: 'ul', props: { dataBinding: { classId, limit: 500 } } },
    });
    expect(snippet.statusCode).to.equal(400);
    expect(snippet.json().field).to.equal('content.props.dataBinding.limit');
    const nested = await k.call('POST', '/cms-one/snippets', k.admin, {
      name: k.unique('Nested'),
      content: {
        type: 'ul',
        props: { dataBinding: { classId } },
        children: [{ type: 'li', props: { dataBinding: { classId } } }],
      },
    });
    expect(nested.statusCode).to.equal(400);
    expect(nested.json().field).to.equal('content.children.0.props.dataBinding');
    const many = await k.call('POST', '/cms-one/snippets', k.admin, {
      name: k.unique('Many'),
      content: {
        type: 'div',
        children: Array.from({ length: 21 }, () => ({ type: 'ul', props: { dataBinding: { classId } } })),
      },
    });
    expect(many.statusCode).to.equal(400);
    expect(many.json().field).to.equal('content.children.20.props.dataBinding');
    const fine = await k.call('POST', '/cms-one/snippets', k.admin, {
      name: k.unique('Fine'),
      content: {
        type: 'ul',
        props: { dataBinding: { classId, filter: [{ field: 'tags', op: 'contains', value: 'x' }] } },
      },
    });
    expect(fine.statusCode, fine.body).to.equal(201);
  });

  it('without the data plugin a binding is stored (shape checked) and renders nothing', async () => {
    const bare = await startContentKernel({ plugins: ['content'] });
    try {
      const other = await bare.createWebsite();
      const path = `/${bare.unique('nodata')}`;
      await bare.createPage({
        websiteId: other.id,
        path,
        published: true,
        content: {
          type: 'section',
          children: [{ type: 'ul', props: { dataBinding: { classId } }, children: [{ type: 'li', text: '{{name}}' }] }],
        },
      });
      const res = await bare.call('GET', `/public/page${other.rootPath}${path}`, null, undefined, { accept: BROWSER });
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.body).to.contain('<section><ul></ul></section>');
      const bad = await bare.call('POST', '/cms-one/snippets', bare.admin, {
        name: 'x',
        content: { type: 'ul', props: { dataBinding: { classId, limit: 0 } } },
      });
      expect(bad.json().field).to.equal('content.props.dataBinding.limit');
    } finally {
      await bare.t.close();
    }
  });
});
