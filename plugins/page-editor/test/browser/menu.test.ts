import { expect } from 'chai';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  sharedBrowserProduct,
  signInAs,
} from '../../../../test/helpers/browser.ts';
import { canvas, dragTo, pickedUpByKeyboard } from './editor-page.ts';
import type { TestUser } from '../../../../test/helpers/kernel.ts';

/** The canvas shows the user's own content: axe checks the editor's chrome around it. */
const CHROME_ONLY = { exclude: ['.cms-canvas-frame'] };

describe('page editor in the browser: the menu block and the menu panel', function () {
  this.timeout(180_000);
  let p: BrowserProduct;
  let admin: TestUser;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.admin();
  });

  it('adds a menu block; adds, reorders (pointer and keyboard), renames and nests entries with the canvas following; the public page serves the menu', async () => {
    const rootPath = `/mn${Date.now().toString(36)}`;
    const site = await p.t.call('POST', '/cms-one/websites', admin, { name: 'Menu site', rootPath, locales: ['en'] });
    expect(site.statusCode, site.body).to.equal(201);
    const websiteId = site.json().id as string;
    const create = async (path: string, title: string) => {
      const res = await p.t.call('POST', '/cms-one/pages', admin, {
        websiteId,
        locale: 'en',
        path,
        title,
        published: true,
        content: { type: 'section', children: [{ type: 'h1', text: title }] },
      });
      expect(res.statusCode, res.body).to.equal(201);
      return res.json() as { id: string };
    };
    const home = await create('/', 'Home');
    await create('/about', 'About');
    const first = await p.t.call('POST', '/cms-one/website-paths', admin, {
      websiteId,
      label: 'Home',
      pageId: home.id,
      position: 0,
    });
    expect(first.statusCode, first.body).to.equal(201);
    const editor = await p.t.createUser({
      permissions: ['objects:read', 'pages:edit', 'objects:publish', 'menus:edit'],
    });

    const { page: tab, context, errors } = await p.page();
    await signInAs(p, context, editor);
    await tab.goto(`/cms-one/editor/pages/${home.id}`);
    await tab.getByRole('heading', { level: 1, name: 'Editing page: Home' }).waitFor();
    await tab.locator('iframe.cms-canvas-frame[data-ready]').waitFor();

    // The Menu block: the website's menu, the page shown marked as the current one.
    await tab.getByRole('tab', { name: 'Blocks' }).click();
    await tab.getByRole('button', { name: 'Add Menu' }).click();
    await canvas(tab).locator('nav[aria-label="Menu"] a[aria-current="page"]', { hasText: 'Home' }).waitFor();
    // Named in the inspector (the new block is selected): screen readers announce that name.
    await tab.getByLabel('Name of the navigation').fill('Main menu');
    await canvas(tab).locator('nav[aria-label="Main menu"]').waitFor();

    // A new entry linked to a page, added in the panel, shows on the canvas.
    await tab.getByRole('tab', { name: 'More' }).click();
    await tab.getByRole('list', { name: 'Menu entries' }).waitFor();
    await expectAccessible(tab, 'editor menu panel', CHROME_ONLY);
    await tab.getByRole('button', { name: 'Add a menu entry' }).click();
    const form = tab.getByRole('form', { name: 'New menu entry' });
    await form.getByLabel('Label').fill('About <us>');
    await form.getByLabel('Page', { exact: true }).click();
    await tab.getByRole('option', { name: 'About (/about, en)' }).click();
    await expectAccessible(tab, 'editor menu entry form', CHROME_ONLY);
    await form.getByRole('button', { name: 'Add the entry' }).click();
    await tab.getByRole('status').filter({ hasText: 'About <us> added to the menu' }).waitFor();
    const links = () => canvas(tab).locator('nav[aria-label="Main menu"] > ul > li > a').allTextContents();
    await canvas(tab)
      .locator(`nav[aria-label="Main menu"] a[href="${rootPath}/about"]`, { hasText: 'About <us>' })
      .waitFor();
    expect(await links()).to.deep.equal(['Home', 'About <us>']);

    // Reorder: About goes above Home; the canvas follows once it is stored.
    await dragTo(
      tab,
      tab.getByRole('button', { name: 'Move menu entry About <us>' }),
      tab.locator('li[data-menu-entry]', { hasText: 'Home' }),
    );
    await tab.getByRole('status').filter({ hasText: 'About <us> moved' }).waitFor();
    await canvas(tab)
      .locator('nav[aria-label="Main menu"] > ul > li:first-child > a', { hasText: 'About <us>' })
      .waitFor();
    expect(await links()).to.deep.equal(['About <us>', 'Home']);

    // With the keyboard alone: Home goes back up (space, arrow, space on its handle). A keyboard user
    // starts from a list at rest: the pointer away from it, the rows' move transitions finished
    // (dnd-kit measures the rows when the keyboard drag starts).
    await tab.mouse.move(0, 0);
    await tab.waitForLoadState('networkidle'); // the menu's refetch after the move is in
    await tab.waitForFunction(
      () =>
        (globalThis as unknown as { document: { getAnimations(): unknown[] } }).document.getAnimations().length === 0,
    );
    await tab.getByRole('button', { name: 'Move menu entry Home' }).focus();
    await tab.keyboard.press('Space');
    await pickedUpByKeyboard(tab);
    await tab.keyboard.press('ArrowUp');
    await tab.getByText('Home is over About <us>.').waitFor({ state: 'attached' });
    await tab.keyboard.press('Space');
    await tab.getByRole('status').filter({ hasText: 'Home moved' }).waitFor();
    await canvas(tab).locator('nav[aria-label="Main menu"] > ul > li:first-child > a', { hasText: 'Home' }).waitFor();

    // Renamed and nested below Home with the entry's form.
    await tab.getByRole('button', { name: 'Edit About <us>' }).click();
    const edit = tab.getByRole('form', { name: 'Edit the entry About <us>' });
    await edit.getByLabel(/^Label/).fill('About us');
    await edit.getByLabel('Below', { exact: true }).click();
    await tab.getByRole('option', { name: 'Home', exact: true }).click();
    await edit.getByRole('button', { name: 'Save the entry' }).click();
    await canvas(tab).locator('nav[aria-label="Main menu"] > ul > li > ul > li > a', { hasText: 'About us' }).waitFor();
    expect(await links()).to.deep.equal(['Home']);

    // Saved and published, the live page serves the menu in that order, the current page marked.
    await tab.getByRole('button', { name: 'Save', exact: true }).click();
    await tab
      .getByRole('status')
      .filter({ hasText: /^Saved$/ })
      .waitFor();
    const live = await context.newPage();
    await live.goto(rootPath);
    const nav = live.getByRole('navigation', { name: 'Main menu' });
    await nav.waitFor();
    expect(await nav.getByRole('link').allTextContents()).to.deep.equal(['Home', 'About us']);
    expect(await nav.getByRole('link', { name: 'Home' }).getAttribute('aria-current')).to.equal('page');
    await nav.locator('li li').getByRole('link', { name: 'About us' }).click();
    await live.getByRole('heading', { level: 1, name: 'About' }).waitFor();
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('shows the menu read only to a user without menus:edit', async () => {
    const rootPath = `/mr${Date.now().toString(36)}`;
    const site = await p.t.call('POST', '/cms-one/websites', admin, { name: 'Read menu', rootPath, locales: ['en'] });
    const websiteId = site.json().id as string;
    const page = await p.t.call('POST', '/cms-one/pages', admin, {
      websiteId,
      locale: 'en',
      path: '/',
      title: 'Start',
      content: { type: 'section', children: [] },
    });
    await p.t.call('POST', '/cms-one/website-paths', admin, { websiteId, label: 'Contact', path: '#contact' });
    const writer = await p.t.createUser({ permissions: ['objects:read', 'pages:edit'] });
    const { page: tab, context } = await p.page();
    await signInAs(p, context, writer);
    await tab.goto(`/cms-one/editor/pages/${page.json().id}`);
    await tab.locator('iframe.cms-canvas-frame[data-ready]').waitFor();
    await tab.getByRole('tab', { name: 'More' }).click();
    await tab.getByRole('list', { name: 'Menu entries' }).getByText('Contact').waitFor();
    await tab.getByText('Changing the menu needs menus:edit.').waitFor();
    expect(await tab.getByRole('button', { name: 'Add a menu entry' }).count()).to.equal(0);
    expect(await tab.getByRole('button', { name: 'Move menu entry Contact' }).count()).to.equal(0);
  });
});
