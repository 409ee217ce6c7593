import { expect } from 'chai';
import { ManualClock } from '../../../kernel/clock.ts';
import { themeCss } from '../services/theme-css.ts';
import { startContentKernel, type ContentKernel } from './content-kernel.ts';

describe('content: public API and /site-root', () => {
  let k: ContentKernel;
  let site: { id: string; rootPath: string; name: string };
  before(async () => {
    k = await startContentKernel({ env: { PUBLIC_CONTENT_CACHE_CONTROL: 'public, max-age=30' } });
    site = await k.createWebsite({
      settings: { analytics: { id: 'UA-1', apiToken: 'hidden-token' }, smtpPassword: 'pw', color: 'red' },
    });
  });
  after(() => k.t.close());

  const root = () => site.rootPath;

  it('serves a published page by locale and full path, and without locale from the first segment', async () => {
    const page = await k.createPage({ websiteId: site.id, path: '/about', title: 'About us', published: true });
    const res = await k.call('GET', `/public/pages/en${root()}/about`, null);
    expect(res.statusCode).to.equal(200);
    const body = res.json();
    expect(body).to.include({ id: page.id, title: 'About us', path: '/about', locale: 'en', websiteId: site.id });
    expect(body.content.children[0].text).to.equal('Hello');
    expect(res.headers['cache-control']).to.equal('public, max-age=30');
    expect(res.headers.etag).to.match(/^W\//);
    const again = await k.call('GET', `/public/pages/en${root()}/about`, null, undefined, {
      'if-none-match': res.headers.etag as string,
    });
    expect(again.statusCode).to.equal(304);
    expect(again.body).to.equal('');
    const noLocale = await k.call('GET', `/public/page${root()}/about`, null);
    expect(noLocale.json().id).to.equal(page.id);
    await k.createPage({ websiteId: site.id, path: '/', title: 'Home', published: true });
    expect((await k.call('GET', `/public/page${root()}`, null)).json().title).to.equal('Home');
    expect((await k.call('GET', `/public/pages/de${root()}/about`, null)).statusCode).to.equal(404);
    expect((await k.call('GET', `/public/pages/en${root()}/nothing`, null)).statusCode).to.equal(404);
    expect((await k.call('GET', '/public/pages/en/no-such-site/about', null)).statusCode).to.equal(404);
  });

  it('never reveals a draft: every public route answers as for an unknown record', async () => {
    const draft = await k.createPage({
      websiteId: site.id,
      path: '/secret-draft',
      title: 'Secret draft title',
      kind: 'app',
    });
    const draftApp = draft;
    const urls = [
      `/public/pages/en${root()}/secret-draft`,
      `/public/page${root()}/secret-draft`,
      `/public/pages?websiteId=${site.id}`,
      `/public/apps/${site.id}`,
      `/public/sitemap.xml`,
      `/public/sitemap.xml?websiteId=${site.id}`,
      `/public/robots.txt`,
      `/public/websites`,
      `/public/websites/${site.id}`,
      `/public/404/${site.id}`,
    ];
    for (const url of urls) {
      const res = await k.call('GET', url, null);
      expect(res.statusCode, url).to.be.oneOf([200, 404]);
      expect(res.body, url).not.to.include('Secret draft title');
      expect(res.body, url).not.to.include('secret-draft');
      expect(res.body, url).not.to.include(draftApp.id);
    }
    expect((await k.call('GET', `/public/pages/en${root()}/secret-draft`, null)).statusCode).to.equal(404);
    const unknown = await k.call('GET', `/public/pages/en${root()}/never-existed`, null);
    const hidden = await k.call('GET', `/public/pages/en${root()}/secret-draft`, null);
    expect({ ...hidden.json(), requestId: 0 }).to.deep.equal({ ...unknown.json(), requestId: 0 });
  });

  it('lists published pages and apps of a website; websites with id and name, config with secrets redacted', async () => {
    const app = await k.createPage({
      websiteId: site.id,
      path: '/app',
      title: 'The app',
      kind: 'app',
      published: true,
    });
    const pages = (await k.call('GET', `/public/pages?websiteId=${site.id}`, null)).json();
    expect(pages.find((p: { id: string }) => p.id === app.id)).to.deep.equal({
      id: app.id,
      slug: '/app',
      title: 'The app',
      locale: 'en',
    });
    const apps = (await k.call('GET', `/public/apps/${site.id}`, null)).json();
    expect(apps.map((p: { id: string }) => p.id)).to.deep.equal([app.id]);
    const websites = (await k.call('GET', '/public/websites', null)).json();
    expect(websites.find((w: { id: string }) => w.id === site.id)).to.deep.equal({ id: site.id, name: site.name });
    const one = await k.call('GET', `/public/websites/${site.id}`, null);
    expect(one.json().settings.color).to.equal('red');
    expect(one.json().settings.analytics).to.deep.equal({ id: 'UA-1' });
    expect(one.body).not.to.include('hidden-token');
    expect(one.body).not.to.include('smtpPassword');
    expect(one.body).not.to.include('siteKey');
    expect((await k.call('GET', '/public/websites/00000000-0000-4000-8000-000000000000', null)).statusCode).to.equal(
      404,
    );
    expect((await k.call('GET', '/public/pages', null)).statusCode).to.equal(400);
  });

  it('sitemap with hreflang alternates and lastmod, 304 on If-None-Match, a new tag after a change; robots.txt', async () => {
    const s2 = await k.createWebsite({ domains: ['www.maps.test'] });
    const en = await k.createPage({ websiteId: s2.id, path: '/hello', published: true });
    await k.createPage({
      websiteId: s2.id,
      path: '/hallo',
      locale: 'de',
      translationGroupId: en.translationGroupId,
      published: true,
    });
    await k.createPage({ websiteId: s2.id, path: '/hidden', published: true, inSitemap: false, indexable: false });
    const url = `/public/sitemap.xml?websiteId=${s2.id}`;
    const res = await k.call('GET', url, null);
    expect(res.statusCode).to.equal(200);
    expect(res.headers['content-type']).to.include('application/xml');
    expect(res.body).to.include('<loc>https://www.maps.test/hello</loc>');
    expect(res.body).to.include('<xhtml:link rel="alternate" hreflang="de" href="https://www.maps.test/hallo"/>');
    expect(res.body).to.match(/<lastmod>\d{4}-\d\d-\d\dT/);
    expect(res.body).not.to.include('/hidden');
    const tag = res.headers.etag as string;
    const same = await k.call('GET', url, null, undefined, { 'if-none-match': tag });
    expect(same.statusCode).to.equal(304);
    await k.call('PATCH', `/cms-one/pages/${en.id}`, k.publisher, { title: 'changed' });
    const changed = await k.call('GET', url, null, undefined, { 'if-none-match': tag });
    expect(changed.statusCode).to.equal(200);
    const byHost = await k.call('GET', '/public/robots.txt', null, undefined, { host: 'www.maps.test' });
    expect(byHost.body).to.include(`Disallow: ${s2.rootPath}/hidden`);
    expect(byHost.body).to.include('Sitemap: http://www.maps.test/public/sitemap.xml');
    expect(
      (await k.call('GET', '/public/sitemap.xml?websiteId=00000000-0000-4000-8000-000000000000', null)).statusCode,
    ).to.equal(404);
    expect((await k.call('GET', '/public/sitemap.xml?part=0', null)).statusCode).to.equal(400);
  });

  it('past 50,000 URLs the sitemap is an index of parts', async function () {
    this.timeout(60_000);
    const big = await k.createWebsite();
    await k.t.db.raw(
      `insert into content_pages (website_id, locale, translation_group_id, path, title, content, published)
       select ?, 'en', gen_random_uuid(), '/p' || n, 'P' || n, '{"type":"div"}', true from generate_series(1, 50001) n`,
      [big.id],
    );
    const index = await k.call('GET', `/public/sitemap.xml?websiteId=${big.id}`, null);
    expect(index.statusCode).to.equal(200);
    expect(index.body).to.include('<sitemapindex');
    expect(index.body.match(/<sitemap>/g)).to.have.length(2);
    expect(index.body).to.include(`/public/sitemap.xml?websiteId=${big.id}&amp;part=2`);
    const second = await k.call('GET', `/public/sitemap.xml?websiteId=${big.id}&part=2`, null);
    expect(second.body.match(/<url>/g)).to.have.length(1);
    expect((await k.call('GET', `/public/sitemap.xml?websiteId=${big.id}&part=3`, null)).statusCode).to.equal(404);
    await k.t.db('content_pages').where({ website_id: big.id }).delete();
  });

  it('answers a browser the HTML document of the page (Vary: Accept); API clients keep JSON; drafts stay 404', async () => {
    await k.createPage({
      websiteId: site.id,
      path: '/html',
      title: 'Plain title',
      published: true,
      seo: { title: 'SEO <title>', description: 'Says "hi"', openGraph: { image: '/dam-asset/og.png' } },
      content: { type: 'section', children: [{ type: 'p', text: 'Fish & <chips>' }] },
    });
    const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const html = await k.call('GET', `/public/page${root()}/html`, null, undefined, { accept: browser });
    expect(html.statusCode).to.equal(200);
    expect(html.headers['content-type']).to.equal('text/html; charset=utf-8');
    expect(html.headers.vary).to.contain('accept');
    expect(html.body).to.equal(
      '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>SEO &lt;title&gt;</title>\n' +
        '<meta name="description" content="Says &quot;hi&quot;">\n<meta property="og:image" content="/dam-asset/og.png">\n' +
        `<style data-cms-theme>${themeCss(null)}</style>\n` +
        '</head>\n<body>\n<main><section><p>Fish &amp; &lt;chips&gt;</p></section></main>\n</body>\n</html>\n',
    );
    const byLocale = await k.call('GET', `/public/pages/en${root()}/html`, null, undefined, { accept: 'text/html' });
    expect(byLocale.body).to.equal(html.body);
    const again = await k.call('GET', `/public/page${root()}/html`, null, undefined, {
      accept: browser,
      'if-none-match': html.headers.etag as string,
    });
    expect(again.statusCode).to.equal(304);
    for (const accept of [
      '*/*',
      'application/json',
      'application/json, text/html',
      'text/html;q=0.5, application/json',
    ]) {
      const json = await k.call('GET', `/public/page${root()}/html`, null, undefined, { accept });
      expect(json.headers['content-type'], accept).to.match(/^application\/json/);
      expect(json.json().title, accept).to.equal('Plain title');
    }
    await k.createPage({ websiteId: site.id, path: '/html-draft', title: 'Draft' });
    const draft = await k.call('GET', `/public/page${root()}/html-draft`, null, undefined, { accept: browser });
    expect(draft.statusCode).to.equal(404);
    expect(draft.body).not.to.contain('Draft');
  });

  it('dynamic page bound to a data class resolves against published objects only', async () => {
    const cls = await k.call('POST', '/data-classes', k.admin, {
      name: `Post${Date.now()}`,
      label: 'Post',
      fields: [
        { name: 'slug', type: 'slug' },
        { name: 'headline', type: 'text' },
      ],
    });
    expect(cls.statusCode, cls.body).to.equal(201);
    const className = cls.json().name;
    await k.createPage({
      websiteId: site.id,
      path: '/blog/:slug',
      dataClass: className,
      title: 'Blog post',
      published: true,
    });
    const obj = await k.call('POST', '/data-objects', k.publisher, {
      classId: cls.json().id,
      published: true,
      attributes: { slug: 'first', headline: 'First!' },
    });
    expect(obj.statusCode, obj.body).to.equal(201);
    await k.call('POST', '/data-objects', k.publisher, {
      classId: cls.json().id,
      published: false,
      attributes: { slug: 'draft-post', headline: 'Draft' },
    });
    const res = await k.call('GET', `/public/pages/en${root()}/blog/first`, null);
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.json()).to.include({ title: 'Blog post', path: '/blog/:slug' });
    expect(res.json().params).to.deep.equal({ slug: 'first' });
    expect(res.json().object.attributes.headline).to.equal('First!');
    expect((await k.call('GET', `/public/pages/en${root()}/blog/draft-post`, null)).statusCode).to.equal(404);
    expect((await k.call('GET', `/public/pages/en${root()}/blog/none`, null)).statusCode).to.equal(404);
  });

  it('/site-root: 204 for a website root segment, 403 otherwise; follows website changes at once', async () => {
    const s3 = await k.createWebsite();
    const ask = (uri: string) => k.call('GET', '/site-root', null, undefined, { 'x-original-uri': uri });
    expect((await ask(`${s3.rootPath}/about?x=1`)).statusCode).to.equal(204);
    expect((await ask(s3.rootPath)).statusCode).to.equal(204);
    expect((await ask('/unknown/about')).statusCode).to.equal(403);
    expect((await ask('/')).statusCode).to.equal(403);
    expect((await k.call('GET', '/site-root', null)).statusCode).to.equal(403);
    await k.call('PATCH', `/cms-one/websites/${s3.id}`, k.admin, { rootPath: `${s3.rootPath}x` });
    expect((await ask(`${s3.rootPath}/about`)).statusCode).to.equal(403);
    expect((await ask(`${s3.rootPath}x/about`)).statusCode).to.equal(204);
  });
});

