import { expect } from 'chai';
import { startDocsKernel } from './docs-kernel.ts';

type Kit = Awaited<ReturnType<typeof startDocsKernel>>;

/** Fails when the HTML holds an element that runs or frames something, an `on*` attribute or a script URL. */
function expectNoActiveMarkup(html: string) {
  for (const tag of html.match(/<[a-z][^>]*>/gi) ?? []) {
    expect(tag).not.to.match(/^<(script|iframe|object|embed|svg|math|form|base|meta|link|style)\b/i);
    expect(tag).not.to.match(/\son[a-z]+\s*=/i);
    const urls = [...tag.matchAll(/\s(?:href|src|action|formaction|xlink:href)\s*=\s*"([^"]*)"/gi)].map((m) => m[1]);
    for (const url of urls) {
      // What a browser makes of it: tabs and newlines dropped, entities decoded, the scheme in lower case.
      const plain = url
        .replace(/&#x?0*9;|&#x?0*a;|&#x?0*d;|[\t\n\r]/gi, '')
        .replace(/&amp;/g, '&')
        .trim()
        .toLowerCase();
      expect(plain, tag).not.to.match(/^(javascript|vbscript|data):/);
    }
  }
}

/** Attacks on a documentation site: paths, private documents, hostile Markdown, huge files, permissions. */
describe('documentation sites under attack', function () {
  this.timeout(60_000);
  let k: Kit;
  let siteId: string;

  before(async () => {
    k = await startDocsKernel({ DOCS_MAX_FILE_BYTES: String(64 * 1024) });
    await k.put('kb/index.md', '# Base\n\nPublic words.\n');
    await k.put('kb/secret.md', '---\nvisibility: private\n---\n# Secret plan\n\nThe codeword is narwhal.\n');
    await k.put('kb/priv/index.md', '---\nvisibility: private\n---\n# Private folder\n\nHidden walrus.\n');
    await k.put('outside/leak.md', '# Outside the folder\n\nThe leaked word is pangolin.\n');
    await k.put(
      'kb/hostile.md',
      [
        '# Hostile',
        '<script>alert(1)</script>',
        '<img src=x onerror=alert(1)> <iframe src="https://evil.example"></iframe>',
        '[a](javascript:alert(1)) [b](JAVASCRIPT:alert(1)) [c](jav&#x09;ascript:alert(1)) [d](vbscript:x) [e](data:text/html;base64,PHNjcmlwdD4=)',
        '![i](javascript:alert(1)) <a href="javascript:alert(1)">raw</a> <svg onload=alert(1)>',
        '[ref]: javascript:alert(2)',
        '[f][ref] <https://ok.example/?q="onmouseover=alert(1)>',
        '```html\n<script>alert(3)</script>\n```',
        '[g](../outside/leak.md) [h](../../etc/passwd)',
      ].join('\n\n'),
    );
    siteId = await k.site('KB', '/kb', { sourceFolder: 'kb' });
  });
  after(() => k.close());

  it('refuses ".." in page paths on every route, encoded or not, with a 4xx and no file outside the folder', async () => {
    const tries = [
      '../outside/leak',
      '..%2foutside%2fleak',
      '%2e%2e/outside/leak',
      '%252e%252e/outside/leak',
      'priv/../../outside/leak',
      '..\\outside\\leak',
      '%00',
      '%',
    ];
    for (const t of tries) {
      for (const url of [`/public/docs/${siteId}/page/${t}`, `/docs-sites/${siteId}/preview/${t}`]) {
        const res = await k.t.call('GET', url, url.startsWith('/docs') ? k.reader : null);
        expect(res.statusCode, `${url}: ${res.body}`).to.be.within(400, 404);
        expect(res.body).not.to.contain('pangolin');
      }
      const html = await k.t.call('GET', `/public/page/kb/${t}`, null, undefined, { accept: 'text/html' });
      expect(html.statusCode, t).to.be.within(400, 404);
      expect(html.body).not.to.contain('pangolin');
    }
    const render = await k.t.call('POST', `/docs-sites/${siteId}/render`, k.editor, {
      path: '../outside/leak',
      markdown: '# x',
    });
    expect(render.statusCode).to.equal(400);
    expect(render.json().code).to.equal('INVALID_PATH');
    // A link climbing out of the folder is a broken link, never a link to the file outside.
    const page = (await k.t.call('GET', `/public/docs/${siteId}/page/hostile`, null)).json().page;
    expect(page.html).not.to.contain('/dam-asset/outside').and.not.to.contain('pangolin');
    const tree = (await k.t.call('GET', `/docs-sites/${siteId}/tree`, k.reader)).json();
    expect(
      tree.warnings
        .filter((w: { code: string; path: string }) => w.path === 'hostile.md')
        .map((w: { target: string }) => w.target),
    ).to.include.members(['../outside/leak.md', '../../etc/passwd']);
  });

  it('never shows a private document through a public route: pages, folder index, nav, index, HTML, site lookup', async () => {
    const paths = ['secret', 'secret.md', 'SECRET', 'secret/', 'priv', 'priv/', 'priv/index', 'priv/index.md'];
    const missing = await k.t.call('GET', `/public/docs/${siteId}/page/does-not-exist`, null);
    for (const p of paths) {
      const res = await k.t.call('GET', `/public/docs/${siteId}/page/${p}`, null);
      expect(res.statusCode, p).to.equal(404);
      expect({ ...res.json(), requestId: 0 }).to.deep.equal({ ...missing.json(), requestId: 0 });
      const html = await k.t.call('GET', `/public/page/kb/${p}`, null, undefined, { accept: 'text/html' });
      expect(html.statusCode, p).to.equal(404);
      expect(html.body).not.to.match(/narwhal|walrus|Secret plan|Private folder/);
    }
    for (const url of [
      `/public/docs/${siteId}/nav`,
      `/public/docs/${siteId}/search-index`,
      `/public/docs/${siteId}/page/`,
    ])
      expect((await k.t.call('GET', url, null)).body, url).not.to.match(/narwhal|walrus|Secret plan|Private folder/);
    // The staff routes need a session and objects:read, even for the search index.
    expect((await k.t.call('GET', `/docs-sites/${siteId}/search-index`, null)).statusCode).to.equal(401);
    expect((await k.t.call('GET', `/docs-sites/${siteId}/preview/secret`, k.nobody)).statusCode).to.equal(403);
    // Another kind of website, or an unknown id: the same 404 as a site without documents.
    expect((await k.t.call('GET', `/public/docs/00000000-0000-4000-8000-000000000000/nav`, null)).statusCode).to.equal(
      404,
    );
    expect((await k.t.call('GET', '/public/docs/not-a-uuid/nav', null)).statusCode).to.equal(400);
  });

  it('neutralises hostile Markdown: no script, handler, frame or script URL reaches a page', async () => {
    const res = await k.t.call('GET', `/public/docs/${siteId}/page/hostile`, null);
    expect(res.statusCode, res.body).to.equal(200);
    const { html } = res.json().page;
    expectNoActiveMarkup(html);
    expect(html).to.contain('&lt;script&gt;alert(1)&lt;/script&gt;');
    // The page's HTML document too, for the browser.
    const doc = await k.t.call('GET', '/public/page/kb/hostile', null, undefined, { accept: 'text/html' });
    expectNoActiveMarkup(doc.body.slice(doc.body.indexOf('<article>'), doc.body.indexOf('</article>')));
    // The staff draft render applies the same rules.
    const draft = await k.t.call('POST', `/docs-sites/${siteId}/render`, k.editor, {
      path: 'hostile',
      markdown: '<script>x()</script> [a](javascript:x()) <b onclick=x()>b</b>',
    });
    expectNoActiveMarkup(draft.json().html);
    expect(draft.json().html).to.contain('&lt;script&gt;');
  });

  it('a file over DOCS_MAX_FILE_BYTES is a FILE_TOO_LARGE warning, not published, and the rest of the site works', async () => {
    await k.put('kb/huge.md', `# Huge\n\n${'lorem ipsum dolor '.repeat(8000)}`);
    const tree = (await k.t.call('GET', `/docs-sites/${siteId}/tree`, k.reader)).json();
    expect(tree.warnings.find((w: { path: string }) => w.path === 'huge.md')).to.include({ code: 'FILE_TOO_LARGE' });
    expect(tree.documents.map((d: { path: string }) => d.path)).not.to.include('huge');
    expect((await k.t.call('GET', `/public/docs/${siteId}/page/huge`, null)).statusCode).to.equal(404);
    expect((await k.t.call('GET', `/public/docs/${siteId}/page/`, null)).statusCode).to.equal(200);
    // A very long path is a 400, not a crash.
    const long = await k.t.call('GET', `/public/docs/${siteId}/page/${'a/'.repeat(1500)}`, null);
    expect(long.statusCode).to.be.within(400, 414);
  });

  it('two files giving one path are a DUPLICATE_PATH warning; the first by file path is published', async () => {
    await k.put('kb/twice.md', '# Twice as a file\n');
    await k.put('kb/twice/index.md', '# Twice as a folder\n');
    const tree = (await k.t.call('GET', `/docs-sites/${siteId}/tree`, k.reader)).json();
    const dup = tree.warnings.find((w: { code: string }) => w.code === 'DUPLICATE_PATH');
    expect(dup, JSON.stringify(tree.warnings)).to.include({ path: 'twice/index.md', target: 'twice.md' });
    const page = await k.t.call('GET', `/public/docs/${siteId}/page/twice`, null);
    expect(page.json().page.title).to.equal('Twice as a file');
  });

  it('its writes need docs:edit, which pages:edit and objects:write grant; the OpenAPI document names the keys', async () => {
    const { pager, writer } = await k.t.users({ pager: ['objects:read', 'pages:edit'], writer: ['objects:write'] });
    const body = { path: 'x', markdown: '# ok' };
    expect((await k.t.call('POST', `/docs-sites/${siteId}/render`, pager, body)).statusCode).to.equal(200);
    expect((await k.t.call('POST', `/docs-sites/${siteId}/render`, writer, body)).statusCode).to.equal(200);
    expect((await k.t.call('POST', `/docs-sites/${siteId}/nav/check`, k.reader, { text: '- /' })).statusCode).to.equal(
      403,
    );
    const api = (await k.t.call('GET', '/openapi.json', null)).json();
    expect(api.paths['/docs-sites/{websiteId}/render'].post.description).to.contain('Needs the permission `docs:edit`');
    expect(api.paths['/docs-sites/{websiteId}/tree'].get.description).to.contain('Needs the permission `objects:read`');
  });
});
