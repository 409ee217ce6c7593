import { expect } from 'chai';
import { type ContentKernel, startContentKernel } from './content-kernel.ts';

describe('content: canvases and edit preconditions of templates, kits and layout templates', () => {
  let k: ContentKernel;
  before(async () => {
    k = await startContentKernel();
  });
  after(() => k.t.close());

  const missing = '00000000-0000-4000-8000-000000000000';

  const themedSite = async () => {
    const site = await k.createWebsite();
    const theme = await k.call('POST', `/cms-one/websites/${site.id}/themes`, k.admin, {
      name: 'Warm',
      colors: { background: '#fff8f0', primary: '#b04000' },
    });
    expect(theme.statusCode, theme.body).to.equal(201);
    await k.call('PUT', `/cms-one/websites/${site.id}/theme`, k.admin, { themeId: theme.json().id });
    return site as { id: string };
  };

  const template = async (content: unknown = { type: 'section', children: [{ type: 'h2', text: 'Hero' }] }) => {
    const res = await k.call('POST', '/cms-one/templates', k.editor, {
      path: `/${k.unique('t')}`,
      name: k.unique('Template '),
      content,
    });
    expect(res.statusCode, res.body).to.equal(201);
    return res.json() as { id: string; name: string };
  };

  const layout = async (siteId: string) => {
    const res = await k.call('POST', `/cms-one/websites/${siteId}/templates`, k.admin, {
      name: 'Main',
      isDefault: true,
      regions: {
        header: { type: 'nav', children: [{ type: 'a', props: { href: '/' }, text: 'Home' }] },
        footer: { type: 'p', text: 'Footer text' },
        notFound: { type: 'h1', text: 'Lost' },
      },
      slots: { body: { className: 'site-main' } },
    });
    expect(res.statusCode, res.body).to.equal(201);
    return res.json() as { id: string };
  };

  describe('templates', () => {
    it("draws a template in a website's active theme, the unsaved content marked with its paths; stores nothing", async () => {
      const site = await themedSite();
      const t = await template();
      const url = `/cms-one/templates/${t.id}/canvas`;
      const stored = await k.call('POST', url, k.reader, { websiteId: site.id });
      expect(stored.statusCode, stored.body).to.equal(200);
      expect(stored.headers['content-type']).to.match(/^text\/html/);
      expect(stored.headers['content-security-policy']).to.contain('sandbox');
      expect(stored.body).to.contain('--cms-color-background:#fff8f0');
      expect(stored.body).to.contain(
        '<main><section data-cms-node="r"><h2 data-cms-node="r.0">Hero</h2></section></main>',
      );
      expect(stored.body).not.to.contain('<script');

      const draft = await k.call('POST', url, k.reader, {
        websiteId: site.id,
        content: { type: 'div', children: [{ type: 'p', text: 'Unsaved' }] },
        theme: { colors: { background: '#000000' } },
      });
      expect(draft.statusCode, draft.body).to.equal(200);
      expect(draft.body).to.contain('<div data-cms-node="r"><p data-cms-node="r.0">Unsaved</p></div>');
      expect(draft.body).to.contain('--cms-color-background:#000000');
      expect(draft.body).not.to.contain('#fff8f0');
      // Without a website: no theme but the base sheet.
      const plain = await k.call('POST', url, k.reader, {});
      expect(plain.statusCode).to.equal(200);
      expect(plain.body).to.contain(':root{}');
      expect((await k.call('GET', `/cms-one/templates/${t.id}`, k.reader)).json().content.children[0].text).to.equal(
        'Hero',
      );
    });

    it('refuses a bad tree, a theme value that leaves its declaration and an unknown website (400 naming them)', async () => {
      const t = await template();
      const url = `/cms-one/templates/${t.id}/canvas`;
      const script = await k.call('POST', url, k.reader, {
        content: { type: 'a', props: { href: 'javascript:alert(1)' } },
      });
      expect(script.statusCode).to.equal(400);
      expect(script.json().field).to.equal('content.props.href');
      const value = await k.call('POST', url, k.reader, { theme: { colors: { text: 'red}</style>' } } });
      expect(value.statusCode).to.equal(400);
      expect(value.json().field).to.equal('theme.colors.text');
      const site = await k.call('POST', url, k.reader, { websiteId: missing });
      expect(site.statusCode).to.equal(400);
      expect(site.json().field).to.equal('websiteId');
    });

    it('needs a session and objects:read; an unknown template is 404', async () => {
      const t = await template();
      expect((await k.call('POST', `/cms-one/templates/${t.id}/canvas`, null, {})).statusCode).to.equal(401);
      expect((await k.call('POST', `/cms-one/templates/${t.id}/canvas`, k.nobody, {})).statusCode).to.equal(403);
      expect((await k.call('POST', `/cms-one/templates/${missing}/canvas`, k.reader, {})).statusCode).to.equal(404);
    });

    it('ETag and If-Match: a stale save answers 412 EDIT_CONFLICT and writes nothing; saving needs templates:edit', async () => {
      const t = await template();
      const url = `/cms-one/templates/${t.id}`;
      const read = await k.call('GET', url, k.reader);
      const tag = read.headers.etag as string;
      expect(tag).to.equal(`"${read.json().updatedAt}"`);
      const first = await k.call('PATCH', url, k.editor, { name: 'Tab one' }, { 'if-match': tag });
      expect(first.statusCode, first.body).to.equal(200);
      expect(first.headers.etag).to.equal(`"${first.json().updatedAt}"`);
      expect(first.headers.etag).not.to.equal(tag);
      const stale = await k.call(
        'PATCH',
        url,
        k.editor,
        { name: 'Tab two', content: { type: 'p', text: 'lost?' } },
        { 'if-match': tag },
      );
      expect(stale.statusCode).to.equal(412);
      expect(stale.json().code).to.equal('EDIT_CONFLICT');
      const now = (await k.call('GET', url, k.reader)).json();
      expect(now.name).to.equal('Tab one');
      expect(now.content.children[0].text).to.equal('Hero');
      expect((await k.call('PATCH', url, k.editor, { name: 'Over' }, { 'if-match': '*' })).statusCode).to.equal(200);
      expect((await k.call('PATCH', url, k.reader, { name: 'x' })).statusCode).to.equal(403);
      expect((await k.call('PATCH', url, null, { name: 'x' })).statusCode).to.equal(401);
      const bad = await k.call('PATCH', url, k.editor, { content: { type: 'p', props: { onclick: 'x()' } } });
      expect(bad.statusCode).to.equal(400);
      expect(bad.json().field).to.equal('content.props.onclick');
    });
  });

  describe('kits', () => {
    it('reorders and removes templates with PATCH and If-Match; a stale tag or an unknown template writes nothing', async () => {
      const [a, b, c] = [await template(), await template(), await template()];
      const kit = await k.call('POST', '/cms-one/kits', k.editor, {
        name: k.unique('Kit '),
        templateIds: [a.id, b.id],
      });
      expect(kit.statusCode, kit.body).to.equal(201);
      const url = `/cms-one/kits/${kit.json().id}`;
      const tag = (await k.call('GET', url, k.reader)).headers.etag as string;
      expect(tag).to.match(/^"\d{4}-/);
      const appended = await k.call('POST', `${url}/templates`, k.editor, { templateId: c.id }, { 'if-match': tag });
      expect(appended.statusCode, appended.body).to.equal(200);
      const next = appended.headers.etag as string;
      expect(next).not.to.equal(tag);

      const stale = await k.call('PATCH', url, k.editor, { templateIds: [c.id] }, { 'if-match': tag });
      expect(stale.statusCode).to.equal(412);
      expect(stale.json().code).to.equal('EDIT_CONFLICT');
      const unknown = await k.call('PATCH', url, k.editor, { templateIds: [a.id, missing] }, { 'if-match': next });
      expect(unknown.statusCode).to.equal(400);
      expect(unknown.json().field).to.equal('templateIds.1');
      expect((await k.call('GET', url, k.reader)).json().templateIds).to.deep.equal([a.id, b.id, c.id]);

      const reordered = await k.call('PATCH', url, k.editor, { templateIds: [c.id, a.id] }, { 'if-match': next });
      expect(reordered.statusCode, reordered.body).to.equal(200);
      expect(reordered.json().templateIds).to.deep.equal([c.id, a.id]);
      expect(reordered.headers.etag).to.equal(`"${reordered.json().updatedAt}"`);
      expect((await k.call('GET', url, k.reader)).json().templateIds).to.deep.equal([c.id, a.id]);
    });

    it('PATCH needs a session and templates:edit; an unknown kit is 404', async () => {
      const kit = (await k.call('POST', '/cms-one/kits', k.editor, { name: k.unique('Kit ') })).json();
      expect((await k.call('PATCH', `/cms-one/kits/${kit.id}`, null, { templateIds: [] })).statusCode).to.equal(401);
      expect((await k.call('PATCH', `/cms-one/kits/${kit.id}`, k.reader, { templateIds: [] })).statusCode).to.equal(
        403,
      );
      expect((await k.call('PATCH', `/cms-one/kits/${missing}`, k.editor, { templateIds: [] })).statusCode).to.equal(
        404,
      );
    });
  });

  describe('layout templates', () => {
    it('draws the whole layout in the theme with a placeholder for the page; the edited region is the marked one', async () => {
      const site = await themedSite();
      const l = await layout(site.id);
      const url = `/cms-one/websites/${site.id}/templates/${l.id}/canvas`;
      const res = await k.call('POST', url, k.reader, { region: 'header' });
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.headers['content-security-policy']).to.contain('sandbox');
      const html = res.body;
      expect(html).to.contain('--cms-color-primary:#b04000');
      expect(html).to.contain(
        '<header data-cms-region="header"><nav data-cms-node="r"><a href="/" data-cms-node="r.0">Home</a></nav></header>',
      );
      expect(html).to.match(
        /<main class="site-main"><div data-cms-placeholder[^>]*>The page's content goes here<\/div><\/main>/,
      );
      expect(html).to.contain('<footer data-cms-region="footer"><p>Footer text</p></footer>');
      expect(html).not.to.contain('Lost');

      // Unsaved regions over the stored ones; the notFound region shows in the page's place.
      const draft = await k.call('POST', url, k.reader, {
        region: 'notFound',
        regions: { notFound: { type: 'h1', text: 'Nothing here' }, header: null },
      });
      expect(draft.statusCode, draft.body).to.equal(200);
      expect(draft.body).to.contain('<main class="site-main"><h1 data-cms-node="r">Nothing here</h1></main>');
      expect(draft.body).not.to.contain('<header');
      expect(draft.body).not.to.contain('data-cms-placeholder');
      const stored = (await k.call('GET', `/cms-one/websites/${site.id}/templates/${l.id}`, k.reader)).json();
      expect(stored.regions.notFound.text).to.equal('Lost');
    });

    it('refuses a bad region tree and an unknown region (400 naming them); 401, 403 and 404', async () => {
      const site = await k.createWebsite();
      const l = await layout(site.id);
      const url = `/cms-one/websites/${site.id}/templates/${l.id}/canvas`;
      const bad = await k.call('POST', url, k.reader, {
        regions: { footer: { type: 'p', props: { href: 'javascript:x()' } } },
      });
      expect(bad.statusCode).to.equal(400);
      expect(bad.json().field).to.equal('regions.footer.props.href');
      const unknown = await k.call('POST', url, k.reader, { regions: { sidebar: { type: 'p' } } });
      expect(unknown.statusCode).to.equal(400);
      expect(unknown.json().field).to.equal('regions.sidebar');
      expect((await k.call('POST', url, null, {})).statusCode).to.equal(401);
      expect((await k.call('POST', url, k.nobody, {})).statusCode).to.equal(403);
      const other = await k.createWebsite();
      expect(
        (await k.call('POST', `/cms-one/websites/${other.id}/templates/${l.id}/canvas`, k.reader, {})).statusCode,
      ).to.equal(404);
    });

    it('ETag and If-Match: a stale save answers 412 EDIT_CONFLICT and writes nothing; saving needs websites:edit', async () => {
      const site = await k.createWebsite();
      const l = await layout(site.id);
      const url = `/cms-one/websites/${site.id}/templates/${l.id}`;
      const tag = (await k.call('GET', url, k.reader)).headers.etag as string;
      const header = { type: 'nav', children: [{ type: 'a', props: { href: '/' }, text: 'Start' }] };
      const first = await k.call('PATCH', url, k.admin, { regions: { header } }, { 'if-match': tag });
      expect(first.statusCode, first.body).to.equal(200);
      expect(first.headers.etag).to.equal(`"${first.json().updatedAt}"`);
      const stale = await k.call('PATCH', url, k.admin, { name: 'Stale', regions: {} }, { 'if-match': tag });
      expect(stale.statusCode).to.equal(412);
      expect(stale.json().code).to.equal('EDIT_CONFLICT');
      const now = (await k.call('GET', url, k.reader)).json();
      expect(now.name).to.equal('Main');
      expect(now.regions.header.children[0].text).to.equal('Start');
      expect((await k.call('PATCH', url, k.reader, { name: 'x' })).statusCode).to.equal(403);
      expect((await k.call('PATCH', url, null, { name: 'x' })).statusCode).to.equal(401);
    });
  });
});
