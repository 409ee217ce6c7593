import { expect } from 'chai';
import { type ContentKernel, startContentKernel } from './content-kernel.ts';

const BROWSER = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

describe('content: the public page in its layout and theme, and menus rendered from website paths', () => {
  let k: ContentKernel;
  before(async () => {
    k = await startContentKernel();
  });
  after(() => k.t.close());

  const ok = async (res: ReturnType<ContentKernel['call']>, status = 200) => {
    const answer = await res;
    expect(answer.statusCode, answer.body).to.equal(status);
    return answer.json();
  };
  const html = async (root: string, path: string, locale?: string) => {
    const url = locale ? `/public/pages/${locale}${root}${path}` : `/public/page${root}${path}`;
    const res = await k.call('GET', url, null, undefined, BROWSER);
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.headers['content-type']).to.equal('text/html; charset=utf-8');
    return { body: res.body, etag: res.headers.etag as string };
  };
  const entry = (websiteId: string, body: Record<string, unknown>) =>
    ok(k.call('POST', '/cms-one/website-paths', k.admin, { websiteId, ...body }), 201);
  const canvasOf = async (pageId: string) => {
    const res = await k.call('POST', `/cms-one/pages/${pageId}/canvas`, k.reader, {});
    expect(res.statusCode, res.body).to.equal(200);
    return res.body;
  };

  it('serves the page in the layout chosen for its path and locale and in the active theme, SEO head kept; the canvas draws the same document', async () => {
    const site = await k.createWebsite();
    await ok(
      k.call('POST', `/cms-one/websites/${site.id}/templates`, k.admin, {
        name: 'Main',
        isDefault: true,
        regions: {
          header: { type: 'p', text: 'Site <header>' },
          aside: { type: 'p', text: 'Aside' },
          main: { type: 'p', props: { className: 'lead' }, text: 'Before the page' },
          footer: { type: 'p', text: 'Footer' },
        },
        slots: { body: { className: 'site-main', style: 'padding:1rem' } },
      }),
      201,
    );
    await ok(
      k.call('POST', `/cms-one/websites/${site.id}/templates`, k.admin, {
        name: 'Blog',
        pathPatterns: ['/blog/*'],
        regions: { header: { type: 'p', text: 'Blog header' } },
      }),
      201,
    );
    await ok(
      k.call('POST', `/cms-one/websites/${site.id}/templates`, k.admin, {
        name: 'German',
        locale: 'de',
        pathPatterns: ['*'],
        regions: { header: { type: 'p', text: 'Kopf' } },
      }),
      201,
    );
    const theme = await ok(
      k.call('POST', `/cms-one/websites/${site.id}/themes`, k.admin, {
        name: 'Dark',
        colors: { background: '#101010', broken: 'red;}body{display:none' },
        customStyles: 'h1{letter-spacing:2px}',
      }),
      201,
    );
    await ok(k.call('PUT', `/cms-one/websites/${site.id}/theme`, k.admin, { themeId: theme.id }));
    const page = await k.createPage({
      websiteId: site.id,
      path: '/about',
      title: 'About',
      published: true,
      seo: { title: 'About us', description: 'Who we are' },
      content: { type: 'section', children: [{ type: 'h1', text: 'About' }] },
    });

    const { body } = await html(site.rootPath, '/about');
    expect(body).to.contain('<title>About us</title>');
    expect(body).to.contain('<meta name="description" content="Who we are">');
    expect(body).to.match(
      /<style data-cms-theme>:root\{--cms-color-background:#101010\}[^<]*h1\{letter-spacing:2px\}<\/style>/,
    );
    // A stored value that could leave its declaration is left out, not a failing page.
    expect(body).not.to.contain('display:none');
    expect(body).to.contain(
      '<body>\n<header data-cms-region="header"><p>Site &lt;header&gt;</p></header>\n' +
        '<aside data-cms-region="aside"><p>Aside</p></aside>\n' +
        '<main class="site-main" style="padding:1rem"><p class="lead">Before the page</p><section><h1>About</h1></section></main>\n' +
        '<footer data-cms-region="footer"><p>Footer</p></footer>\n</body>',
    );
    // The editor's canvas is this document with the page's nodes marked.
    const canvas = await canvasOf(page.id);
    expect(canvas).to.contain('<section data-cms-node="r"><h1 data-cms-node="r.0">About</h1></section>');
    expect(canvas.replace(/ data-cms-node="[^"]*"/g, '')).to.equal(body);

    // The most specific path pattern wins; a locale's own layout wins for that locale.
    await k.createPage({ websiteId: site.id, path: '/blog/first', title: 'First', published: true });
    expect((await html(site.rootPath, '/blog/first')).body).to.contain(
      '<header data-cms-region="header"><p>Blog header</p>',
    );
    await k.createPage({ websiteId: site.id, locale: 'de', path: '/about', title: 'Über', published: true });
    expect((await html(site.rootPath, '/about', 'de')).body).to.contain('<header data-cms-region="header"><p>Kopf</p>');
    // Static builds (the publish plugin) write the live answer's bytes.
    const located = await k.services().directory.byId(site.id);
    expect(await k.services().pageHtml(located!, 'en', '/about')).to.equal(body);
  });

  it('shows a layout or theme change on the next request, with a new validator', async () => {
    const site = await k.createWebsite();
    await k.createPage({ websiteId: site.id, path: '/', title: 'Home', published: true });
    const first = await html(site.rootPath, '/');
    expect(first.body).not.to.contain('<header');

    const layout = await ok(
      k.call('POST', `/cms-one/websites/${site.id}/templates`, k.admin, {
        name: 'Main',
        isDefault: true,
        regions: { header: { type: 'p', text: 'One' } },
      }),
      201,
    );
    const withLayout = await html(site.rootPath, '/');
    expect(withLayout.body).to.contain('<header data-cms-region="header"><p>One</p></header>');
    expect(withLayout.etag).not.to.equal(first.etag);
    await ok(
      k.call('PATCH', `/cms-one/websites/${site.id}/templates/${layout.id}`, k.admin, {
        regions: { header: { type: 'p', text: 'Two' } },
      }),
    );
    expect((await html(site.rootPath, '/')).body).to.contain('<p>Two</p>');

    const light = await ok(
      k.call('POST', `/cms-one/websites/${site.id}/themes`, k.admin, { name: 'Light', customStyles: 'p{color:#111}' }),
      201,
    );
    const dark = await ok(
      k.call('POST', `/cms-one/websites/${site.id}/themes`, k.admin, { name: 'Dark', customStyles: 'p{color:#eee}' }),
      201,
    );
    await ok(k.call('PUT', `/cms-one/websites/${site.id}/theme`, k.admin, { themeId: light.id }));
    expect((await html(site.rootPath, '/')).body).to.contain('p{color:#111}');
    await ok(k.call('PUT', `/cms-one/websites/${site.id}/theme`, k.admin, { themeId: dark.id }));
    const darkPage = (await html(site.rootPath, '/')).body;
    expect(darkPage).to.contain('p{color:#eee}').and.not.to.contain('p{color:#111}');
    await ok(
      k.call('PUT', `/cms-one/websites/${site.id}/themes/${dark.id}`, k.admin, { customStyles: 'p{color:#ccc}' }),
    );
    expect((await html(site.rootPath, '/')).body).to.contain('p{color:#ccc}');

    expect(
      (await k.call('DELETE', `/cms-one/websites/${site.id}/templates/${layout.id}`, k.admin)).statusCode,
    ).to.be.oneOf([200, 204]);
    expect((await html(site.rootPath, '/')).body).not.to.contain('<header');
  });

  it('renders a menu node as the website menu: order, nesting, escaped labels, the current page marked, unusable entries decided', async () => {
    const site = await k.createWebsite();
    const root = site.rootPath;
    const page = (path: string, published = true, extra: Record<string, unknown> = {}) =>
      k.createPage({
        websiteId: site.id,
        path,
        title: path,
        published,
        content: { type: 'section', children: [{ type: 'menu', props: { label: 'Main' } }] },
        ...extra,
      });
    const home = await page('/');
    const about = await page('/about');
    const team = await page('/team');
    const draft = await page('/draft', false);
    const aboutDe = await page('/ueber-uns', true, { locale: 'de', translationGroupId: about.translationGroupId });

    const a = await entry(site.id, { label: 'About <us> & "co"', pageId: about.id, position: 2 });
    await entry(site.id, { label: 'Draft', pageId: draft.id, parentId: a.id, position: 1 });
    await entry(site.id, { label: 'Team', pageId: team.id, parentId: a.id, position: 0 });
    await entry(site.id, { label: 'Home', pageId: home.id, position: 1 });
    await entry(site.id, { label: 'Shop', path: 'https://shop.example/?a=1&b=2', position: 3 });
    const group = await entry(site.id, { label: 'Group', position: 4 });
    await entry(site.id, { label: 'Anchor', path: '#top', parentId: group.id });
    const hidden = await entry(site.id, { label: 'Drafts', pageId: draft.id, position: 5 });
    await entry(site.id, { label: 'Team again', pageId: team.id, parentId: hidden.id });
    await entry(site.id, { label: 'Empty heading', position: 6 });
    await entry(site.id, { label: 'Unpublished leaf', pageId: draft.id, position: 7 });
    await entry(site.id, { label: 'Our own address', path: `${root}/team`, position: 8 });

    const nav = (current: string) =>
      '<nav aria-label="Main" class="cms-menu"><ul>' +
      `<li><a href="${root}"${current === 'home' ? ' aria-current="page"' : ''}>Home</a></li>` +
      `<li><a href="${root}/about"${current === 'about' ? ' aria-current="page"' : ''}>About &lt;us&gt; &amp; &quot;co&quot;</a>` +
      `<ul><li><a href="${root}/team"${current === 'team' ? ' aria-current="page"' : ''}>Team</a></li></ul></li>` +
      '<li><a href="https://shop.example/?a=1&amp;b=2">Shop</a></li>' +
      '<li><span>Group</span><ul><li><a href="#top">Anchor</a></li></ul></li>' +
      `<li><span>Drafts</span><ul><li><a href="${root}/team"${current === 'team' ? ' aria-current="page"' : ''}>Team again</a></li></ul></li>` +
      `<li><a href="${root}/team"${current === 'team' ? ' aria-current="page"' : ''}>Our own address</a></li>` +
      '</ul></nav>';
    expect((await html(root, '/team')).body).to.contain(`<main><section>${nav('team')}</section></main>`);
    expect((await html(root, '/about')).body).to.contain(nav('about'));
    expect((await html(root, '/')).body).to.contain(nav('home'));

    // Another locale links to the linked page's variant in that locale, else to the page itself.
    const german = (await html(root, '/ueber-uns', 'de')).body;
    expect(german).to.contain(`<a href="/public/pages/de${root}/ueber-uns" aria-current="page">About`);
    expect(german).to.contain(`<a href="${root}/team">Team</a>`);
    expect(aboutDe.locale).to.equal('de');

    // Publishing the draft shows its entries on the next request; a menu change too.
    await ok(k.call('PATCH', `/cms-one/pages/${draft.id}`, k.publisher, { published: true }));
    const published = (await html(root, '/team')).body;
    expect(published).to.contain(`<li><a href="${root}/draft">Unpublished leaf</a></li>`);
    expect(published).to.contain(`<a href="${root}/draft">Draft</a>`);
    await ok(k.call('PATCH', `/cms-one/website-paths/${a.id}`, k.admin, { label: 'About', position: 0 }));
    expect((await html(root, '/team')).body).to.contain(
      `<nav aria-label="Main" class="cms-menu"><ul><li><a href="${root}/about">About</a>`,
    );

    // The canvas marks the menu node's element only: its links are not the page's nodes.
    const canvas = await canvasOf(team.id);
    expect(canvas).to.contain('<nav aria-label="Main" class="cms-menu" data-cms-node="r.0"><ul><li><a href=');
    expect(canvas.match(/data-cms-node/g)).to.have.length(2);
  });

  it('expands menus in layout regions, down to the depth asked for; a website without entries gets an empty navigation', async () => {
    const site = await k.createWebsite();
    await ok(
      k.call('POST', `/cms-one/websites/${site.id}/templates`, k.admin, {
        name: 'Main',
        isDefault: true,
        regions: { header: { type: 'menu', props: { depth: 1, className: 'top' } } },
      }),
      201,
    );
    const page = await k.createPage({ websiteId: site.id, path: '/p', title: 'P', published: true });
    expect((await html(site.rootPath, '/p')).body).to.contain(
      '<header data-cms-region="header"><nav aria-label="Menu" class="cms-menu top"></nav></header>',
    );
    const top = await entry(site.id, { label: 'Top', pageId: page.id });
    await entry(site.id, { label: 'Below', path: '/below', parentId: top.id });
    expect((await html(site.rootPath, '/p')).body).to.contain(
      `<header data-cms-region="header"><nav aria-label="Menu" class="cms-menu top"><ul><li><a href="${site.rootPath}/p" aria-current="page">Top</a></li></ul></nav></header>`,
    );
    // The same region on another page marks that page, and each page keeps its own marking.
    const other = await k.createPage({ websiteId: site.id, path: '/q', title: 'Q', published: true });
    await entry(site.id, { label: 'Other', pageId: other.id, position: 1 });
    const links = (body: string) => body.match(/<header[\s\S]*<\/header>/)?.[0].match(/<a [^>]*>[^<]*/g);
    for (let round = 0; round < 2; round++) {
      expect(links((await html(site.rootPath, '/q')).body)).to.deep.equal([
        `<a href="${site.rootPath}/p">Top`,
        `<a href="${site.rootPath}/q" aria-current="page">Other`,
      ]);
      expect(links((await html(site.rootPath, '/p')).body)).to.deep.equal([
        `<a href="${site.rootPath}/p" aria-current="page">Top`,
        `<a href="${site.rootPath}/q">Other`,
      ]);
    }
  });
});
