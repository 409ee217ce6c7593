import { expect } from 'chai';
import {
  type BrowserProduct,
  expectAccessible,
  heading,
  sharedBrowserProduct,
} from '../../../../test/helpers/browser.ts';
import { docsSite, putFile } from '../docs-files.ts';

describe('documentation site in the browser: versions', function () {
  this.timeout(150_000);
  let p: BrowserProduct;
  let root: string;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    const admin = await p.t.admin();
    const suffix = Date.now().toString(36);
    root = `/versions${suffix}`;
    const folder = `docsv${suffix}`;
    await putFile(p.t, admin, `${folder}/v1/index.md`, '# Manual 1\n\nThe first release.\n');
    await putFile(p.t, admin, `${folder}/v1/install.md`, '# Install 1\n\nSetup with gerbils.\n');
    await putFile(p.t, admin, `${folder}/v2/index.md`, '# Manual 2\n\nThe second release.\n');
    await putFile(p.t, admin, `${folder}/v2/install.md`, '# Install 2\n\nSetup with otters.\n');
    await putFile(p.t, admin, `${folder}/v2/upgrade.md`, '# Upgrade\n\nFrom 1 to 2.\n');
    await docsSite(p.t, admin, `Versioned ${suffix}`, root, { sourceFolder: folder });
  });

  it('switches to the same page in another version, or to its start page, with links that need no script', async () => {
    const context = await p.browser.newContext({ javaScriptEnabled: false, baseURL: p.baseUrl });
    try {
      const page = await context.newPage();
      expect((await page.goto(`${root}/v2/install`))?.status()).to.equal(200);
      await heading(page, 'Install 2').waitFor();
      const switcher = page.getByRole('navigation', { name: 'Versions' });
      expect(await switcher.getByRole('link').allTextContents()).to.deep.equal(['v2 (default)', 'v1']);
      expect(await switcher.getByRole('link', { name: 'v2 (default)' }).getAttribute('aria-current')).to.equal('true');
      const sidebar = page.getByRole('navigation', { name: 'Documentation' });
      expect(await sidebar.getByRole('link').allTextContents()).to.deep.equal(['Manual 2', 'Install 2', 'Upgrade']);
      await switcher.getByRole('link', { name: 'v1' }).click();
      await heading(page, 'Install 1').waitFor();
      expect(new URL(page.url()).pathname).to.equal(`${root}/v1/install`);
      expect(await sidebar.getByRole('link').allTextContents()).to.deep.equal(['Manual 1', 'Install 1']);
      // A page v1 does not have: its start page.
      await page.goto(`${root}/v2/upgrade`);
      await page.getByRole('navigation', { name: 'Versions' }).getByRole('link', { name: 'v1' }).click();
      await heading(page, 'Manual 1').waitFor();
      expect(new URL(page.url()).pathname).to.equal(`${root}/v1`);
    } finally {
      await context.close();
    }
  });

  it('searches the version the page is in, and passes axe', async () => {
    const { page } = await p.page();
    await page.goto(`${root}/v1/install`);
    await heading(page, 'Install 1').waitFor();
    await expectAccessible(page, 'documentation page with a version switcher');
    const box = page.getByRole('searchbox', { name: 'Search the documentation' });
    await box.fill('otters');
    await page.getByText('No results').waitFor();
    await box.fill('gerbils');
    await page.locator('#docs-results').getByRole('link', { name: 'Install 1' }).waitFor();
    await expectAccessible(page, 'documentation search in a version');
  });
});
