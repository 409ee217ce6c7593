import { expect } from 'chai';
import { startContentKernel, type ContentKernel } from './content-kernel.ts';

describe('content: templates, kits, layouts, website paths, themes', () => {
  let k: ContentKernel;
  let site: { id: string; rootPath: string };
  before(async () => {
    k = await startContentKernel();
    site = await k.createWebsite();
  });
  after(() => k.t.close());

  it('templates have a unique path; kits collect templates in order', async () => {
    const path = `/t/${k.unique('x')}`;
    const t1 = await k.call('POST', '/cms-one/templates', k.editor, {
      path,
      name: 'One',
      content: { type: 'p', text: 'tpl' },
    });
    expect(t1.statusCode).to.equal(201);
    const dup = await k.call('POST', '/cms-one/templates', k.editor, { path, name: 'Two' });
    expect(dup.statusCode).to.equal(409);
    expect(dup.json()).to.include({ code: 'UNIQUE_VIOLATION', field: 'path' });
    const t2 = (await k.call('POST', '/cms-one/templates', k.editor, { path: `${path}2`, name: 'Two' })).json();
    expect(
      (
        await k.call('PATCH', `/cms-one/templates/${t2.id}`, k.editor, {
          content: { type: 'a', props: { href: 'vbscript:x' } },
        })
      ).json().field,
    ).to.equal('content.props.href');
    expect((await k.call('PATCH', `/cms-one/templates/${t2.id}`, k.editor, { name: 'Renamed' })).json().name).to.equal(
      'Renamed',
    );
    const kit = await k.call('POST', '/cms-one/kits', k.editor, { name: k.unique('kit'), templateIds: [t1.json().id] });
    expect(kit.statusCode).to.equal(201);
    const appended = await k.call('POST', `/cms-one/kits/${kit.json().id}/templates`, k.editor, { templateId: t2.id });
    expect(appended.json().templateIds).to.deep.equal([t1.json().id, t2.id]);
    expect(
      (
        await k.call('POST', `/cms-one/kits/${kit.json().id}/templates`, k.editor, {
          templateId: '00000000-0000-4000-8000-000000000000',
        })
      ).json().field,
    ).to.equal('templateId');
    expect(
      (
        await k.call('POST', '/cms-one/kits', k.editor, {
          name: 'k',
          templateIds: ['00000000-0000-4000-8000-000000000000'],
        })
      ).json().field,
    ).to.equal('templateIds.0');
    expect((await k.call('DELETE', `/cms-one/templates/${t1.json().id}`, k.editor)).statusCode).to.equal(204);
    expect((await k.call('GET', `/cms-one/kits/${kit.json().id}`, k.reader)).json().templateIds).to.deep.equal([t2.id]);
    expect((await k.call('DELETE', `/cms-one/kits/${kit.json().id}`, k.editor)).statusCode).to.equal(204);
    expect((await k.call('GET', `/cms-one/kits/${kit.json().id}`, k.reader)).statusCode).to.equal(404);
  });

  it('layout templates: one default per website, the most specific pattern wins for a page, 404 region public', async () => {
    const base = `/cms-one/websites/${site.id}/templates`;
    const main = await k.call('POST', base, k.editor, {
      name: 'Main',
      isDefault: true,
      slots: { body: { className: 'main', style: 'padding:1rem' } },
      regions: { header: { type: 'header', text: 'H' }, notFound: { type: 'p', text: 'Nothing here' } },
    });
    expect(main.statusCode, main.body).to.equal(201);
    const blog = (
      await k.call('POST', base, k.editor, {
        name: 'Blog',
        pathPatterns: ['/blog/*'],
        slots: { body: { className: 'blog' } },
      })
    ).json();
    const other = (await k.call('POST', base, k.editor, { name: 'Other', isDefault: true })).json();
    expect((await k.call('GET', `${base}/${main.json().id}`, k.reader)).json().isDefault).to.equal(false);
    // A publisher's save goes live (an editor's goes to the working copy: template-drafts.test.ts).
    await k.call('PATCH', `${base}/${main.json().id}`, k.publisher, { isDefault: true });
    expect((await k.call('GET', `${base}/${other.id}`, k.reader)).json().isDefault).to.equal(false);
    const post = await k.createPage({ websiteId: site.id, path: '/blog/one' });
    const about = await k.createPage({ websiteId: site.id, path: '/about-layout' });
    expect((await k.call('GET', `/cms-one/pages/${post.id}/layout`, k.reader)).json()).to.deep.include({
      layoutId: blog.id,
      body: { className: 'blog', style: '' },
    });
    expect((await k.call('GET', `/cms-one/pages/${about.id}/layout`, k.reader)).json().body).to.deep.equal({
      className: 'main',
      style: 'padding:1rem',
    });
    const nf = await k.call('GET', `/public/404/${site.id}`, null);
    expect(nf.statusCode).to.equal(200);
    expect(nf.json().content.text).to.equal('Nothing here');
    expect(
      (await k.call('POST', base, k.editor, { name: 'x', regions: { sidebar: { type: 'p' } } })).json().field,
    ).to.equal('regions.sidebar');
    expect(
      (
        await k.call('POST', base, k.editor, { name: 'x', regions: { footer: { type: 'p', props: { onclick: 'x' } } } })
      ).json().field,
    ).to.equal('regions.footer.props.onclick');
    // A slot's name is checked too (letters first): an empty or badly named one is refused, not stored.
    const badSlot = await k.call('PATCH', `${base}/${blog.id}`, k.editor, { slots: { '1st': { className: 'x' } } });
    expect(badSlot.statusCode, badSlot.body).to.equal(400);
    expect(badSlot.json().field).to.equal('slots.1st');
    expect((await k.call('PATCH', `${base}/${blog.id}`, k.editor, { slots: { '': {} } })).statusCode).to.equal(400);
    expect((await k.call('GET', `${base}/${blog.id}`, k.reader)).json().slots).to.deep.equal({
      body: { className: 'blog' },
    });
    expect(
      (await k.call('GET', `/cms-one/websites/00000000-0000-4000-8000-000000000000/templates`, k.reader)).statusCode,
    ).to.equal(404);
    expect((await k.call('DELETE', `${base}/${other.id}`, k.editor)).statusCode).to.equal(204);
  });

  it('website paths: ordered, nested, linked to a page of the website, no cycles; audited', async () => {
    const page = await k.createPage({ websiteId: site.id, path: '/menu-target' });
    const top = (
      await k.call('POST', '/cms-one/website-paths', k.editor, { websiteId: site.id, label: 'Top', position: 2 })
    ).json();
    const first = (
      await k.call('POST', '/cms-one/website-paths', k.editor, {
        websiteId: site.id,
        label: 'First',
        position: 1,
        pageId: page.id,
      })
    ).json();
    const child = await k.call('POST', '/cms-one/website-paths', k.editor, {
      websiteId: site.id,
      label: 'Child',
      parentId: top.id,
      path: '/x',
    });
    expect(child.statusCode).to.equal(201);
    const list = (await k.call('GET', `/cms-one/website-paths?websiteId=${site.id}`, k.reader)).json();
    expect(list.map((e: { label: string }) => e.label)).to.deep.equal(['Child', 'First', 'Top']);
    expect(
      (await k.call('PATCH', `/cms-one/website-paths/${top.id}`, k.editor, { parentId: child.json().id })).json().field,
    ).to.equal('parentId');
    const other = await k.createWebsite();
    const foreign = await k.createPage({ websiteId: other.id, path: '/f' });
    expect(
      (
        await k.call('POST', '/cms-one/website-paths', k.editor, { websiteId: site.id, label: 'x', pageId: foreign.id })
      ).json().field,
    ).to.equal('pageId');
    expect(
      (await k.call('PATCH', `/cms-one/website-paths/${first.id}`, k.editor, { label: 'Renamed' })).json().label,
    ).to.equal('Renamed');
    expect((await k.call('DELETE', `/cms-one/website-paths/${first.id}`, k.editor)).statusCode).to.equal(204);
    const actions = (await k.t.db('audit_log').where({ target_id: first.id }).orderBy('at')).map((r) => r.action);
    expect(actions).to.deep.equal(['website_path.create', 'website_path.update', 'website_path.delete']);
  });

  it('themes: global catalog, website catalog, one active default, themes/all; website theme writes audited with fingerprints', async () => {
    const global = await k.call('POST', '/cms-one/themes', k.editor, { name: 'Global', colors: { primary: '#000' } });
    expect(global.statusCode).to.equal(201);
    expect(
      (await k.call('PUT', `/cms-one/themes/${global.json().id}`, k.editor, { name: 'Global 2' })).json().name,
    ).to.equal('Global 2');
    expect((await k.call('GET', '/cms-one/themes', k.reader)).json().map((t: { id: string }) => t.id)).to.include(
      global.json().id,
    );
    const base = `/cms-one/websites/${site.id}/themes`;
    const a = (await k.call('POST', base, k.editor, { name: 'A', customStyles: 'body{color:red}' })).json();
    const b = (await k.call('POST', base, k.editor, { name: 'B' })).json();
    expect(
      (await k.call('POST', base, k.editor, { name: 'bad', customStyles: '</style><script>x</script>' })).json().field,
    ).to.equal('customStyles');
    expect(
      (await k.call('PUT', `/cms-one/websites/${site.id}/theme`, k.editor, { themeId: a.id })).json().theme.isDefault,
    ).to.equal(true);
    expect(
      (await k.call('PUT', `/cms-one/websites/${site.id}/theme`, k.editor, { themeId: b.id })).json().theme.id,
    ).to.equal(b.id);
    expect((await k.call('GET', `/cms-one/websites/${site.id}/theme`, k.reader)).json().theme.id).to.equal(b.id);
    expect(
      (await k.call('PUT', `/cms-one/websites/${site.id}/theme`, k.editor, { themeId: global.json().id })).json().field,
    ).to.equal('themeId');
    const all = (await k.call('GET', '/cms-one/themes/all', k.reader)).json().map((t: { id: string }) => t.id);
    expect(all).to.include.members([a.id, b.id]).and.not.include(global.json().id);
    await k.call('PUT', `${base}/${a.id}`, k.editor, { customStyles: 'body{color:blue}' });
    expect((await k.call('DELETE', `${base}/${a.id}`, k.editor)).statusCode).to.equal(204);
    expect((await k.call('PUT', `${base}/${global.json().id}`, k.editor, { name: 'x' })).statusCode).to.equal(404);
    const rows = await k.t
      .db('audit_log')
      .where({ target_id: site.id })
      .whereLike('action', 'website.theme%')
      .orderBy('at');
    expect(rows.map((r) => r.action)).to.deep.equal([
      'website.theme_create',
      'website.theme_create',
      'website.theme_set',
      'website.theme_set',
      'website.theme_update',
      'website.theme_delete',
    ]);
    expect(JSON.stringify(rows[4].after)).to.include('sha:').and.not.include('blue');
    expect(await k.t.db('audit_log').where({ target_id: global.json().id })).to.have.length(0);
  });

  it('permissions of the catalog routes', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/cms-one/templates'],
      ['POST', '/cms-one/templates', { path: '/p', name: 'n' }],
      ['GET', `/cms-one/templates/${id}`],
      ['PATCH', `/cms-one/templates/${id}`, { name: 'n' }],
      ['DELETE', `/cms-one/templates/${id}`],
      ['GET', '/cms-one/kits'],
      ['POST', '/cms-one/kits', { name: 'n' }],
      ['GET', `/cms-one/kits/${id}`],
      ['DELETE', `/cms-one/kits/${id}`],
      ['POST', `/cms-one/kits/${id}/templates`, { templateId: id }],
      ['GET', `/cms-one/websites/${site.id}/templates`],
      ['POST', `/cms-one/websites/${site.id}/templates`, { name: 'n' }],
      ['GET', `/cms-one/websites/${site.id}/templates/${id}`],
      ['PATCH', `/cms-one/websites/${site.id}/templates/${id}`, { name: 'n' }],
      ['DELETE', `/cms-one/websites/${site.id}/templates/${id}`],
      ['GET', `/cms-one/pages/${id}/layout`],
      ['GET', '/cms-one/website-paths'],
      ['POST', '/cms-one/website-paths', { websiteId: site.id, label: 'l' }],
      ['GET', `/cms-one/website-paths/${id}`],
      ['PATCH', `/cms-one/website-paths/${id}`, { label: 'l' }],
      ['DELETE', `/cms-one/website-paths/${id}`],
      ['GET', '/cms-one/themes'],
      ['GET', '/cms-one/themes/all'],
      ['POST', '/cms-one/themes', { name: 'n' }],
      ['GET', `/cms-one/themes/${id}`],
      ['PUT', `/cms-one/themes/${id}`, { name: 'n' }],
      ['DELETE', `/cms-one/themes/${id}`],
      ['GET', `/cms-one/websites/${site.id}/themes`],
      ['POST', `/cms-one/websites/${site.id}/themes`, { name: 'n' }],
      ['PUT', `/cms-one/websites/${site.id}/themes/${id}`, { name: 'n' }],
      ['DELETE', `/cms-one/websites/${site.id}/themes/${id}`],
      ['GET', `/cms-one/websites/${site.id}/theme`],
      ['PUT', `/cms-one/websites/${site.id}/theme`, { themeId: id }],
    ];
    for (const [method, url, body] of routes) {
      expect((await k.call(method, url, null, body)).statusCode, `${method} ${url}`).to.equal(401);
      expect((await k.call(method, url, k.nobody, body)).statusCode, `${method} ${url}`).to.equal(403);
      if (method !== 'GET')
        expect((await k.call(method, url, k.reader, body)).statusCode, `${method} ${url}`).to.equal(403);
    }
    expect(
      (await k.call('POST', '/cms-one/templates', k.editor, { path: 'no-slash', name: 'n' })).json().field,
    ).to.equal('path');
    expect(
      (
        await k.call('POST', '/cms-one/website-paths', k.editor, { websiteId: site.id, label: 'l', position: -1 })
      ).json().field,
    ).to.equal('position');
  });
});
