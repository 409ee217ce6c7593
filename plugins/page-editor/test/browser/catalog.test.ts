import { expect } from 'chai';
import type { Page } from 'playwright-core';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  sharedBrowserProduct,
  signInAs,
} from '../../../../test/helpers/browser.ts';
import { canvas, dragTo } from './editor-page.ts';
import type { TestUser } from '../../../../test/helpers/kernel.ts';

/** The canvases show the user's own content: axe checks the editor's chrome around them. */
const CHROME_ONLY = { exclude: ['.cms-canvas-frame', '.cms-kit-frame'] };

const saved = (page: Page) =>
  page
    .getByRole('status')
    .filter({ hasText: /^Saved$/ })
    .waitFor({ timeout: 20_000 });

/** The computed colour of the first `selector` in the canvas (runs in the page: no DOM types here). */
const canvasColour = (page: Page, selector: string) =>
  page.evaluate((sel) => {
    type El = unknown;
    const g = globalThis as unknown as {
      document: { querySelector(s: string): { contentDocument: { querySelector(s: string): El } | null } | null };
      getComputedStyle(el: El): { color: string };
    };
    const el = g.document.querySelector('iframe.cms-canvas-frame')?.contentDocument?.querySelector(sel);
    return el ? g.getComputedStyle(el).color : null;
  }, selector);

async function open(p: BrowserProduct, user: TestUser, path: string, ready: string) {
  const { page, context, errors } = await p.page();
  await signInAs(p, context, user);
  await page.goto(path);
  await page.getByRole('heading', { level: 1, name: /^Editing/ }).waitFor();
  await page.locator(ready).first().waitFor();
  return { page, errors };
}

