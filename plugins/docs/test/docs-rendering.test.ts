import { expect } from 'chai';
import sharp from 'sharp';
import { startDocsKernel } from './docs-kernel.ts';

type Kit = Awaited<ReturnType<typeof startDocsKernel>>;
const METRICS_TOKEN = 'docs-metrics-token-0123456789';

describe('documentation sites: images, the render cache and large or deep files', function () {
  this.timeout(60_000);
  let k: Kit;
  let siteId: string;

  /** docs_renders_total from GET /metrics. */
  const renders = async () => {
    const res = await k.t.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(res.statusCode, res.body).to.equal(200);
    const line = res.body.split('\n').find((l) => l.startsWith('docs_renders_total '));
    expect(line, 'docs_renders_total in /metrics').to.be.a('string');
    return Number(line!.split(' ')[1]);
  };
  const page = async (path: string) => {
    const res = await k.t.call('GET', `/public/docs/${siteId}/page/${path}`, null);
    expect(res.statusCode, res.body).to.equal(200);
    return res.json().page as { html: string; title: string; warnings?: unknown };
  };

  before(async () => {
    k = await startDocsKernel({ METRICS_TOKEN }, ['health']);
    const png = await sharp({ create: { width: 8, height: 6, channels: 3, background: { r: 200, g: 10, b: 10 } } })
      .png()
      .toBuffer();
    await k.put('kb/img/red.png', png);
    await k.put('kb/index.md', '# Home\n\n![A red box](img/red.png)\n\n![gone](img/none.png)\n');
    await k.put('kb/guide/deep.md', '# Deep\n\nSee ![up](../img/red.png).\n');
    await k.put('kb/other.md', '# Other\n\nPlain words.\n');
    siteId = await k.site('Rendering', '/kb-render', { sourceFolder: 'kb' });
  });
  after(() => k.close());

  it('rewrites an image of the folder to its delivery URL, which answers the image; a missing one is a warning', async () => {
    const home = await page('');
    const src = /<img src="([^"]+)" alt="A red box"/.exec(home.html)?.[1];
    expect(src, home.html).to.be.a('string');
    expect(src).to.match(/^\/dam-asset\//);
    expect(src).to.contain('red.png');
    const image = await k.t.inject({ method: 'GET', url: src! });
    expect(image.statusCode).to.equal(200);
    expect(image.headers['content-type']).to.contain('image/png');
    expect((await sharp(image.rawPayload).metadata()).width).to.equal(8);
    // A relative path from a subfolder finds the same file.
    expect((await page('guide/deep')).html).to.contain(`src="${src}"`);
    // The HTML site carries the same address.
    const html = await k.t.call('GET', '/public/page/kb-render/', null, undefined, { accept: 'text/html' });
    expect(html.statusCode).to.equal(200);
    expect(html.body).to.contain(`src="${src}"`);
    const tree = (await k.t.call('GET', `/docs-sites/${siteId}/tree`, k.reader)).json();
    expect(tree.warnings).to.deep.include.members([
      tree.warnings.find(
        (w: { code: string; target?: string }) => w.code === 'MISSING_IMAGE' && w.target === 'img/none.png',
      ),
    ]);
    expect(tree.warnings.some((w: { target?: string }) => w.target === 'img/red.png')).to.equal(false);
    expect(tree.otherFiles.map((f: { path: string }) => f.path)).to.include('img/red.png');
  });

  it('renders the same content once: a changed file re-renders only itself, a new version with the same bytes nothing', async () => {
    await page('other');
    const before = await renders();
    const index = await k.t.call('GET', `/public/docs/${siteId}/search-index`, null);
    const etag = index.headers.etag as string;
    // Reads with nothing changed render nothing.
    for (const p of ['', 'other', 'guide/deep']) await page(p);
    expect(await renders()).to.equal(before);
    // The same bytes uploaded again (a new version, same hash): no render, the index keeps its ETag.
    await k.put('kb/other.md', '# Other\n\nPlain words.\n');
    await page('other');
    expect(await renders()).to.equal(before);
    const same = await k.t.inject({
      method: 'GET',
      url: `/public/docs/${siteId}/search-index`,
      headers: { 'if-none-match': etag },
    });
    expect(same.statusCode).to.equal(304);
    // A changed file: that one document renders again, the others are kept.
    await k.put('kb/other.md', '# Other\n\nChanged words about otters.\n');
    expect((await page('other')).html).to.contain('otters');
    expect(await renders()).to.equal(before + 1);
    await page('');
    await page('guide/deep');
    expect(await renders()).to.equal(before + 1);
    const changed = await k.t.inject({
      method: 'GET',
      url: `/public/docs/${siteId}/search-index`,
      headers: { 'if-none-match': etag },
    });
    expect(changed.statusCode).to.equal(200);
    expect(changed.headers.etag).not.to.equal(etag);
    // Two files with the same content are two renders of their own paths, and back to old bytes
    // reuses the first render.
    await k.put('kb/other.md', '# Other\n\nPlain words.\n');
    expect((await page('other')).html).not.to.contain('otters');
    expect(await renders()).to.equal(before + 1);
  });

  it('a literal 10 MB Markdown file is a FILE_TOO_LARGE warning, not published, and the site still answers', async () => {
    const line = 'Ten megabytes of Markdown, one line after another, to be refused politely.\n';
    const big = Buffer.from(`# Big\n\n${line.repeat(Math.ceil((10 * 1024 * 1024) / line.length))}`);
    expect(big.length).to.be.at.least(10 * 1024 * 1024);
    await k.put('kb/big.md', big);
    const tree = await k.t.call('GET', `/docs-sites/${siteId}/tree`, k.reader);
    expect(tree.statusCode).to.equal(200);
    expect(tree.json().warnings.find((w: { path: string }) => w.path === 'big.md')).to.include({
      code: 'FILE_TOO_LARGE',
    });
    expect((await k.t.call('GET', `/public/docs/${siteId}/page/big`, null)).statusCode).to.equal(404);
    expect((await page('other')).title).to.equal('Other');
    // As a draft it is a 4xx naming the limit.
    const draft = await k.t.call('POST', `/docs-sites/${siteId}/render`, k.editor, {
      path: 'big',
      markdown: big.toString(),
    });
    expect(draft.statusCode).to.be.within(400, 413);
    expect(draft.body, draft.body.slice(0, 300)).to.match(/MB|bytes|large|2097152|characters/i);
  });

  it('a file nested 10,000 deep (quotes, bullet and ordered lists) is rendered safely, cut at a depth', async () => {
    const deep = [
      '# Deep nesting',
      '',
      `${'> '.repeat(10_000)}the bottom of the quotes`,
      '',
      `${'- '.repeat(10_000)}the bottom of the list`,
      '',
      `${'1. '.repeat(10_000)}the bottom of the numbers`,
      '',
      'After the nesting.',
      '',
    ].join('\n');
    await k.put('kb/nested.md', deep);
    const doc = await page('nested');
    expect(doc.title).to.equal('Deep nesting');
    expect(doc.html).to.contain('After the nesting.');
    const depth = (tag: string) => doc.html.split(`<${tag}`).length - 1;
    expect(depth('blockquote')).to.be.above(0).and.at.most(100);
    expect(depth('ul')).to.be.at.most(100);
    expect(depth('ol')).to.be.at.most(100);
    // The process still serves the other pages.
    expect((await page('other')).title).to.equal('Other');
    const html = await k.t.call('GET', '/public/page/kb-render/nested', null, undefined, { accept: 'text/html' });
    expect(html.statusCode).to.equal(200);
    expect(html.body).to.contain('After the nesting.');
  });
});
