import { expect } from 'chai';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  sharedBrowserProduct,
  signInAs,
} from '../../../../test/helpers/browser.ts';
import type { TestUser } from '../../../../test/helpers/kernel.ts';
import { CHROME_ONLY, canvas, openEditor } from './editor-page.ts';

describe("page editor in the browser: its own entry and an empty page's hint", function () {
  this.timeout(180_000);
  let p: BrowserProduct;
  let admin: TestUser;
  let websiteId: string;
  let site: string;
  const stamp = Date.now().toString(36);
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.admin();
    site = `Entry site ${stamp}`;
    const res = await p.t.call('POST', '/cms-one/websites', admin, {
      name: site,
      rootPath: `/entry${stamp}`,
      locales: ['en'],
    });
    expect(res.statusCode, res.body).to.equal(201);
    websiteId = res.json().id;
  });

  const created = async (url: string, body: unknown) => {
    const res = await p.t.call('POST', url, admin, body);
    expect(res.statusCode, res.body).to.equal(201);
    return res.json() as { id: string };
  };

  it('an empty page says how to add a block, on the canvas and in the outline, until one is in', async () => {
    const page = await created('/cms-one/pages', {
      websiteId,
      locale: 'en',
      path: '/empty',
      title: 'Empty one',
      content: { type: 'section', children: [] },
    });
    const { page: tab, errors } = await openEditor(p, admin, `/cms-one/editor/pages/${page.id}`);
    const hint = tab.getByRole('main', { name: 'Canvas' }).getByText('This page is empty');
    await hint.waitFor();
    await tab.getByText('Open the Blocks tab and drag a block onto the canvas or the outline').waitFor();
    await tab.getByText('Nothing here yet: drag a block from the Blocks tab').waitFor();
    await expectAccessible(tab, 'empty page in the editor', CHROME_ONLY);

    await tab.getByRole('tab', { name: 'Blocks' }).click();
    await tab.getByRole('button', { name: 'Add Heading' }).click();
    await canvas(tab).locator('h2', { hasText: 'Heading' }).waitFor();
    await hint.waitFor({ state: 'detached' });
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('/cms-one/ leads to the entry: a tree of each website with search and recent items; a document opens on its canvas', async () => {
    // Only the exact /cms-one and /cms-one/ redirect; the data routes below stay where they are.
    for (const url of ['/cms-one', '/cms-one/']) {
      const res = await p.t.inject({ method: 'GET', url });
      expect(res.statusCode, url).to.equal(302);
      expect(res.headers.location, url).to.equal('/cms-one/editor/');
    }
    expect((await p.t.call('GET', `/cms-one/pages?websiteId=${websiteId}`, admin)).statusCode).to.equal(200);

    const about = await created('/cms-one/pages', {
      websiteId,
      locale: 'en',
      path: '/about',
      title: `About ${stamp}`,
      content: { type: 'section', children: [{ type: 'h1', text: 'About us' }] },
    });
    const layout = await created(`/cms-one/websites/${websiteId}/templates`, {
      name: `Main layout ${stamp}`,
      regions: { header: { type: 'nav', children: [] } },
    });
    await created('/cms-one/snippets', {
      name: `Site snippet ${stamp}`,
      websiteId,
      content: { type: 'p', text: 'Hi' },
    });
    await created('/cms-one/templates', {
      name: `Shared template ${stamp}`,
      path: `/shared-${stamp}`,
      content: { type: 'section', children: [] },
    });

    // Signed out, the entry sends to the sign-in and back.
    const { page, context, errors } = await p.page();
    await page.goto('/cms-one/');
    await page.getByLabel('E-mail').waitFor();
    expect(new URL(page.url()).searchParams.get('next')).to.equal('/cms-one/editor/');

    await signInAs(p, context, admin);
    await page.goto('/cms-one/');
    expect(new URL(page.url()).pathname).to.equal('/cms-one/editor/');
    await page.getByRole('heading', { level: 1, name: 'Page editor' }).waitFor();
    await page.getByText('Nothing opened in this browser yet').waitFor();
    const tree = page.getByRole('list', { name: 'Content by website' });
    const siteBranch = tree
      .getByRole('listitem')
      .filter({ hasText: `${site} (/entry${stamp})` })
      .first();
    await siteBranch.getByRole('link', { name: `About ${stamp}` }).waitFor();
    await siteBranch.getByRole('link', { name: `Main layout ${stamp}` }).waitFor();
    await siteBranch.getByRole('link', { name: `Site snippet ${stamp}` }).waitFor();
    const shared = tree.getByRole('listitem').filter({ hasText: 'Shared by all websites' }).first();
    await shared.getByRole('link', { name: `Shared template ${stamp}` }).waitFor();
    await expectAccessible(page, 'editor entry');

    // The search narrows the tree to what matches, by title or path.
    await page.getByLabel('Search').fill(`about ${stamp}`);
    await tree.getByRole('link', { name: `About ${stamp}` }).waitFor();
    expect(await tree.getByRole('link', { name: `Main layout ${stamp}` }).count()).to.equal(0);
    expect(await tree.getByRole('link', { name: `Shared template ${stamp}` }).count()).to.equal(0);
    await page.getByLabel('Search').fill(`nothing-${stamp}`);
    await page.getByText(`Nothing matches "nothing-${stamp}".`).waitFor();
    await expectAccessible(page, 'editor entry, nothing matches');
    await page.getByLabel('Search').fill(`about ${stamp}`);

    // Opening one goes straight to its canvas.
    await tree.getByRole('link', { name: `About ${stamp}` }).click();
    await page.getByRole('heading', { level: 1, name: `Editing page: About ${stamp}` }).waitFor();
    await page.locator('iframe.cms-canvas-frame[data-ready]').waitFor();
    expect(new URL(page.url()).pathname).to.equal(`/cms-one/editor/pages/${about.id}`);

    // Back at the entry, it is the first recent item; a layout opens at its website's address.
    await page.goto('/cms-one/editor/');
    const recent = page.getByRole('list', { name: 'Recently opened' });
    await recent.getByRole('link', { name: `About ${stamp}` }).waitFor();
    await expectAccessible(page, 'editor entry with recent items');
    await tree.getByRole('link', { name: `Main layout ${stamp}` }).click();
    await page.getByRole('heading', { level: 1, name: /^Editing/ }).waitFor();
    expect(new URL(page.url()).pathname).to.equal(`/cms-one/editor/layouts/${websiteId}/${layout.id}`);
    await page.goto('/cms-one/editor/');
    expect(await recent.getByRole('link').allTextContents()).to.deep.equal([`Main layout ${stamp}`, `About ${stamp}`]);
    expect(appErrors(errors)).to.deep.equal([]);
  });
});
