import { expect } from 'chai';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  heading,
  sharedBrowserProduct,
  signIn,
} from '../../../../test/helpers/browser.ts';
import type { TestUser } from '../../../../test/helpers/kernel.ts';
import { CHROME_ONLY, canvas, dragTo, status, uploadImage } from './editor-page.ts';

/**
 * The editor issue's "done when": an editor holding only the keys the page editor names builds and
 * publishes a page end to end in the browser, and the public site serves it; what the keys do not
 * allow is neither offered nor accepted.
 */
describe('page editor end to end: an editor with only the editing keys', function () {
  this.timeout(240_000);
  let p: BrowserProduct;
  let admin: TestUser;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.admin();
  });

  it('signs in, creates a page from the page list, builds it by drag and drop with an image, publishes it; the site serves it', async () => {
    const stamp = Date.now().toString(36);
    const root = `bakery${stamp}`;
    const site = await p.t.call('POST', '/cms-one/websites', admin, {
      name: `Bakery ${stamp}`,
      rootPath: `/${root}`,
      locales: ['en'],
    });
    expect(site.statusCode, site.body).to.equal(201);
    const siteId = site.json().id as string;
    await uploadImage(p, admin, `/bakery-${stamp}`, 'loaf.png');
    const theme = await p.t.call('POST', `/cms-one/websites/${siteId}/themes`, admin, {
      name: 'Bakery',
      colors: { background: '#fffaf0', text: '#222222' },
    });
    expect(theme.statusCode, theme.body).to.equal(201);
    const themeId = theme.json().id as string;
    await p.t.call('PUT', `/cms-one/websites/${siteId}/theme`, admin, { themeId });

    // The administrator makes the role and the user through the API, as the dashboard's screens do.
    const keys = ['objects:read', 'pages:edit', 'objects:publish', 'assets:read'];
    const role = await p.t.call('POST', '/auth/roles', admin, { name: `page-editor-${stamp}`, permissions: keys });
    expect(role.statusCode, role.body).to.equal(201);
    const email = `editor-${stamp}@example.test`;
    const password = `pw-${stamp}-Correct-Horse`;
    const user = await p.t.call('POST', '/auth/users', admin, { email, password, roles: [`page-editor-${stamp}`] });
    expect(user.statusCode, user.body).to.equal(201);

    // Through the dashboard's sign-in page, to the website's page list.
    const { page: tab, context, errors } = await p.page();
    await signIn(tab, { email, password }, '/sign-in');
    const menu = tab.getByRole('navigation', { name: 'Main' });
    await menu.getByRole('link', { name: 'Websites', exact: true }).click();
    await heading(tab, 'Websites').waitFor();
    await tab.getByRole('link', { name: `Pages of Bakery ${stamp}` }).click();
    await heading(tab, `Bakery ${stamp}: Pages`).waitFor();
    await tab.getByRole('button', { name: 'New page' }).click();
    const dialog = tab.getByRole('dialog');
    await dialog.getByLabel(/^Title/).fill('Fresh today');
    await dialog.getByLabel(/^Path/).fill('/today');
    await dialog.getByRole('button', { name: 'Create page' }).click();
    await heading(tab, 'Fresh today').waitFor();
    const pageId = new URL(tab.url()).pathname.split('/').pop() as string;

    // Opened in the editor from the page's screen.
    await tab.getByRole('link', { name: 'Open in editor' }).click();
    await tab.getByRole('heading', { level: 1, name: 'Editing page: Fresh today' }).waitFor();
    await tab.locator('iframe.cms-canvas-frame[data-ready]').waitFor();
    expect(new URL(tab.url()).pathname).to.equal(`/cms-one/editor/pages/${pageId}`);

    // Blocks dragged onto the canvas: a heading, a paragraph and an image.
    await tab.getByRole('tab', { name: 'Blocks' }).click();
    const area = tab.locator('main.cms-canvas-area');
    await dragTo(tab, tab.getByRole('button', { name: 'Drag block Heading' }), area);
    await canvas(tab).locator('h2', { hasText: 'Heading' }).waitFor();
    await dragTo(tab, tab.getByRole('button', { name: 'Drag block Paragraph' }), area);
    await canvas(tab).locator('p', { hasText: 'Write something here.' }).waitFor();
    await dragTo(tab, tab.getByRole('button', { name: 'Drag block Image' }), area);

    // The image, chosen from the asset library (the dropped block is the selected one).
    await tab.getByRole('button', { name: 'Choose from the asset library' }).click();
    await tab.getByRole('button', { name: 'Use loaf.png' }).click();
    await canvas(tab).locator(`img[src*="/dam-asset/bakery-${stamp}/loaf.png"]`).waitFor();
    await tab.getByLabel('Alternative text').fill('A loaf of bread');

    // The texts, typed in the inspector.
    await canvas(tab).locator('h2', { hasText: 'Heading' }).click();
    await tab.getByLabel('Text').fill('Bread of the day');
    await canvas(tab).locator('h2', { hasText: 'Bread of the day' }).waitFor();
    await canvas(tab).locator('p', { hasText: 'Write something here.' }).click();
    await tab.getByLabel('Text').fill('Sourdough, baked at dawn.');
    await canvas(tab).locator('p', { hasText: 'Sourdough, baked at dawn.' }).waitFor();
    await expectAccessible(tab, 'the editor as an editor', CHROME_ONLY);

    // Published from the editor (Publish saves the editor's state first).
    await tab.getByRole('button', { name: 'Publish' }).click();
    await tab.getByText('Published', { exact: true }).first().waitFor();
    await status(tab)
      .filter({ hasText: /^Saved$/ })
      .waitFor();
    const link = tab.getByRole('link', { name: 'Open the published page' });
    expect(await link.getAttribute('href')).to.equal(`/${root}/today`);

    // The public site serves it: the HTML document to a browser, JSON to a client.
    const visitor = await p.page();
    const answer = await visitor.page.goto(`/${root}/today`);
    expect(answer?.status()).to.equal(200);
    await visitor.page.getByRole('heading', { name: 'Bread of the day' }).waitFor();
    await visitor.page.getByText('Sourdough, baked at dawn.').waitFor();
    const image = visitor.page.getByRole('img', { name: 'A loaf of bread' });
    expect(await image.getAttribute('src')).to.contain(`/dam-asset/bakery-${stamp}/loaf.png`);
    expect(await image.evaluate((img: { naturalWidth: number }) => img.naturalWidth)).to.equal(40);
    const json = await p.t.call('GET', `/public/page/${root}/today`, null);
    expect(json.statusCode, json.body).to.equal(200);
    expect(json.json()).to.include({ id: pageId, title: 'Fresh today', path: '/today' });
    const texts = JSON.stringify(json.json().content);
    expect(texts).to.contain('Bread of the day').and.to.contain('Sourdough, baked at dawn.');

    // What the keys do not allow is not offered: no theme saving, no users, roles or settings.
    await tab.getByRole('tab', { name: 'More' }).click();
    await tab.getByText('Changes show on the canvas only: saving the theme needs websites:edit.').waitFor();
    expect(await tab.getByRole('button', { name: 'Save the theme' }).count()).to.equal(0);
    const dashboard = await context.newPage();
    await dashboard.goto('/admin');
    const nav = dashboard.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Websites', exact: true }).waitFor();
    for (const name of ['Users', 'Roles', 'Security settings', 'Single sign-on'])
      expect(await nav.getByRole('link', { name, exact: true }).count(), name).to.equal(0);
    await dashboard.goto('/admin/content-settings');
    await heading(dashboard, 'Editor settings').waitFor();
    expect(await dashboard.getByRole('button', { name: /^Save/ }).count()).to.equal(0);
    await dashboard.goto('/admin/users');
    await dashboard.getByRole('alert').filter({ hasText: 'Not allowed' }).waitFor();

    // And the API refuses it, whatever the browser sends (the user's own session).
    const [session] = (await context.cookies()).filter((c) => c.httpOnly);
    const editor = { cookie: `${session.name}=${session.value}` } as TestUser;
    const refused: Array<[string, string, unknown]> = [
      ['PUT', `/cms-one/websites/${siteId}/themes/${themeId}`, { name: 'Mine' }],
      ['PUT', `/cms-one/websites/${siteId}/theme`, { themeId }],
      ['GET', '/auth/users', undefined],
      ['POST', '/auth/roles', { name: 'all', permissions: ['*'] }],
      ['PUT', '/cms-one/settings/autosave', { enabled: false, intervalSeconds: 30 }],
      ['PUT', '/security-settings', {}],
      ['DELETE', `/cms-one/pages/${pageId}`, undefined],
    ];
    for (const [method, url, body] of refused) {
      const res = await p.t.call(method, url, editor, body);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).to.equal(403);
    }
    expect((await p.t.call('GET', `/cms-one/pages/${pageId}`, admin)).json().published).to.equal(true);
    expect(appErrors(errors)).to.deep.equal([]);
  });
});