describe('content: public rate limit and site-root cache', () => {
  it('limits public routes per address (429 with Retry-After); another process sees website changes within 5 s', async () => {
    const clock = new ManualClock();
    // Start just after a minute boundary so the three counted requests share one window.
    clock.advance(60_000 - (clock.now().getTime() % 60_000) + 50);
    const { startTestKernel } = await import('../../../test/helpers/kernel.ts');
    const t = await startTestKernel({
      plugins: ['content'],
      clock,
      env: { PUBLIC_CONTENT_RATE_LIMIT_PER_MINUTE: '3' },
    });
    try {
      for (let i = 0; i < 3; i++)
        expect((await t.inject({ method: 'GET', url: '/public/websites' })).statusCode).to.equal(200);
      const limited = await t.inject({ method: 'GET', url: '/public/websites' });
      expect(limited.statusCode).to.equal(429);
      expect(Number(limited.headers['retry-after'])).to.be.greaterThan(0);
      expect(
        (await t.inject({ method: 'GET', url: '/public/websites', remoteAddress: '10.0.0.9' })).statusCode,
      ).to.equal(200);
      const ask = () => t.inject({ method: 'GET', url: '/site-root', headers: { 'x-original-uri': '/direct/about' } });
      expect((await ask()).statusCode).to.equal(403);
      // A website written by another process (straight into the table) is seen once the 5 s are over.
      await t.db('content_websites').insert({ name: 'Direct', root_path: '/direct' });
      expect((await ask()).statusCode).to.equal(403);
      clock.advance(5_001);
      expect((await ask()).statusCode).to.equal(204);
    } finally {
      await t.close();
    }
  });
});
