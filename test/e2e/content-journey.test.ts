import { expect } from 'chai';
import { startContentKernel, type ContentKernel } from '../../plugins/content/test/content-kernel.ts';

// An editor's content journey over HTTP with the real content, search and data plugins together.
describe('e2e: content journey (content + search + data)', () => {
  let k: ContentKernel;
  before(async () => {
    k = await startContentKernel({ plugins: ['data', 'content', 'search'] });
  });
  after(() => k.t.close());

  it('publishes pages in two locales, serves them, the sitemap and the search; a draft appears nowhere', async () => {
    const site = await k.createWebsite({ locales: ['en', 'de'] });
    const en = await k.createPage({
      websiteId: site.id,
      locale: 'en',
      path: '/about',
      title: 'About zebrafish',
      published: true,
    });
    const de = await k.createPage({
      websiteId: site.id,
      locale: 'de',
      path: '/about',
      title: 'Über zebrafish',
      published: true,
    });
    await k.createPage({ websiteId: site.id, locale: 'en', path: '/hidden', title: 'Draft quokkaword' });
    expect((await k.call('GET', `/public/pages/en${site.rootPath}/about`, null)).json().id).to.equal(en.id);
    expect((await k.call('GET', `/public/pages/de${site.rootPath}/about`, null)).json().id).to.equal(de.id);
    expect((await k.call('GET', `/public/page${site.rootPath}/about`, null)).json().id).to.equal(en.id);
    const sitemap = await k.call('GET', `/public/sitemap.xml?websiteId=${site.id}`, null);
    expect(sitemap.statusCode).to.equal(200);
    expect(sitemap.body).to.include(`${site.rootPath}/about`);
    const found = await k.call('GET', `/public/search?q=zebrafish&websiteId=${site.id}`, null);
    expect(found.statusCode, found.body).to.equal(200);
    expect(found.body).to.include(en.id);
    const urls = [
      `/public/search?q=quokkaword`,
      `/public/sitemap.xml`,
      `/public/sitemap.xml?websiteId=${site.id}`,
      `/public/pages?websiteId=${site.id}`,
      `/public/pages/en${site.rootPath}/hidden`,
      `/public/page${site.rootPath}/hidden`,
    ];
    for (const url of urls) {
      const res = await k.call('GET', url, null);
      expect(res.statusCode, url).to.be.oneOf([200, 404]);
      expect(res.body, url).not.to.include('quokkaword');
      expect(res.body, url).not.to.include('/hidden');
    }
  });

  it('restores an older version of a page and the public read shows it', async () => {
    const site = await k.createWebsite();
    const page = await k.createPage({ websiteId: site.id, path: '/v', title: 'First', published: true });
    // A save that changes the content snapshots the prior state (title and content).
    const second = await k.call('PATCH', `/cms-one/pages/${page.id}`, k.publisher, {
      title: 'Second',
      content: { type: 'p', text: 'second text' },
    });
    expect(second.statusCode, second.body).to.equal(200);
    await k.call('PATCH', `/cms-one/pages/${page.id}`, k.publisher, {
      title: 'Third',
      content: { type: 'p', text: 'third text' },
    });
    const list = (await k.call('GET', `/cms-one/pages/${page.id}/versions`, k.publisher)).json() as Array<{
      id: string;
      title: string;
    }>;
    expect(list.map((v) => v.title)).to.have.members(['First', 'Second']);
    const first = list.find((v) => v.title === 'First')!;
    const restored = await k.call('POST', `/cms-one/pages/${page.id}/versions/${first.id}/restore`, k.publisher);
    expect(restored.statusCode, restored.body).to.equal(200);
    expect((await k.call('GET', `/public/pages/en${site.rootPath}/v`, null)).json().title).to.equal('First');
  });

  it('a locked snippet refuses autosave with 423 and takes a manual save', async () => {
    const snip = await k.call('POST', '/cms-one/snippets', k.publisher, {
      name: k.unique('Snip '),
      content: { type: 'p', text: 'x' },
    });
    expect(snip.statusCode, snip.body).to.equal(201);
    const id = snip.json().id;
    expect((await k.call('PUT', `/cms-one/snippets/${id}/lock`, k.publisher, { locked: true })).statusCode).to.equal(
      200,
    );
    expect(
      (
        await k.call('PATCH', `/cms-one/snippets/${id}`, k.publisher, {
          content: { type: 'p', text: 'y' },
          autosave: true,
        })
      ).statusCode,
    ).to.equal(423);
    expect(
      (await k.call('PATCH', `/cms-one/snippets/${id}`, k.publisher, { content: { type: 'p', text: 'z' } })).statusCode,
    ).to.equal(200);
  });
});
