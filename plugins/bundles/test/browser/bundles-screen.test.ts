import { expect } from 'chai';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  sharedBrowserProduct,
  heading,
  signIn,
} from '../../../../test/helpers/browser.ts';

describe('website bundles screen in the browser: export, dry run, apply', function () {
  this.timeout(150_000);
  let p: BrowserProduct;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
  });

  it('exports a website, reads the dry run of its import (a conflict, then clean) and applies it under another root', async () => {
    const admin = await p.t.admin();
    const suffix = Date.now().toString(36);
    const ok = async (url: string, body: unknown) => {
      const res = await p.t.call('POST', url, admin, body);
      expect(res.statusCode, res.body).to.equal(201);
      return res.json();
    };
    const source = `/bsrc${suffix}`;
    const copy = `/bcopy${suffix}`;
    const site = await ok('/cms-one/websites', { name: `Catalogue ${suffix}`, rootPath: source, locales: ['en'] });
    await ok('/cms-one/pages', {
      websiteId: site.id,
      locale: 'en',
      path: '/hello',
      title: 'Hello bundle',
      published: true,
      content: { type: 'section', children: [{ type: 'p', text: 'Moved with a bundle' }] },
    });
    await ok('/cms-one/snippets', {
      name: `Footer ${suffix}`,
      websiteId: site.id,
      content: { type: 'p', text: 'Bye' },
    });

    const { page, errors } = await p.page();
    await signIn(page, admin, '/admin/bundles');
    await heading(page, 'Website bundles').waitFor();
    await expectAccessible(page, 'bundle export');
    await page.getByRole('combobox', { name: 'Website' }).click();
    await page.getByRole('option', { name: `Catalogue ${suffix} (${source})` }).click();
    await page.getByRole('radio', { name: 'Only the objects its pages name' }).check();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download the bundle' }).click(),
    ]);
    expect(download.suggestedFilename()).to.match(new RegExp(`^website-bsrc${suffix}-\\d{4}-\\d{2}-\\d{2}\\.zip$`));
    expect(download.url()).to.contain('dataObjects=referenced');
    const bundle = (await download.path())!;

    await page.getByRole('tab', { name: 'Import' }).click();
    expect(new URL(page.url()).searchParams.get('tab')).to.equal('import');
    await expectAccessible(page, 'bundle import form');
    const fileInput = page.locator('input[type="file"]');

    // Not a zip: the 400 names the problem, nothing is reported or offered.
    await fileInput.setInputFiles({
      name: 'broken.zip',
      mimeType: 'application/zip',
      buffer: Buffer.from('not a zip'),
    });
    await page.getByRole('button', { name: 'Dry run: what would change' }).click();
    await page.getByRole('alert').filter({ hasText: 'The bundle is not a readable zip file' }).waitFor();

    // The real bundle at its own root path: the dry run names the conflict and the apply is not offered.
    await fileInput.setInputFiles(bundle);
    await page.getByRole('button', { name: 'Dry run: what would change' }).click();
    await page.getByRole('heading', { name: `Dry run: Catalogue ${suffix} at ${source}` }).waitFor();
    await page.getByText(`a website already has the root path ${source}`).waitFor();
    expect(await page.getByRole('button', { name: '1 conflict: cannot apply' }).isDisabled()).to.equal(true);

    await page.getByLabel('Root path').fill(copy);
    await page.getByRole('button', { name: 'Dry run: what would change' }).click();
    await page.getByRole('heading', { name: `Dry run: Catalogue ${suffix} at ${copy}` }).waitFor();
    const counts = page.getByRole('list', { name: 'Records in the bundle' });
    await counts.getByRole('listitem').filter({ hasText: 'Pages' }).getByText('1', { exact: true }).waitFor();
    await counts.getByRole('listitem').filter({ hasText: 'Snippets' }).getByText('1', { exact: true }).waitFor();
    expect((await p.t.call('GET', `/public/pages/en${copy}/hello`, null)).statusCode, 'dry run wrote nothing').to.equal(
      404,
    );
    await expectAccessible(page, 'bundle dry-run report');
    await page.getByRole('button', { name: `Apply: import Catalogue ${suffix}` }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: `The website is at ${copy}` })
      .or(page.getByText(`The website is at ${copy}`))
      .first()
      .waitFor();
    await expectAccessible(page, 'bundle applied');

    const websites = (await p.t.call('GET', '/cms-one/websites', admin)).json() as Array<{ rootPath: string }>;
    expect(websites.map((w) => w.rootPath)).to.include.members([source, copy]);
    const there = await p.t.call('GET', `/public/pages/en${copy}/hello`, null);
    expect(there.statusCode, there.body).to.equal(200);
    expect(there.json().title).to.equal('Hello bundle');
    const audit = await p.t.db('audit_log').where({ action: 'website.import', target_label: `Catalogue ${suffix}` });
    expect(audit).to.have.length(1);
    // Chromium's own line for the one refused upload (the broken zip's 400), nothing else.
    expect(appErrors(errors)).to.deep.equal([
      'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
  });

  it('offers a reader the export only, and passes axe at 390 px', async () => {
    const reader = await p.t.createUser({ permissions: ['objects:read'] });
    const { page, errors } = await p.page('phone');
    await signIn(page, reader, '/admin/bundles?tab=import');
    await heading(page, 'Website bundles').waitFor();
    await page.getByRole('tab', { name: 'Export' }).waitFor();
    expect(await page.getByRole('tab', { name: 'Import' }).count()).to.equal(0);
    await page.getByRole('combobox', { name: 'Website' }).waitFor();
    await expectAccessible(page, 'bundle export at 390 px');
    expect(appErrors(errors)).to.deep.equal([]);
  });
});
