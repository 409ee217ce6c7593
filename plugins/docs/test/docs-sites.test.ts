import { expect } from 'chai';
import { startDocsKernel } from './docs-kernel.ts';

type Kit = Awaited<ReturnType<typeof startDocsKernel>>;

describe('documentation sites', function () {
  this.timeout(60_000);
  let k: Kit;
  let siteId: string;

  before(async () => {
    k = await startDocsKernel(process.env.DOCS_TEST_LOG ? { LOG_LEVEL: 'error' } : {});
    await k.put('manual/index.md', '# Handbook\n\nWelcome. See [the guide](guide/intro.md#setup).\n');
    await k.put(
      'manual/guide/intro.md',
      '---\ntitle: Introduction\norder: 1\n---\n# Intro heading\n\n## Setup\n\n```js\nconst x = 1;\n```\n\n- [x] done\n- [ ] todo\n\n| a | b |\n|---|---|\n| 1 | ~~2~~ |\n\n[missing](nope.md) ![pic](img/none.png) [secret](../internal.md)\n<script>alert(1)</script> [bad](javascript:alert(1)) <img src=x onerror=alert(1)>\n',
    );
    await k.put('manual/guide/advanced.md', '---\norder: 2\n---\n# Advanced\n\nDeep **words** zebrafish.\n');
    await k.put('manual/internal.md', '---\nvisibility: private\n---\n# Staff only\n\nThe passphrase is aardvark.\n');
    siteId = await k.site('Handbook', '/handbook', { sourceFolder: '/manual' });
  });
  after(() => k.close());

  it('answers the tree with documents, the index and the warnings', async () => {
    const res = await k.t.call('GET', `/docs-sites/${siteId}/tree`, k.reader);
    expect(res.statusCode, res.body).to.equal(200);
    const tree = res.json();
    expect(tree.documents.map((d: { path: string }) => d.path)).to.deep.equal([
      '',
      'guide/advanced',
      'guide/intro',
      'internal',
    ]);
    expect(tree.index).to.deep.equal({ kind: 'file', path: 'index.md' });
    const codes = tree.warnings.map((w: { code: string }) => w.code).sort();
    expect(codes).to.include.members(['BROKEN_LINK', 'MISSING_IMAGE', 'LINK_TO_PRIVATE']);
    const broken = tree.warnings.find((w: { code: string }) => w.code === 'BROKEN_LINK');
    expect(broken).to.include({ path: 'guide/intro.md', target: 'nope.md' });
    expect(broken.line).to.be.a('number').above(4);
    expect((await k.t.call('GET', `/docs-sites/${siteId}/tree`, k.nobody)).statusCode).to.equal(403);
    expect((await k.t.call('GET', `/docs-sites/${siteId}/tree`, null)).statusCode).to.equal(401);
  });

  it('renders Markdown safely: anchors, highlighted code, task lists, tables, rewritten links, no script', async () => {
    const res = await k.t.call('GET', `/public/docs/${siteId}/page/guide/intro`, null);
    expect(res.statusCode, res.body).to.equal(200);
    const { site, page } = res.json();
    expect(site).to.include({ websiteId: siteId, rootPath: '/handbook', title: 'Handbook' });
    expect(page.title).to.equal('Introduction');
    expect(page.headings).to.deep.include({ depth: 2, text: 'Setup', id: 'setup' });
    expect(page.html).to.contain('<h2 id="setup">');
    expect(page.html).to.contain('class="hljs language-js"');
    expect(page.html).to.contain('<input type="checkbox" disabled checked');
    expect(page.html).to.contain('<table>').and.contain('<s>2</s>');
    expect(page.html).not.to.match(/<script|<[a-z]+[^>]*\son\w+=|href="javascript:/i);
    expect(page.html).to.contain('&lt;script&gt;');
    // A public page shows a link to a private one as text, and never its address.
    expect(page.html).not.to.contain('/handbook/internal');
    expect(page.warnings).to.equal(undefined);
    expect(page.prev).to.deep.equal({ path: '', title: 'Handbook' });
    expect(page.next).to.deep.equal({ path: 'guide/advanced', title: 'Advanced' });
    const home = (await k.t.call('GET', `/public/docs/${siteId}/page/`, null)).json().page;
    expect(home.html).to.contain('href="/handbook/guide/intro#setup"');
  });

  it('keeps private documents out of the public nav, pages and index, with the same 404 as a missing one', async () => {
    const priv = await k.t.call('GET', `/public/docs/${siteId}/page/internal`, null);
    const missing = await k.t.call('GET', `/public/docs/${siteId}/page/no-such-page`, null);
    expect(priv.statusCode).to.equal(404);
    expect(missing.statusCode).to.equal(404);
    const bodyOf = (r: typeof priv) => ({ ...r.json(), requestId: undefined });
    expect(bodyOf(priv)).to.deep.equal(bodyOf(missing));
    const nav = (await k.t.call('GET', `/public/docs/${siteId}/nav`, null)).json().nav;
    expect(JSON.stringify(nav)).not.to.contain('internal').and.not.to.contain('Staff only');
    const pub = await k.t.call('GET', `/public/docs/${siteId}/search-index`, null);
    expect(pub.statusCode).to.equal(200);
    expect(pub.body).to.contain('zebrafish').and.not.to.contain('aardvark').and.not.to.contain('Staff only');
    const staff = await k.t.call('GET', `/docs-sites/${siteId}/search-index`, k.reader);
    expect(staff.body).to.contain('aardvark');
    // Staff preview the private document, with its warnings and the whole nav.
    const preview = await k.t.call('GET', `/docs-sites/${siteId}/preview/internal`, k.reader);
    expect(preview.statusCode, preview.body).to.equal(200);
    expect(preview.json().page).to.include({ title: 'Staff only', visibility: 'private' });
    expect(JSON.stringify(preview.json().nav)).to.contain('Staff only');
  });

  it('serves search indexes with an ETag and 304, loadable by MiniSearch', async () => {
    const first = await k.t.call('GET', `/public/docs/${siteId}/search-index`, null);
    const etag = first.headers.etag as string;
    expect(etag).to.match(/^"/);
    const again = await k.t.call('GET', `/public/docs/${siteId}/search-index`, null, undefined, {
      'if-none-match': etag,
    });
    expect(again.statusCode).to.equal(304);
    const { default: MiniSearch } = await import('minisearch');
    const answer = first.json();
    const search = MiniSearch.loadJSON(JSON.stringify(answer.index), answer.options);
    expect(search.search('zebrafish').map((h) => h.path)).to.deep.equal(['guide/advanced']);
    expect(search.search('aardvark')).to.have.length(0);
    // The staff index is the public one with the private documents added: both load and find.
    const staff = (await k.t.call('GET', `/docs-sites/${siteId}/search-index`, k.reader)).json();
    expect(staff.documentCount).to.equal(answer.documentCount + 1);
    const all = MiniSearch.loadJSON(JSON.stringify(staff.index), staff.options);
    expect(all.search('aardvark').map((h) => h.path)).to.deep.equal(['internal']);
    expect(all.search('zebrafish').map((h) => h.path)).to.deep.equal(['guide/advanced']);
  });

  it('shows an edit within seconds, without a build step; making a page private hides it', async () => {
    const before = await k.t.call('GET', `/public/docs/${siteId}/page/guide/advanced`, null);
    // Kept answers are the same under another spelling of the path.
    for (const spelling of ['guide//advanced/', 'guide/advanced.md', 'guide/%61dvanced'])
      expect((await k.t.call('GET', `/public/docs/${siteId}/page/${spelling}`, null)).body, spelling).to.equal(
        before.body,
      );
    await k.put('manual/guide/advanced.md', '---\norder: 2\n---\n# Advanced v2\n\nNew words okapi.\n');
    const res = await k.t.call('GET', `/public/docs/${siteId}/page/guide/advanced`, null);
    expect(res.json().page.title).to.equal('Advanced v2');
    const index = await k.t.call('GET', `/public/docs/${siteId}/search-index`, null);
    expect(index.body).to.contain('okapi').and.not.to.contain('zebrafish');
    await k.put('manual/guide/advanced.md', '---\nvisibility: private\n---\n# Advanced v3\n');
    expect((await k.t.call('GET', `/public/docs/${siteId}/page/guide/advanced`, null)).statusCode).to.equal(404);
    const nav = (await k.t.call('GET', `/public/docs/${siteId}/nav`, null)).json().nav;
    expect(JSON.stringify(nav)).not.to.contain('Advanced');
    expect((await k.t.call('GET', `/public/docs/${siteId}/search-index`, null)).body).not.to.contain('Advanced');
  });

  it('serves the HTML site at the root path, in the website theme, with CSP; private pages are 404', async () => {
    const res = await k.t.call('GET', '/public/page/handbook/guide/intro', null, undefined, { accept: 'text/html' });
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.headers['content-type']).to.contain('text/html');
    expect(res.headers['content-security-policy']).to.contain("script-src 'self'");
    expect(res.body).to.contain('aria-label="On this page"').and.contain('Last updated').and.contain('rel="prev"');
    expect(res.body).to.contain('id="docs-search"');
    const priv = await k.t.call('GET', '/public/page/handbook/internal', null, undefined, { accept: 'text/html' });
    expect(priv.statusCode).to.equal(404);
    expect(priv.body).not.to.contain('Staff only');
    const script = await k.t.call('GET', '/public/docs-assets/minisearch.js', null);
    expect(script.statusCode).to.equal(200);
    expect(script.body).to.contain('MiniSearch');
  });

  it('finds a site by its root segment, and 404 for another kind of website', async () => {
    const found = await k.t.call('GET', '/public/docs-site/handbook', null);
    expect(found.json()).to.deep.equal({ websiteId: siteId, rootPath: '/handbook', title: 'Handbook' });
    expect((await k.t.call('GET', '/public/docs-site/nothing-here', null)).statusCode).to.equal(404);
  });

  it('renders a draft and checks a nav file as you type', async () => {
    const rendered = await k.t.call('POST', `/docs-sites/${siteId}/render`, k.editor, {
      path: 'guide/intro',
      markdown: '# Draft\n\n[x](advanced.md) [y](gone.md)',
    });
    expect(rendered.statusCode, rendered.body).to.equal(200);
    expect(rendered.json().title).to.equal('Draft');
    expect(rendered.json().html).to.contain('href="/handbook/guide/advanced"');
    // advanced.md is private by now (the test before): a public draft linking to it is warned about.
    expect(rendered.json().warnings.map((w: { code: string }) => w.code)).to.deep.equal([
      'LINK_TO_PRIVATE',
      'BROKEN_LINK',
    ]);
    expect(
      (await k.t.call('POST', `/docs-sites/${siteId}/render`, k.reader, { path: 'a', markdown: '' })).statusCode,
    ).to.equal(403);

    const ok = await k.t.call('POST', `/docs-sites/${siteId}/nav/check`, k.editor, {
      text: '- /\n- title: Guide\n  children:\n    - guide/intro\n    - guide/unknown\n',
    });
    expect(ok.json().ok).to.equal(true);
    expect(ok.json().nav[1].children).to.deep.equal([{ title: 'Introduction', path: 'guide/intro' }]);
    expect(ok.json().warnings[0]).to.include({ code: 'NAV_UNKNOWN_PATH', line: 5 });
    const cycle = await k.t.call('POST', `/docs-sites/${siteId}/nav/check`, k.editor, {
      text: '- &a\n  title: x\n  children: *a\n',
    });
    expect(cycle.json().ok).to.equal(false);
    expect(cycle.json().errors[0].message).to.contain('Aliases');
    const broken = await k.t.call('POST', `/docs-sites/${siteId}/nav/check`, k.editor, { text: '- [unclosed' });
    expect(broken.json().ok).to.equal(false);
    expect(broken.json().errors[0].line).to.equal(1);
  });

  it('refuses hostile input with a 4xx or a warning, and nothing breaks', async () => {
    // A path with "..".
    const dots = await k.t.call('GET', `/public/docs/${siteId}/page/../../etc/passwd`, null);
    expect(dots.statusCode).to.be.within(400, 404);
    const dots2 = await k.t.call('GET', `/docs-sites/${siteId}/preview/guide/%2e%2e/%2e%2e/x`, k.reader);
    expect(dots2.statusCode).to.be.within(400, 404);
    // Deep nesting of lists and quotes renders (cut at a depth), quickly.
    const started = Date.now();
    const deep = await k.t.call('POST', `/docs-sites/${siteId}/render`, k.editor, {
      path: 'deep',
      markdown: `${'>'.repeat(10_000)} quote\n\n${Array.from({ length: 10_000 }, (_, i) => `${'  '.repeat(i)}- x`)
        .join('\n')
        .slice(0, 2_000_000)}`,
    });
    expect(deep.statusCode).to.equal(200);
    expect(Date.now() - started).to.be.below(10_000);
    // A front matter bomb (aliases) is a warning, and the page still renders.
    await k.put(
      'manual/bomb.md',
      '---\na: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\ntitle: Bomb\n---\n# Still here\n',
    );
    const tree = (await k.t.call('GET', `/docs-sites/${siteId}/tree`, k.reader)).json();
    expect(tree.warnings.find((w: { path: string }) => w.path === 'bomb.md')).to.include({ code: 'BAD_FRONT_MATTER' });
    expect((await k.t.call('GET', `/public/docs/${siteId}/page/bomb`, null)).json().page.title).to.equal('Still here');
    // A markdown body past the render limit is a 4xx naming it.
    const big = await k.t.call('POST', `/docs-sites/${siteId}/render`, k.editor, {
      path: 'big',
      markdown: 'x'.repeat(3 * 1024 * 1024),
    });
    expect(big.statusCode).to.be.within(400, 413);
    // Bad settings are refused naming the field.
    const bad = await k.t.call('POST', '/cms-one/websites', k.editor, {
      name: 'Bad',
      rootPath: '/bad-docs',
      kind: 'documentation',
      settings: { docs: { sourceFolder: '../etc' } },
    });
    expect(bad.statusCode).to.equal(400);
    expect(bad.json().message).to.contain('Documentation settings');
  });
});
