import { expect } from 'chai';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  heading,
  sharedBrowserProduct,
  signIn,
} from '../../../../test/helpers/browser.ts';
import { docsSite, putFile, putManual } from '../docs-files.ts';

describe('documentation sites screen in the browser: tree, warnings, preview, nav check', function () {
  this.timeout(150_000);
  let p: BrowserProduct;
  let siteId: string;
  let name: string;
  let root: string;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    const admin = await p.t.admin();
    const suffix = Date.now().toString(36);
    const folder = `docss${suffix}`;
    name = `Staff manual ${suffix}`;
    root = `/staff${suffix}`;
    await putManual(p.t, admin, folder);
    await putFile(p.t, admin, `${folder}/guide/broken.md`, '# Broken links\n\nSee [nothing](nowhere.md).\n');
    siteId = await docsSite(p.t, admin, name, root, { sourceFolder: folder });
  });

  it('shows the tree with its warnings, previews a private document, checks a nav file as you type', async () => {
    const editor = await p.t.createUser({ permissions: ['objects:read', 'pages:edit'] });
    const { page, errors } = await p.page();
    await signIn(page, editor, '/admin/docs');
    await heading(page, 'Documentation sites').waitFor();
    await expectAccessible(page, 'documentation sites, no site chosen');
    await page.getByRole('combobox', { name: 'Documentation site' }).click();
    await page.getByRole('option', { name: `${name} (${root})` }).click();
    expect(new URL(page.url()).searchParams.get('site')).to.equal(siteId);
    const docs = page.getByRole('table', { name: 'Documents' });
    await docs.getByRole('row').filter({ hasText: 'Staff only' }).getByText('private').waitFor();
    expect(await docs.getByRole('row').count()).to.equal(6); // the header and five documents
    const warnings = page.getByRole('table', { name: 'Warnings of the site' });
    await warnings.getByRole('row').filter({ hasText: 'BROKEN_LINK' }).filter({ hasText: 'guide/broken.md' }).waitFor();
    expect(await page.getByRole('link', { name: 'Open the public site' }).getAttribute('href')).to.equal(`${root}/`);
    await expectAccessible(page, 'documentation site tree with warnings');

    // A private document's preview: staff read it; the public site does not.
    await docs.getByRole('button', { name: '/internal' }).click();
    expect(new URL(page.url()).searchParams.get('tab')).to.equal('preview');
    await page.getByRole('heading', { name: 'Staff only', level: 2 }).waitFor();
    await page.getByText('Private: staff see it here').waitFor();
    const frame = page.frameLocator('iframe[title="Preview of Staff only"]');
    await frame.getByText('The passphrase is aardvark.').waitFor();
    await expectAccessible(page, 'documentation preview of a private document');
    expect((await p.t.call('GET', `/public/docs/${siteId}/page/internal`, null)).statusCode).to.equal(404);
    // Another document from the list, with its own warnings.
    await page.getByRole('combobox', { name: 'Document', exact: true }).click();
    await page.getByRole('option', { name: '/guide/broken' }).click();
    await page.getByRole('heading', { name: 'Broken links', level: 2 }).waitFor();
    await page.getByRole('table', { name: 'Warnings of the document' }).getByText('BROKEN_LINK').waitFor();

    // The nav file, checked as you type: valid, then an unknown path (a warning), then broken YAML (an error).
    await page.getByRole('tab', { name: 'Nav file' }).click();
    const text = page.getByRole('textbox', { name: 'Nav file (YAML)' });
    await text.fill('- /\n- title: Guide\n  children:\n    - guide/intro\n    - guide/advanced\n');
    await page.getByText('The nav file is valid.').waitFor();
    const nav = page.getByLabel('Navigation', { exact: true });
    await nav.getByText('Introduction → /guide/intro').waitFor();
    await expectAccessible(page, 'nav file valid');
    await text.fill('- /\n- guide/nothing-here\n');
    await page
      .getByRole('table', { name: 'Warnings of the nav file' })
      .getByRole('row')
      .filter({ hasText: 'NAV_UNKNOWN_PATH' })
      .waitFor();
    await text.fill('- [unclosed\n');
    await page.getByText('The nav file has errors').waitFor();
    await page
      .getByRole('list', { name: 'Nav file errors' })
      .getByText(/^Line \d+: /)
      .waitFor();
    await expectAccessible(page, 'nav file with errors');
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('offers a reader the tree and previews but no nav check, and passes axe at 390 px', async () => {
    const reader = await p.t.createUser({ permissions: ['objects:read'] });
    const { page, errors } = await p.page('phone');
    await signIn(page, reader, `/admin/docs?site=${siteId}&tab=nav`);
    await heading(page, 'Documentation sites').waitFor();
    await page.getByRole('table', { name: 'Documents' }).waitFor();
    expect(await page.getByRole('tab', { name: 'Nav file' }).count()).to.equal(0);
    await expectAccessible(page, 'documentation site tree at 390 px');
    expect(appErrors(errors)).to.deep.equal([]);
  });
});
