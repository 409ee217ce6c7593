import { expect } from 'chai';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  heading,
  sharedBrowserProduct,
} from '../../../../test/helpers/browser.ts';
import { docsSite, putFile, putManual } from '../docs-files.ts';

/** The policy a documentation page is sent with (the website pages'): script only as files of this origin. */
function expectStrictPolicy(csp: string | undefined) {
  expect(csp, 'Content-Security-Policy').to.be.a('string');
  const directives = new Map(
    (csp as string).split(';').map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name, values] as const;
    }),
  );
  expect(directives.get('script-src')).to.deep.equal(["'self'"]);
  expect(directives.get('default-src')).to.deep.equal(["'self'"]);
  expect(directives.get('connect-src')).to.deep.equal(["'self'"]);
  expect(directives.get('object-src')).to.deep.equal(["'none'"]);
  expect(directives.get('base-uri')).to.deep.equal(["'none'"]);
  expect(csp).not.to.contain('unsafe-eval');
}

describe('documentation site in the browser: page, search, not found', function () {
  this.timeout(150_000);
  let p: BrowserProduct;
  let root: string;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    const admin = await p.t.admin();
    const suffix = Date.now().toString(36);
    root = `/manual${suffix}`;
    await putManual(p.t, admin, `docsb${suffix}`);
    await putFile(
      p.t,
      admin,
      `docsb${suffix}/hostile.md`,
      '# Hostile\n\n<script>window.pwned = 1</script>\n\n[click me](javascript:window.pwned=2) <img src=x onerror="window.pwned=3">\n\n<a href="javascript:window.pwned=4" onclick="window.pwned=5">raw link</a>\n',
    );
    await docsSite(p.t, admin, `Handbook ${suffix}`, root, { sourceFolder: `docsb${suffix}` });
  });

  it('reads a page (navigation, on this page, prev/next, last updated), searches as you type, passes axe', async () => {
    const { page, errors } = await p.page();
    const failed: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') failed.push(`${new URL(m.location().url).pathname}`);
    });
    const answer = await page.goto(`${root}/guide/intro`);
    expect(answer?.status()).to.equal(200);
    expect(answer?.headers()['content-type']).to.contain('text/html');
    expectStrictPolicy(answer?.headers()['content-security-policy']);
    await heading(page, 'Introduction').waitFor();
    const sidebar = page.getByRole('navigation', { name: 'Documentation' });
    expect(await sidebar.getByRole('link', { name: 'Introduction' }).getAttribute('aria-current')).to.equal('page');
    expect(await sidebar.getByRole('link', { name: 'Staff only' }).count()).to.equal(0);
    const toc = page.getByRole('complementary', { name: 'On this page' });
    expect(await toc.getByRole('link').allTextContents()).to.deep.equal(['Setup', 'Usage']);
    expect(await toc.getByRole('link', { name: 'Usage' }).getAttribute('href')).to.equal('#usage');
    const pager = page.getByRole('navigation', { name: 'Previous and next' });
    await pager.getByRole('link', { name: /Handbook/ }).waitFor();
    await pager.getByRole('link', { name: /Advanced/ }).waitFor();
    await page.getByText('Last updated').waitFor();
    expect(await page.locator('pre code.hljs .hljs-keyword').first().textContent()).to.equal('const');
    await expectAccessible(page, 'documentation page');

    // Search: the box appears once its script runs, and lists hits as you type.
    const box = page.getByRole('searchbox', { name: 'Search the documentation' });
    await box.fill('zebra');
    const results = page.locator('#docs-results');
    await results.getByRole('link', { name: 'Advanced' }).waitFor();
    await page.getByText('1 results').waitFor();
    await expectAccessible(page, 'documentation search results');
    // A private document is not in the public index: not even its words are found.
    await box.fill('aardvark');
    await page.getByText('No results').waitFor();
    expect(await results.getByRole('link').count()).to.equal(0);
    await expectAccessible(page, 'documentation search without results');
    await box.fill('zebrafish');
    await results.getByRole('link', { name: 'Advanced' }).click();
    await heading(page, 'Advanced').waitFor();
    expect(new URL(page.url()).pathname).to.equal(`${root}/guide/advanced`);
    // The site has no icon of its own: the browser's request for one (unless it remembers the last
    // answer from an earlier page of the origin) is the only failed load.
    expect(failed.filter((p) => p !== '/favicon.ico')).to.deep.equal([]);
    expect(appErrors(errors)).to.deep.equal(
      failed.length ? ['console: Failed to load resource: the server responded with a status of 404 (Not Found)'] : [],
    );
  });

  it('answers a private or missing page with the same not-found document, which passes axe', async () => {
    const { page } = await p.page();
    const priv = await page.goto(`${root}/internal`);
    expect(priv?.status()).to.equal(404);
    expectStrictPolicy(priv?.headers()['content-security-policy']);
    await heading(page, 'Page not found').waitFor();
    const privText = await page.locator('main').textContent();
    expect(await page.content())
      .not.to.contain('Staff only')
      .and.not.to.contain('aardvark');
    await expectAccessible(page, 'documentation not found');
    const missing = await page.goto(`${root}/no/such/page`);
    expect(missing?.status()).to.equal(404);
    expect(await page.locator('main').textContent()).to.equal(privText);
    await page.getByRole('link', { name: 'Go to the start page' }).click();
    await heading(page, 'Handbook').waitFor();
  });

  it("runs none of a hostile document's script, handlers or javascript: links", async () => {
    const { page, errors } = await p.page();
    expect((await page.goto(`${root}/hostile`))?.status()).to.equal(200);
    await heading(page, 'Hostile').waitFor();
    const article = page.locator('article');
    expect(await article.locator('script, img, [onclick], [onerror], a[href^="javascript"]').count()).to.equal(0);
    await article.getByText('<script>window.pwned = 1</script>').waitFor();
    await article.getByText(/click me/).click();
    await article.getByText(/raw link/).click();
    expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).to.equal(undefined);
    expect(new URL(page.url()).pathname).to.equal(`${root}/hostile`);
    expect(appErrors(errors).filter((e) => !/status of 404/.test(e))).to.deep.equal([]);
  });

  it('is readable without JavaScript (no search box), and at phone width', async () => {
    const context = await p.browser.newContext({ javaScriptEnabled: false, baseURL: p.baseUrl });
    try {
      const page = await context.newPage();
      expect((await page.goto(`${root}/guide/intro`))?.status()).to.equal(200);
      await heading(page, 'Introduction').waitFor();
      await page.getByText('First steps.').waitFor();
      expect(await page.getByRole('searchbox').count()).to.equal(0);
      await page.getByRole('navigation', { name: 'Documentation' }).getByRole('link', { name: 'Advanced' }).click();
      await heading(page, 'Advanced').waitFor();
    } finally {
      await context.close();
    }
    const { page, errors } = await p.page('phone');
    await page.goto(`${root}/`);
    await heading(page, 'Handbook').waitFor();
    await expectAccessible(page, 'documentation home at 390 px');
    expect(appErrors(errors)).to.deep.equal([]);
  });
});
