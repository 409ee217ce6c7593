import { expect } from 'chai';
import { startContentKernel, type ContentKernel } from './content-kernel.ts';

const PNG =
  'data:image/png;base64,' +
  Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(40)]).toString('base64');

describe('content: pages', () => {
  let k: ContentKernel;
  let site: { id: string; rootPath: string };
  before(async () => {
    k = await startContentKernel();
    site = await k.createWebsite();
  });
  after(() => k.t.close());

  it('creates a draft page, announces created without content, and reads it back', async () => {
    k.clearEvents();
    const page = await k.createPage(
      {
        websiteId: site.id,
        path: '/about',
        seo: {
          title: 'About',
          description: 'd',
          canonical: '/about',
          openGraph: { 'og:image': 'https://x.test/i.png' },
        },
      },
      k.editor,
    );
    expect(page).to.include({
      websiteId: site.id,
      locale: 'en',
      path: '/about',
      published: false,
      inSitemap: true,
      indexable: true,
    });
    expect(page.seo.openGraph).to.deep.equal({ 'og:image': 'https://x.test/i.png' });
    expect(k.events.map((e) => e.kind)).to.deep.equal(['created']);
    expect(k.events[0].data).to.include({ websiteId: site.id, locale: 'en', path: '/about', title: 'A page' });
    expect(JSON.stringify(k.events[0])).not.to.include('Hello');
    const got = await k.call('GET', `/cms-one/pages/${page.id}`, k.reader);
    expect(got.json().content.children[0].text).to.equal('Hello');
    const list = await k.call('GET', `/cms-one/pages?websiteId=${site.id}`, k.reader);
    expect(list.json().map((p: { id: string }) => p.id)).to.include(page.id);
  });

  it('publishing needs objects:publish while ENFORCE_PUBLISH_PERMISSION is on; published/unpublished announced', async () => {
    const page = await k.createPage({ websiteId: site.id, path: '/pub' }, k.editor);
    const refused = await k.call('PATCH', `/cms-one/pages/${page.id}`, k.editor, { published: true });
    expect(refused.statusCode).to.equal(403);
    expect(refused.json().code).to.equal('PUBLISH_FORBIDDEN');
    expect(
      (
        await k.call('POST', '/cms-one/pages', k.editor, {
          websiteId: site.id,
          locale: 'en',
          path: '/pub2',
          title: 't',
          published: true,
        })
      ).statusCode,
    ).to.equal(403);
    k.clearEvents();
    const ok = await k.call('PATCH', `/cms-one/pages/${page.id}`, k.publisher, { published: true });
    expect(ok.json().published).to.equal(true);
    expect(k.events.map((e) => e.kind)).to.deep.equal(['published']);
    await k.call('PATCH', `/cms-one/pages/${page.id}`, k.publisher, { published: false });
    expect(k.events.map((e) => e.kind)).to.deep.equal(['published', 'unpublished']);
  });

  it('a failing record-change subscriber fails the write: nothing stored', async () => {
    const unsubscribe = k.t.kernel.resolve('recordHooks').subscribe('page', () => {
      throw new Error('subscriber refuses');
    });
    try {
      const res = await k.call('POST', '/cms-one/pages', k.publisher, {
        websiteId: site.id,
        locale: 'en',
        path: '/never',
        title: 't',
      });
      expect(res.statusCode).to.equal(500);
    } finally {
      unsubscribe();
    }
    expect(await k.t.db('content_pages').where({ website_id: site.id, path: '/never' }).first()).to.equal(undefined);
  });

  it('version history: content changes snapshot the prior state, 10 kept, get, diff, restore', async () => {
    const page = await k.createPage({ websiteId: site.id, path: '/versions' });
    const url = `/cms-one/pages/${page.id}`;
    await k.call('PATCH', url, k.editor, { title: 'Only the title' });
    expect((await k.call('GET', `${url}/versions`, k.reader)).json()).to.have.length(0);
    for (let i = 1; i <= 12; i++) {
      const res = await k.call('PATCH', url, k.editor, {
        content: { type: 'section', children: [{ type: 'p', text: `v${i}` }] },
      });
      expect(res.statusCode).to.equal(200);
    }
    const versions = (await k.call('GET', `${url}/versions`, k.reader)).json();
    expect(versions).to.have.length(10);
    const newest = (await k.call('GET', `${url}/versions/${versions[0].id}`, k.reader)).json();
    expect(newest.content.children[0].text).to.equal('v11');
    const oldest = (await k.call('GET', `${url}/versions/${versions[9].id}`, k.reader)).json();
    expect(oldest.content.children[0].text).to.equal('v2');
    const diff = (await k.call('GET', `${url}/versions/${versions[0].id}/diff`, k.reader)).json();
    expect(diff.changed).to.deep.equal(['content.children.0']);
    const restored = await k.call('POST', `${url}/versions/${versions[9].id}/restore`, k.editor);
    expect(restored.json().content.children[0].text).to.equal('v2');
    expect((await k.call('GET', `${url}/versions`, k.reader)).json()[0].id).not.to.equal(versions[0].id);
    expect((await k.call('GET', `${url}/versions/00000000-0000-4000-8000-000000000000`, k.reader)).statusCode).to.equal(
      404,
    );
  });

  it('validates the node tree and names the bad node', async () => {
    const base = { websiteId: site.id, locale: 'en', path: '/bad', title: 't' };
    const cases: Array<[unknown, string]> = [
      [
        {
          type: 'div',
          children: [
            { type: 'p' },
            { type: 'p' },
            { type: 'p' },
            { type: 'a', props: { href: 'javascript:alert(1)' } },
          ],
        },
        'content.children.3.props.href',
      ],
      [
        { type: 'div', children: [{ type: 'a', props: { href: ' JaVa\tScript:alert(1)' } }] },
        'content.children.0.props.href',
      ],
      [{ type: 'div', props: { onclick: 'x()' } }, 'content.props.onclick'],
      [{ type: 'div', props: { '@click': 'x()' } }, 'content.props.@click'],
      [{ type: 'script', text: 'alert(1)' }, 'content.type'],
      [{ type: 'div', props: { innerHTML: '<b>' } }, 'content.props.innerHTML'],
      [{ type: 'img', props: { src: 'data:text/html;base64,PHNjcmlwdD4=' } }, 'content.props.src'],
      [{ type: 'div', children: 'no' }, 'content.children'],
      [{ type: 'Bad Type' }, 'content.type'],
      [{ type: 'div', extra: 1 }, 'content.extra'],
      [{ type: 'div', props: { style: 'background:url(javascript:x)' } }, 'content.props.style'],
    ];
    for (const [content, field] of cases) {
      const res = await k.call('POST', '/cms-one/pages', k.editor, { ...base, content });
      expect(res.statusCode, field).to.equal(400);
      expect(res.json().field, JSON.stringify(content)).to.equal(field);
    }
    let deep: Record<string, unknown> = { type: 'div' };
    for (let i = 0; i < 100; i++) deep = { type: 'div', children: [deep] };
    expect((await k.call('POST', '/cms-one/pages', k.editor, { ...base, content: deep })).statusCode).to.equal(400);
    const ok = await k.call('POST', '/cms-one/pages', k.editor, {
      ...base,
      content: { type: 'a', props: { href: 'https://example.test', className: 'x' }, text: '<b>' },
    });
    expect(ok.statusCode).to.equal(201);
  });

  it('refuses bad paths, unknown websites and locales, duplicates, a dynamic path without a class', async () => {
    const base = { websiteId: site.id, locale: 'en', title: 't' };
    expect((await k.call('POST', '/cms-one/pages', k.editor, { ...base, path: 'no-slash' })).json().field).to.equal(
      'path',
    );
    expect((await k.call('POST', '/cms-one/pages', k.editor, { ...base, path: '/a b' })).json().field).to.equal('path');
    expect((await k.call('POST', '/cms-one/pages', k.editor, { ...base, path: '/blog/:slug' })).json().field).to.equal(
      'dataClass',
    );
    expect(
      (await k.call('POST', '/cms-one/pages', k.editor, { ...base, path: '/x', locale: 'fr' })).json().field,
    ).to.equal('locale');
    expect(
      (
        await k.call('POST', '/cms-one/pages', k.editor, {
          ...base,
          path: '/x',
          websiteId: '00000000-0000-4000-8000-000000000000',
        })
      ).json().field,
    ).to.equal('websiteId');
    await k.createPage({ websiteId: site.id, path: '/dup' });
    const dup = await k.call('POST', '/cms-one/pages', k.editor, { ...base, path: '/dup' });
    expect(dup.statusCode).to.equal(409);
    expect(dup.json().code).to.equal('UNIQUE_VIOLATION');
  });

  it('thumbnail: png/jpeg/webp data URL checked by magic bytes, under 400k characters, null clears', async () => {
    const page = await k.createPage({ websiteId: site.id, path: '/thumb' });
    const url = `/cms-one/pages/${page.id}/thumbnail`;
    expect((await k.call('PUT', url, k.editor, { thumbnail: PNG })).json().thumbnail).to.equal(PNG);
    const lie = 'data:image/jpeg;base64,' + PNG.split(',')[1];
    expect((await k.call('PUT', url, k.editor, { thumbnail: lie })).json().field).to.equal('thumbnail');
    expect(
      (await k.call('PUT', url, k.editor, { thumbnail: 'data:image/svg+xml;base64,PHN2Zz4=' })).statusCode,
    ).to.equal(400);
    expect(
      (await k.call('PUT', url, k.editor, { thumbnail: 'data:image/png;base64,' + 'A'.repeat(400_000) })).statusCode,
    ).to.equal(400);
    const cleared = await k.call('PUT', url, k.editor, { thumbnail: null });
    expect(cleared.json(), cleared.body).to.have.property('thumbnail', null);
  });

  it('translations of a group; delete announces unpublished and deleted', async () => {
    const en = await k.createPage({ websiteId: site.id, path: '/tr', published: true });
    const de = await k.createPage({
      websiteId: site.id,
      path: '/tr',
      locale: 'de',
      translationGroupId: en.translationGroupId,
    });
    const twice = await k.call('POST', '/cms-one/pages', k.editor, {
      websiteId: site.id,
      locale: 'de',
      path: '/tr-2',
      title: 't',
      translationGroupId: en.translationGroupId,
    });
    expect(twice.statusCode).to.equal(409);
    expect(twice.json().field).to.equal('translationGroupId');
    const list = (await k.call('GET', `/cms-one/pages/${en.id}/translations`, k.reader)).json();
    expect(list.map((p: { locale: string }) => p.locale)).to.deep.equal(['de', 'en']);
    k.clearEvents();
    expect((await k.call('DELETE', `/cms-one/pages/${en.id}`, k.editor)).statusCode).to.equal(204);
    expect(k.events.map((e) => e.kind)).to.deep.equal(['unpublished', 'deleted']);
    expect((await k.call('GET', `/cms-one/pages/${en.id}`, k.reader)).statusCode).to.equal(404);
    expect((await k.call('GET', `/cms-one/pages/${de.id}`, k.reader)).statusCode).to.equal(200);
  });

  it('permissions: 401 without session, 403 without the key; function-level keys work alone', async () => {
    const page = await k.createPage({ websiteId: site.id, path: '/perm' });
    const v = '00000000-0000-4000-8000-000000000000';
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/cms-one/pages'],
      ['POST', '/cms-one/pages', { websiteId: site.id, locale: 'en', path: '/p', title: 't' }],
      ['GET', `/cms-one/pages/${page.id}`],
      ['PATCH', `/cms-one/pages/${page.id}`, { title: 'x' }],
      ['DELETE', `/cms-one/pages/${page.id}`],
      ['PUT', `/cms-one/pages/${page.id}/thumbnail`, { thumbnail: null }],
      ['GET', `/cms-one/pages/${page.id}/versions`],
      ['GET', `/cms-one/pages/${page.id}/versions/${v}`],
      ['GET', `/cms-one/pages/${page.id}/versions/${v}/diff`],
      ['POST', `/cms-one/pages/${page.id}/versions/${v}/restore`],
      ['GET', `/cms-one/pages/${page.id}/translations`],
    ];
    for (const [method, url, body] of routes) {
      expect((await k.call(method, url, null, body)).statusCode, `${method} ${url}`).to.equal(401);
      expect((await k.call(method, url, k.nobody, body)).statusCode, `${method} ${url}`).to.equal(403);
      if (method !== 'GET')
        expect((await k.call(method, url, k.reader, body)).statusCode, `${method} ${url}`).to.equal(403);
    }
    const pageEditor = await k.t.createUser({ permissions: ['pages:edit'] });
    expect((await k.call('PATCH', `/cms-one/pages/${page.id}`, pageEditor, { title: 'by key' })).statusCode).to.equal(
      200,
    );
    expect((await k.call('DELETE', `/cms-one/pages/${page.id}`, pageEditor)).statusCode).to.equal(403);
    const deleter = await k.t.createUser({ permissions: ['pages:delete'] });
    expect((await k.call('DELETE', `/cms-one/pages/${page.id}`, deleter)).statusCode).to.equal(204);
    expect((await k.call('GET', '/cms-one/pages?limit=0', k.reader)).json().field).to.equal('limit');
  });
});

describe('content: pages with ENFORCE_PUBLISH_PERMISSION=0', () => {
  it('lets a writer without objects:publish publish and unpublish', async () => {
    const k = await startContentKernel({ env: { ENFORCE_PUBLISH_PERMISSION: '0' } });
    try {
      const site = await k.createWebsite();
      const page = await k.createPage({ websiteId: site.id, path: '/free', published: true }, k.editor);
      expect(page.published).to.equal(true);
      const off = await k.call('PATCH', `/cms-one/pages/${page.id}`, k.editor, { published: false });
      expect(off.json().published).to.equal(false);
    } finally {
      await k.t.close();
    }
  });
});
