import { expect } from 'chai';
import { startContentKernel, type ContentKernel } from './content-kernel.ts';

describe('content: snippets, legacy routes, render and settings', () => {
  let k: ContentKernel;
  before(async () => {
    k = await startContentKernel();
  });
  after(() => k.t.close());

  const create = async (content: unknown = { type: 'p', text: 'one' }) => {
    const res = await k.call('POST', '/cms-one/snippets', k.editor, { name: k.unique('snip'), content });
    expect(res.statusCode, res.body).to.equal(201);
    return res.json();
  };

  it('lock: an autosave PATCH answers 423 while locked, a manual save passes', async () => {
    const snip = await create();
    const url = `/cms-one/snippets/${snip.id}`;
    expect((await k.call('PUT', `${url}/lock`, k.editor, { locked: true })).json()).to.deep.equal({
      id: snip.id,
      locked: true,
    });
    const auto = await k.call('PATCH', url, k.editor, { content: { type: 'p', text: 'auto' }, autosave: true });
    expect(auto.statusCode).to.equal(423);
    expect((await k.call('GET', url, k.reader)).json().content.text).to.equal('one');
    const manual = await k.call('PATCH', url, k.editor, { content: { type: 'p', text: 'manual' } });
    expect(manual.statusCode).to.equal(200);
    expect(manual.json().content.text).to.equal('manual');
    await k.call('PUT', `${url}/lock`, k.editor, { locked: false });
    expect(
      (await k.call('PATCH', url, k.editor, { content: { type: 'p', text: 'auto2' }, autosave: true })).statusCode,
    ).to.equal(200);
  });

  it('version history keeps 10, one version readable; thumbnail; delete', async () => {
    const snip = await create();
    const url = `/cms-one/snippets/${snip.id}`;
    // A publisher's saves go live (an editor's go to the working copy: drafts.test.ts).
    for (let i = 0; i < 11; i++) await k.call('PATCH', url, k.publisher, { content: { type: 'p', text: `v${i}` } });
    await k.call('PATCH', url, k.publisher, { name: 'renamed only' });
    const versions = (await k.call('GET', `${url}/versions`, k.reader)).json();
    expect(versions).to.have.length(10);
    expect((await k.call('GET', `${url}/versions/${versions[0].id}`, k.reader)).json().content.text).to.equal('v9');
    expect(
      (await k.call('PUT', `${url}/thumbnail`, k.editor, { thumbnail: 'data:image/gif;base64,R0lGOD' })).statusCode,
    ).to.equal(400);
    expect((await k.call('DELETE', url, k.editor)).statusCode).to.equal(204);
    expect((await k.call('GET', url, k.reader)).statusCode).to.equal(404);
    expect((await k.call('DELETE', url, k.editor)).statusCode).to.equal(404);
  });

  it('legacy /snippets and /documents share the stores', async () => {
    const legacy = await k.call('POST', '/snippets', k.editor, { name: 'legacy', content: { type: 'p', text: 'x' } });
    expect(legacy.statusCode).to.equal(201);
    expect((await k.call('GET', `/cms-one/snippets/${legacy.json().id}`, k.reader)).json().name).to.equal('legacy');
    expect((await k.call('GET', '/snippets', k.reader)).json().map((x: { id: string }) => x.id)).to.include(
      legacy.json().id,
    );
    expect((await k.call('DELETE', `/snippets/${legacy.json().id}`, k.editor)).statusCode).to.equal(204);
    const site = await k.createWebsite();
    const page = await k.createPage({ websiteId: site.id, path: '/doc' });
    expect((await k.call('GET', `/documents/${page.id}`, k.reader)).json().path).to.equal('/doc');
    const patched = await k.call('PATCH', `/documents/${page.id}`, k.editor, {
      content: { type: 'p', text: 'via documents' },
    });
    expect(patched.json().content.text).to.equal('via documents');
    expect((await k.call('GET', `/cms-one/pages/${page.id}/versions`, k.reader)).json()).to.have.length(1);
    expect((await k.call('GET', '/documents', k.reader)).json().map((d: { id: string }) => d.id)).to.include(page.id);
    expect(
      (
        await k.call('PATCH', `/documents/${page.id}`, k.editor, {
          content: { type: 'a', props: { href: 'javascript:x' } },
        })
      ).json().field,
    ).to.equal('content.props.href');
  });

  it('render: standalone e-mail HTML, everything escaped, comments honour strip-html-comments, tables capped', async () => {
    const rows = Array.from({ length: 1200 }, (_, i) => ({ type: 'tr', children: [{ type: 'td', text: `r${i}` }] }));
    const snip = await create({
      type: 'section',
      children: [
        { type: 'h1', text: '<script>alert(1)</script>' },
        { type: 'a', props: { href: 'https://x.test/?a="b"' }, text: 'link' },
        { type: 'comment', text: 'note' },
        { type: 'table', children: rows },
        { type: 'table', props: { pageSize: 5 }, children: rows.slice(0, 20) },
      ],
    });
    const html = (await k.call('POST', `/cms-one/snippets/${snip.id}/render`, k.reader)).json().html as string;
    expect(html).to.match(/^<!DOCTYPE html>/);
    expect(html).to.include('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.to.include('<script');
    expect(html).to.include('href="https://x.test/?a=&quot;b&quot;"');
    expect(html).to.include('<!-- note -->');
    expect(html).to.include('r999<').and.not.to.include('r1000<');
    expect(html.match(/<td>r\d+<\/td>/g)).to.have.length(1000 + 5);
    await k.call('PUT', '/cms-one/settings/strip-html-comments', k.editor, { enabled: true });
    const stripped = (await k.call('POST', `/cms-one/snippets/${snip.id}/render`, k.reader)).json().html as string;
    expect(stripped).not.to.include('<!--');
    await k.call('PUT', '/cms-one/settings/strip-html-comments', k.editor, { enabled: false });
    const site = await k.createWebsite();
    const page = await k.createPage({ websiteId: site.id, path: '/mail' });
    const pageHtml = await k.call('POST', `/cms-one/pages/${page.id}/render`, k.reader);
    expect(pageHtml.json().html).to.include('<p>Hello</p>');
  });

  it('public snippet node tree', async () => {
    const snip = await create();
    const res = await k.call('GET', `/public/snippets/${snip.id}`, null);
    expect(res.statusCode).to.equal(200);
    expect(res.json().content.text).to.equal('one');
    expect(res.headers.etag).to.be.a('string');
    expect((await k.call('GET', '/public/snippets/00000000-0000-4000-8000-000000000000', null)).statusCode).to.equal(
      404,
    );
  });

  it('settings: unauthenticated GET of strip-html-comments and logging; alpine presets validated; cdn-mirror needs settings:manage; audited', async () => {
    expect((await k.call('GET', '/cms-one/settings/strip-html-comments', null)).statusCode).to.equal(200);
    expect((await k.call('GET', '/cms-one/settings/logging', null)).json()).to.have.property('level');
    expect((await k.call('GET', '/cms-one/settings/autosave', null)).statusCode).to.equal(401);
    expect(
      (await k.call('PUT', '/cms-one/settings/autosave', k.editor, { enabled: true, intervalSeconds: 2 })).json().field,
    ).to.equal('intervalSeconds');
    const good = {
      presets: [
        {
          name: 'toggle',
          description: 'open/close',
          directives: {
            'x-data': '{ open: false }',
            '@click': 'open = !open',
            ':class': "open && 'on'",
            'x-on:keydown.escape': 'open = false',
          },
        },
      ],
    };
    const bad: Array<[unknown, string]> = [
      [[{ name: 'Bad Name', directives: { 'x-show': 'a' } }], 'presets.0.name'],
      [[{ name: 'a', directives: { onclick: 'a' } }], 'presets.0.directives.onclick'],
      [[{ name: 'a', directives: { 'x-html': 'a' } }], 'presets.0.directives.x-html'],
      [[{ name: 'a', directives: { 'x-show': 'a'.repeat(2001) } }], 'presets.0.directives.x-show'],
      [
        [
          { name: 'a', directives: { 'x-show': 'a' } },
          { name: 'a', directives: { 'x-show': 'b' } },
        ],
        'presets.1.name',
      ],
      [[{ name: 'a', directives: {} }], 'presets.0.directives'],
    ];
    await k.call('PUT', '/cms-one/settings/alpine-presets', k.editor, good);
    for (const [presets, field] of bad) {
      const res = await k.call('PUT', '/cms-one/settings/alpine-presets', k.editor, { presets });
      expect(res.statusCode, field).to.equal(400);
      expect(res.json().field).to.equal(field);
      expect(res.json().message).to.be.a('string').and.not.equal('');
    }
    expect((await k.call('GET', '/cms-one/settings/alpine-presets', k.reader)).json()).to.deep.equal(good);
    const audit = await k.t.db('audit_log').where({ action: 'setting.update', target_id: 'alpine-presets' });
    expect(audit).to.have.length(1);
    expect(JSON.stringify(audit[0].after)).to.match(/sha:/);
    expect((await k.call('PUT', '/cms-one/settings/cdn-mirror', k.editor, { enabled: true })).statusCode).to.equal(403);
    const manager = await k.t.createUser({ permissions: ['settings:manage'] });
    expect(
      (await k.call('PUT', '/cms-one/settings/cdn-mirror', manager, { enabled: true, baseUrl: 'https://cdn.test' }))
        .statusCode,
    ).to.equal(200);
    expect((await k.call('DELETE', '/cms-one/settings/cdn-mirror', k.editor)).statusCode).to.equal(403);
    expect((await k.call('DELETE', '/cms-one/settings/cdn-mirror', manager)).statusCode).to.equal(204);
    const actions = (await k.t.db('audit_log').where({ target_id: 'cdn-mirror' }).orderBy('at')).map((r) => r.action);
    expect(actions).to.deep.equal(['setting.cdn_mirror_update', 'setting.cdn_mirror_remove']);
  });

  it('permissions of the snippet, document and settings routes', async () => {
    const snip = await create();
    const v = '00000000-0000-4000-8000-000000000000';
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/cms-one/snippets'],
      ['POST', '/cms-one/snippets', { name: 'n' }],
      ['GET', `/cms-one/snippets/${snip.id}`],
      ['PATCH', `/cms-one/snippets/${snip.id}`, { name: 'n' }],
      ['DELETE', `/cms-one/snippets/${snip.id}`],
      ['GET', `/cms-one/snippets/${snip.id}/versions`],
      ['GET', `/cms-one/snippets/${snip.id}/versions/${v}`],
      ['POST', `/cms-one/snippets/${snip.id}/render`],
      ['PUT', `/cms-one/snippets/${snip.id}/thumbnail`, { thumbnail: null }],
      ['PUT', `/cms-one/snippets/${snip.id}/lock`, { locked: true }],
      ['GET', '/snippets'],
      ['POST', '/snippets', { name: 'n' }],
      ['DELETE', `/snippets/${snip.id}`],
      ['GET', '/documents'],
      ['GET', `/documents/${v}`],
      ['PATCH', `/documents/${v}`, { title: 't' }],
      ['GET', '/cms-one/settings/autosave'],
      ['PUT', '/cms-one/settings/autosave', { enabled: true, intervalSeconds: 30 }],
      ['PUT', '/cms-one/settings/strip-html-comments', { enabled: true }],
      ['PUT', '/cms-one/settings/logging', { level: 'info' }],
      ['GET', '/cms-one/settings/default-placeholder-image'],
      ['PUT', '/cms-one/settings/default-placeholder-image', { url: null }],
      ['GET', '/cms-one/settings/alpine-presets'],
      ['PUT', '/cms-one/settings/alpine-presets', { presets: [] }],
      ['GET', '/cms-one/settings/cdn-mirror'],
      ['PUT', '/cms-one/settings/cdn-mirror', { enabled: false }],
      ['DELETE', '/cms-one/settings/cdn-mirror'],
    ];
    for (const [method, url, body] of routes) {
      expect((await k.call(method, url, null, body)).statusCode, `${method} ${url}`).to.equal(401);
      expect((await k.call(method, url, k.nobody, body)).statusCode, `${method} ${url}`).to.equal(403);
      // Rendering reads: objects:read is enough.
      if (method !== 'GET' && !url.endsWith('/render'))
        expect((await k.call(method, url, k.reader, body)).statusCode, `${method} ${url}`).to.equal(403);
    }
    const snippetDeleter = await k.t.createUser({ permissions: ['snippets:delete'] });
    expect((await k.call('PATCH', `/cms-one/snippets/${snip.id}`, snippetDeleter, { name: 'x' })).statusCode).to.equal(
      403,
    );
    expect((await k.call('DELETE', `/cms-one/snippets/${snip.id}`, snippetDeleter)).statusCode).to.equal(204);
    expect((await k.call('PUT', `/cms-one/snippets/${v}/lock`, k.editor, { locked: 'maybe' })).json().field).to.equal(
      'locked',
    );
    expect(
      (
        await k.call('POST', '/cms-one/snippets', k.editor, {
          name: 'x',
          content: { type: 'div', props: { onload: 'x' } },
        })
      ).json().field,
    ).to.equal('content.props.onload');
  });
});
