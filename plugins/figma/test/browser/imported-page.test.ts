import { expect } from 'chai';
import type { Page } from 'playwright-core';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  heading,
  signInAs,
  startBrowserProduct,
} from '../../../../test/helpers/browser.ts';
import type { TestUser } from '../../../../test/helpers/kernel.ts';
import { FIGMA_KEYS, type FigmaStandIn, startFigmaStandIn } from '../../../../test/helpers/figma-server.ts';

/** The canvas shows the imported content itself: axe checks the editor's chrome around it. */
const CHROME_ONLY = { exclude: ['.cms-canvas-frame', '.cms-version-frame'] };

describe('figma in the browser: the settings and import screens, an imported page in the page editor', function () {
  this.timeout(180_000);
  let figma: FigmaStandIn;
  let p: BrowserProduct;

  before(async function () {
    this.timeout(240_000);
    figma = await startFigmaStandIn();
    // A product of its own: FIGMA_API_URL is read at start and must name this stand-in.
    p = await startBrowserProduct({ env: { FIGMA_API_URL: figma.url } });
  });
  after(async () => {
    await p?.close();
    await figma?.close();
  });

  it('shows the imported headings, button and image in the canvas; an edit saves', async () => {
    const admin = await p.t.admin();
    const site = await p.t.call('POST', '/cms-one/websites', admin, {
      name: 'Figma browser site',
      rootPath: '/figma-browser',
      locales: ['en'],
    });
    expect(site.statusCode, site.body).to.equal(201);
    expect((await p.t.call('PUT', '/figma/settings', admin, { token: figma.token })).statusCode).to.equal(200);
    const editor = await p.t.createUser({
      permissions: ['objects:read', 'objects:write', 'objects:publish', 'assets:upload', 'assets:read'],
    });
    const imported = await p.t.call('POST', '/figma/import', editor, {
      url: `https://www.figma.com/design/${FIGMA_KEYS.landing}/Landing-page?node-id=1-2`,
      websiteId: site.json().id,
      locale: 'en',
      create: true,
      path: '/landing',
      title: 'Landing',
    });
    expect(imported.statusCode, imported.body).to.equal(201);
    const pageId = imported.json().page.id;

    const { page: tab, context, errors } = await p.page();
    await signInAs(p, context, editor);
    await tab.goto(`/cms-one/editor/pages/${pageId}`);
    await tab.getByRole('heading', { level: 1, name: 'Editing page: Landing' }).waitFor();
    await tab.locator('iframe.cms-canvas-frame[data-ready]').waitFor();
    const canvas = tab.frameLocator('iframe.cms-canvas-frame');
    await canvas.locator('h1', { hasText: 'Build pages from your designs' }).waitFor();
    await canvas.locator('a.button', { hasText: 'Get started' }).waitFor();
    await canvas.locator('p strong', { hasText: 'Figma' }).waitFor();
    await canvas.locator('img[src*="/dam-asset/figma/"]').first().waitFor();
    await canvas.locator('h3', { hasText: 'Real blocks' }).waitFor();
    await expectAccessible(tab, 'editor with an imported page', CHROME_ONLY);

    // The imported heading is an ordinary block: select it, change its text, save.
    await canvas.locator('h2', { hasText: 'Everything you need' }).click();
    await tab.getByRole('textbox', { name: 'Text' }).fill('All you need');
    await canvas.locator('h2', { hasText: 'All you need' }).waitFor();
    await expectAccessible(tab, 'editor with an imported heading selected', CHROME_ONLY);
    await tab.getByRole('button', { name: 'Save', exact: true }).click();
    await tab
      .getByRole('status')
      .filter({ hasText: /^Saved$/ })
      .waitFor({ timeout: 20_000 });
    const saved = (await p.t.call('GET', `/cms-one/pages/${pageId}`, editor)).json();
    expect(JSON.stringify(saved.content)).to.contain('All you need').and.not.contain('Everything you need');

    // The editor's "Import from Figma" opens the dashboard's import with this page's website chosen.
    await tab.getByRole('link', { name: 'Import from Figma' }).click();
    await tab.getByRole('heading', { level: 1, name: 'Import from Figma' }).waitFor();
    await tab.getByRole('combobox', { name: 'Website' }).and(tab.locator('[value="Figma browser site"]')).waitFor();
    expect(errors).to.deep.equal([]);
    // Published once the editor is closed (a change made elsewhere while it is open is a conflict it reports).
    const published = await p.t.call('PATCH', `/cms-one/pages/${pageId}`, editor, { published: true });
    expect(published.statusCode, published.body).to.equal(200);
    expect(published.json().published).to.equal(true);
  });

  async function open(user: TestUser, path: string) {
    const opened = await p.page();
    await signInAs(p, opened.context, user);
    await opened.page.goto(path);
    return opened;
  }
  async function website(name: string, rootPath: string): Promise<string> {
    const res = await p.t.call('POST', '/cms-one/websites', await p.t.admin(), { name, rootPath, locales: ['en'] });
    expect(res.statusCode, res.body).to.equal(201);
    return res.json().id;
  }
  const status = (page: Page, text: string | RegExp) => page.getByRole('status').filter({ hasText: text });

  it('settings: the token is written, never shown back; the API base is shown; a user without settings:manage is refused', async () => {
    const admin = await p.t.admin();
    await p.t.call('PUT', '/figma/settings', admin, { token: null });
    const { page, errors } = await open(admin, '/admin/figma/settings');
    await heading(page, 'Figma settings').waitFor();
    await page.getByText('not set', { exact: true }).waitFor();
    await page.getByText(figma.url, { exact: true }).waitFor();
    await expectAccessible(page, 'figma settings without a token');

    // A blank save is refused in the form, before any request.
    await page.getByRole('button', { name: 'Save token' }).click();
    await page.getByText('Type a personal access token').waitFor();
    await expectAccessible(page, 'figma settings with a field error');

    await page.getByLabel('Access token').fill(figma.token);
    await page.getByRole('button', { name: 'Save token' }).click();
    await page.getByText('Figma access token saved').waitFor();
    await page.getByText(`set, ending in ${figma.token.slice(-4)}`).waitFor();
    expect(await page.getByLabel('Replace the access token').inputValue()).to.equal('');
    expect(await page.content()).not.to.contain(figma.token);
    await expectAccessible(page, 'figma settings with a token');
    expect((await p.t.call('GET', '/figma/settings', admin)).json().tokenSet).to.equal(true);
    // After a reload too: the screen has only what the API answers, never the token.
    await page.reload();
    await page.getByText(`set, ending in ${figma.token.slice(-4)}`).waitFor();
    expect(await page.content()).not.to.contain(figma.token);
    expect(appErrors(errors)).to.deep.equal([]);

    const editor = await p.t.createUser({ permissions: ['objects:read', 'objects:write'] });
    const other = await open(editor, '/admin/figma/settings');
    await other.page
      .getByText(/not allowed/i)
      .first()
      .waitFor();
    await expectAccessible(other.page, 'figma settings refused');
    expect((await p.t.call('PUT', '/figma/settings', editor, { token: 'figd_x' })).statusCode).to.equal(403);
  });

  it('import: empty, refused (no token, a hostile image URL), loading, preview, a frame picked, the draft page made and opened', async () => {
    const admin = await p.t.admin();
    const websiteId = await website('Figma screens site', '/figma-screens');
    const editor = await p.t.createUser({
      permissions: ['objects:read', 'objects:write', 'assets:upload', 'assets:read'],
    });
    await p.t.call('PUT', '/figma/settings', admin, { token: null });
    // From the website's page list: its "Import from Figma" opens the import with the website chosen.
    const { page, errors } = await open(editor, `/admin/websites/${websiteId}/pages`);
    await page.getByRole('main').getByRole('link', { name: 'Import from Figma' }).click();
    await heading(page, 'Import from Figma').waitFor();
    await page.getByRole('combobox', { name: 'Website' }).and(page.locator('[value="Figma screens site"]')).waitFor();
    await page.getByText('Nothing imported yet').waitFor();
    await expectAccessible(page, 'figma import, empty');

    const linkField = page.getByRole('textbox', { name: 'Figma link or file key' });
    await linkField.fill(`https://www.figma.com/design/${FIGMA_KEYS.landing}/Landing-page`);
    await page.getByRole('button', { name: 'Preview' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'Not imported' });
    await refused.getByText('No Figma access token is set').waitFor();
    await refused.getByText('Ask an administrator to set the Figma access token.').waitFor();
    await expectAccessible(page, 'figma import, refused without a token');

    expect((await p.t.call('PUT', '/figma/settings', admin, { token: figma.token })).statusCode).to.equal(200);
    // A hostile answer: an image at the metadata address. A clear refusal, and no page made.
    const pageCount = async () =>
      Number((await p.t.db('content_pages').where({ website_id: websiteId }).count({ n: '*' }))[0].n);
    const assetCount = async () => Number((await p.t.db('assets').count({ n: '*' }))[0].n);
    const before = [await pageCount(), await assetCount()];
    await linkField.fill(`https://www.figma.com/design/${FIGMA_KEYS.privateImage}/Landing-page?node-id=1-2`);
    await page.getByRole('button', { name: 'Create draft page' }).click();
    await refused.getByText(/169\.254\.169\.254/).waitFor();
    await refused.getByText('Code FIGMA_IMAGE_REFUSED', { exact: false }).waitFor();
    await expectAccessible(page, 'figma import, a hostile answer refused');
    expect([await pageCount(), await assetCount()]).to.deep.equal(before);

    // The whole file, held at the stand-in: the loading state, then the preview with the page's frames.
    await linkField.fill(`https://www.figma.com/design/${FIGMA_KEYS.landing}/Landing-page`);
    const release = figma.hold();
    try {
      await page.getByRole('button', { name: 'Preview' }).click();
      await status(page, 'Importing from Figma').waitFor();
      await expectAccessible(page, 'figma import, loading');
    } finally {
      release();
    }
    await page.getByRole('heading', { name: 'Preview: Landing page' }).waitFor();
    await page.getByRole('combobox', { name: 'Frames on this page' }).click();
    await page.getByRole('option', { name: 'Landing page (1:2)' }).click();
    await page.getByRole('button', { name: 'Import this frame' }).click();
    await page.getByRole('list', { name: 'Imported headings' }).getByText('Build pages from your designs').waitFor();
    expect(await page.getByRole('textbox', { name: 'Frame' }).inputValue()).to.equal('1:2');
    await page
      .getByRole('table', { name: 'Import warnings' })
      .getByRole('cell', { name: 'Blob', exact: true })
      .waitFor();
    await expectAccessible(page, 'figma import, preview of a frame');

    await page.getByRole('textbox', { name: 'Page path' }).fill('/from-the-screen');
    await page.getByRole('textbox', { name: 'Page title' }).fill('From the screen');
    await page.getByRole('button', { name: 'Create draft page' }).click();
    const created = status(page, 'Draft page created');
    await created.waitFor();
    await created.getByText('“From the screen” at /from-the-screen (en) is a draft with 2 images').waitFor();
    await expectAccessible(page, 'figma import, page created');
    const open_ = created.getByRole('link', { name: 'Open in the page editor' });
    const href = await open_.getAttribute('href');
    const pageId = /^\/cms-one\/editor\/pages\/([0-9a-f-]{36})$/.exec(href ?? '')?.[1];
    expect(pageId, String(href)).to.be.a('string');
    const stored = (await p.t.call('GET', `/cms-one/pages/${pageId}`, editor)).json();
    expect(stored).to.deep.include({ path: '/from-the-screen', title: 'From the screen', published: false });
    expect(appErrors(errors).filter((e) => !/status of (409|422|502)/.test(e))).to.deep.equal([]);

    await open_.click();
    await page.getByRole('heading', { level: 1, name: 'Editing page: From the screen' }).waitFor();
  });

  it('import: a user without pages:edit is refused by the screen and the API', async () => {
    const reader = await p.t.createUser({ permissions: ['objects:read'] });
    const { page } = await open(reader, '/admin/figma/import');
    await page
      .getByText(/not allowed/i)
      .first()
      .waitFor();
    await expectAccessible(page, 'figma import refused');
    const res = await p.t.call('POST', '/figma/import', reader, {
      fileKey: FIGMA_KEYS.landing,
      websiteId: await website('Figma refused site', '/figma-refused'),
      locale: 'en',
    });
    expect(res.statusCode).to.equal(403);
  });
});