describe('page editor in the browser: templates, layouts and kits in the theme', function () {
  this.timeout(180_000);
  let p: BrowserProduct;
  let admin: TestUser;
  let websiteId: string;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.admin();
    const site = await p.t.call('POST', '/cms-one/websites', admin, {
      name: 'Catalog site',
      rootPath: `/cat${Date.now().toString(36)}`,
      locales: ['en'],
    });
    expect(site.statusCode, site.body).to.equal(201);
    websiteId = site.json().id;
    const theme = await p.t.call('POST', `/cms-one/websites/${websiteId}/themes`, admin, {
      name: 'Calm',
      colors: { background: '#ffffff', text: '#222222' },
    });
    expect(theme.statusCode, theme.body).to.equal(201);
    await p.t.call('PUT', `/cms-one/websites/${websiteId}/theme`, admin, { themeId: theme.json().id });
  });

  const template = async (name: string, text: string) => {
    const res = await p.t.call('POST', '/cms-one/templates', admin, {
      path: `/${name.toLowerCase().replace(/\W+/g, '-')}-${Date.now().toString(36)}`,
      name,
      content: { type: 'section', children: [{ type: 'h2', text }] },
    });
    expect(res.statusCode, res.body).to.equal(201);
    return res.json() as { id: string; path: string };
  };

  it('edits a template by drag and drop and saves it; the canvas follows a theme colour', async () => {
    const t = await template('Hero template', 'Hero');
    const designer = await p.t.createUser({ permissions: ['objects:read', 'templates:edit', 'websites:edit'] });
    const { page, errors } = await open(
      p,
      designer,
      `/cms-one/editor/templates/${t.id}?website=${websiteId}`,
      'iframe.cms-canvas-frame[data-ready]',
    );
    await page.getByRole('heading', { level: 1, name: 'Editing template: Hero template' }).waitFor();
    await canvas(page).locator('h2', { hasText: 'Hero' }).waitFor();
    await expectAccessible(page, 'template editor', CHROME_ONLY);

    await page.getByRole('tab', { name: 'Blocks' }).click();
    await dragTo(
      page,
      page.getByRole('button', { name: 'Drag block Paragraph' }),
      page.locator('main.cms-canvas-area'),
    );
    await canvas(page).locator('section > p').waitFor();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await saved(page);
    const stored = (await p.t.call('GET', `/cms-one/templates/${t.id}`, admin)).json();
    expect(stored.content.children.map((c: { type: string }) => c.type)).to.deep.equal(['h2', 'p']);

    // Templates keep no versions: the More tab has the preview website and the theme, no history.
    await page.getByRole('tab', { name: 'More' }).click();
    await page.getByRole('combobox', { name: 'Website whose theme draws it' }).waitFor();
    expect(await page.getByRole('button', { name: /^Version of / }).count()).to.equal(0);
    expect(await canvasColour(page, 'h2')).to.equal('rgb(34, 34, 34)');
    await page.getByRole('textbox', { name: 'Colour text' }).fill('#c80000');
    await page.waitForFunction(() => {
      const g = globalThis as unknown as {
        document: {
          querySelector(s: string): { contentDocument: { querySelector(s: string): unknown } | null } | null;
        };
        getComputedStyle(el: unknown): { color: string };
      };
      const h2 = g.document.querySelector('iframe.cms-canvas-frame')?.contentDocument?.querySelector('h2');
      return h2 ? g.getComputedStyle(h2).color === 'rgb(200, 0, 0)' : false;
    });
    // The colour picker stays open: its sliders are named after the colour, and axe reads them too.
    await page.getByRole('slider', { name: 'Saturation and brightness of the colour text' }).waitFor();
    await page.getByRole('slider', { name: 'Hue of the colour text' }).waitFor();
    await expectAccessible(page, 'template editor, theme', CHROME_ONLY);
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it("edits a layout's header and footer region by region; the page's canvas shows the new header", async () => {
    const layout = await p.t.call('POST', `/cms-one/websites/${websiteId}/templates`, admin, {
      name: 'Main layout',
      isDefault: true,
      regions: {
        header: { type: 'nav', children: [{ type: 'a', props: { href: '/' }, text: 'Home' }] },
        footer: { type: 'p', text: 'Old footer' },
      },
    });
    expect(layout.statusCode, layout.body).to.equal(201);
    const layoutId = layout.json().id;
    const pageRes = await p.t.call('POST', '/cms-one/pages', admin, {
      websiteId,
      locale: 'en',
      path: '/with-layout',
      title: 'With layout',
      content: { type: 'section', children: [{ type: 'p', text: 'Body' }] },
    });
    expect(pageRes.statusCode, pageRes.body).to.equal(201);
    const designer = await p.t.createUser({ permissions: ['objects:read', 'websites:edit', 'pages:edit'] });
    const { page, errors } = await open(
      p,
      designer,
      `/cms-one/editor/layouts/${websiteId}/${layoutId}`,
      'iframe.cms-canvas-frame[data-ready]',
    );
    await canvas(page).getByText("The page's content goes here").waitFor();
    await expectAccessible(page, 'layout editor', CHROME_ONLY);

    await canvas(page).locator('header a', { hasText: 'Home' }).click();
    await page.getByLabel('Text').fill('Start');
    await canvas(page).locator('header a', { hasText: 'Start' }).waitFor();
    // Switching regions saves the header first; the footer is then the region edited.
    await page.getByText('Footer', { exact: true }).click();
    await canvas(page).locator('footer p[data-cms-node="r"]').click();
    const layoutNow = () => p.t.call('GET', `/cms-one/websites/${websiteId}/templates/${layoutId}`, admin);
    expect((await layoutNow()).json().regions.header.children[0].text).to.equal('Start');
    await page.getByLabel('Text').fill('New footer');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await saved(page);
    const regions = (await layoutNow()).json().regions;
    expect(regions.footer.text).to.equal('New footer');
    expect(regions.header.children[0].text).to.equal('Start');

    const pageEditor = await open(
      p,
      designer,
      `/cms-one/editor/pages/${pageRes.json().id}`,
      'iframe.cms-canvas-frame[data-ready]',
    );
    await canvas(pageEditor.page).locator('header a', { hasText: 'Start' }).waitFor();
    await canvas(pageEditor.page).locator('footer p', { hasText: 'New footer' }).waitFor();
    // The dashboard's layout screen links here for a user with websites:edit.
    await pageEditor.page.goto(`/admin/websites/${websiteId}/layouts/${layoutId}`);
    const link = pageEditor.page.getByRole('link', { name: 'Open in editor' });
    expect(await link.getAttribute('href')).to.equal(`/cms-one/editor/layouts/${websiteId}/${layoutId}`);
    expect(appErrors([...errors, ...pageEditor.errors])).to.deep.equal([]);
  });

  it('reorders, removes and adds the templates of a kit, drawn in the theme, and opens one in the editor', async () => {
    const a = await template('Alpha', 'Alpha text');
    const b = await template('Beta', 'Beta text');
    const c = await template('Gamma', 'Gamma text');
    const kit = await p.t.call('POST', '/cms-one/kits', admin, {
      name: `Kit ${Date.now().toString(36)}`,
      templateIds: [a.id, b.id, c.id],
    });
    expect(kit.statusCode, kit.body).to.equal(201);
    const kitId = kit.json().id;
    const stored = async () => (await p.t.call('GET', `/cms-one/kits/${kitId}`, admin)).json().templateIds;
    const designer = await p.t.createUser({ permissions: ['objects:read', 'templates:edit'] });
    const { page, errors } = await open(
      p,
      designer,
      `/cms-one/editor/kits/${kitId}?website=${websiteId}`,
      'iframe.cms-kit-frame[data-ready]',
    );
    await page.frameLocator('iframe[title="Template Gamma"]').locator('h2', { hasText: 'Gamma text' }).waitFor();
    await expectAccessible(page, 'kit view', CHROME_ONLY);

    // Gamma dragged to the top.
    await dragTo(
      page,
      page.getByRole('button', { name: 'Move Gamma', exact: true }),
      page.getByRole('heading', { name: '1. Alpha' }),
    );
    await page.getByRole('heading', { name: '1. Gamma' }).waitFor();
    await saved(page);
    expect(await stored()).to.deep.equal([c.id, a.id, b.id]);
    // The buttons do the same without a pointer.
    await page.getByRole('button', { name: 'Move Alpha down' }).click();
    await page.getByRole('heading', { name: '3. Alpha' }).waitFor();
    await saved(page);
    await page.getByRole('button', { name: 'Remove Beta from the kit' }).click();
    await page.getByRole('heading', { name: /Beta$/ }).waitFor({ state: 'detached' });
    await saved(page);
    expect(await stored()).to.deep.equal([c.id, a.id]);
    await page.getByRole('combobox', { name: 'Template to add' }).click();
    // By its path too: other files' templates in the shared product may be named Beta as well.
    await page.getByRole('option', { name: `Beta (${b.path})`, exact: true }).click();
    await page.getByRole('button', { name: 'Add to the kit' }).click();
    await page.getByRole('heading', { name: '3. Beta' }).waitFor();
    await saved(page);
    expect(await stored()).to.deep.equal([c.id, a.id, b.id]);

    await page.getByRole('link', { name: 'Open in editor: Alpha' }).click();
    await page.getByRole('heading', { level: 1, name: 'Editing template: Alpha' }).waitFor();
    expect(new URL(page.url()).searchParams.get('website')).to.equal(websiteId);
    // The dashboard's kit screen links to the kit view for a user with templates:edit.
    await page.goto(`/admin/kits/${kitId}`);
    const link = page.getByRole('link', { name: 'Open in editor' });
    expect(await link.getAttribute('href')).to.equal(`/cms-one/editor/kits/${kitId}`);
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('offers a reader neither the kit changes nor a template save', async () => {
    const t = await template('Read only', 'Keep');
    const kit = (
      await p.t.call('POST', '/cms-one/kits', admin, { name: `RO ${Date.now()}`, templateIds: [t.id] })
    ).json();
    const reader = await p.t.createUser({ permissions: ['objects:read'] });
    const kitView = await open(p, reader, `/cms-one/editor/kits/${kit.id}`, 'iframe.cms-kit-frame[data-ready]');
    await kitView.page.getByText('Read only', { exact: true }).first().waitFor();
    expect(await kitView.page.getByRole('button', { name: 'Remove Read only from the kit' }).count()).to.equal(0);
    const editor = await open(p, reader, `/cms-one/editor/templates/${t.id}`, 'iframe.cms-canvas-frame[data-ready]');
    await editor.page.getByText('Your role may look at this template').waitFor();
    expect(await editor.page.getByRole('button', { name: 'Save', exact: true }).count()).to.equal(0);
    // Nor does the dashboard offer the editor to a reader.
    await editor.page.goto(`/admin/templates/${t.id}`);
    await editor.page.getByRole('heading', { level: 1, name: 'Read only' }).waitFor();
    expect(await editor.page.getByRole('link', { name: 'Open in editor' }).count()).to.equal(0);
    expect(appErrors([...kitView.errors, ...editor.errors])).to.deep.equal([]);
  });
});
