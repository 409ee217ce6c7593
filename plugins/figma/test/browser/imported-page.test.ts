import { expect } from 'chai';
import {
  type BrowserProduct,
  expectAccessible,
  signInAs,
  startBrowserProduct,
} from '../../../../test/helpers/browser.ts';
import { FIGMA_KEYS, type FigmaStandIn, startFigmaStandIn } from '../../../../test/helpers/figma-server.ts';

/** The canvas shows the imported content itself: axe checks the editor's chrome around it. */
const CHROME_ONLY = { exclude: ['.cms-canvas-frame', '.cms-version-frame'] };

describe('figma in the browser: an imported page opens in the page editor, is edited and published', function () {
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

    const published = await p.t.call('PATCH', `/cms-one/pages/${pageId}`, editor, { published: true });
    expect(published.statusCode, published.body).to.equal(200);
    expect(published.json().published).to.equal(true);
    expect(errors).to.deep.equal([]);
  });
});
