import { expect } from 'chai';
import type { Page } from 'playwright-core';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  sharedBrowserProduct,
  heading,
  signInAs,
} from '../../../../test/helpers/browser.ts';
import { eventually, type TestUser } from '../../../../test/helpers/kernel.ts';

/** Waits until the screen's loading indicators are gone (axe must see the loaded screen). */
async function settled(page: Page) {
  await page
    .getByRole('status')
    .waitFor({ state: 'detached' })
    .catch(() => {});
}

/** The part of the page's window the checks below use (this project's types have no DOM). */
type BrowserWindow = { getComputedStyle(element: unknown): { opacity: string } };

/** The open dialog once its opening transition has finished (axe would read its fading colours). */
async function shownDialog(page: Page) {
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  await eventually(
    async () =>
      expect(
        await dialog.evaluate((el) => (globalThis as unknown as BrowserWindow).getComputedStyle(el).opacity),
      ).to.equal('1'),
    {
      timeoutMs: 5_000,
    },
  );
  return dialog;
}

/** Types a value into a tags input and commits it. */
async function addTag(page: Page, label: string, value: string) {
  const input = page.getByRole('combobox', { name: label });
  await input.fill(value);
  await input.press('Enter');
}

const stamp = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;

describe('content screens in the browser: websites, pages, menus, themes, snippets, settings', function () {
  this.timeout(180_000);
  let p: BrowserProduct;
  let admin: TestUser;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.admin();
  });

  it('creates a website, edits its settings, creates, renames and publishes a page and reads it at its public path', async () => {
    const root = `shop${stamp()}`;
    const { page, context, errors } = await p.page();
    await signInAs(p, context, admin);
    await page.goto('/admin/websites');
    await heading(page, 'Websites').waitFor();
    await page.getByRole('button', { name: 'New website' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/^Name/).fill(`Shop ${root}`);
    await dialog.getByLabel(/^Root path/).fill(`/${root}`);
    await shownDialog(page);
    await expectAccessible(page, 'new website dialog');
    await dialog.getByRole('button', { name: 'Create website' }).click();

    await heading(page, `Shop ${root}`).waitFor();
    const siteId = new URL(page.url()).pathname.split('/').pop() as string;
    await settled(page);
    await expectAccessible(page, 'website settings');
    await addTag(page, 'Languages', 'de');
    await addTag(page, 'Domains', `${root}.example.test`);
    await page.getByRole('button', { name: 'Save the website' }).click();
    await page.getByText(`Shop ${root} saved`).waitFor();
    const site = (await p.t.call('GET', `/cms-one/websites/${siteId}`, admin)).json();
    expect(site).to.deep.include({ rootPath: `/${root}`, locales: ['en', 'de'], domains: [`${root}.example.test`] });

    await page.getByLabel('Theme colour').fill('#1c7ed6');
    await page.getByRole('button', { name: 'Generate the app files' }).click();
    await page.getByText(/^App files generated \(version 1/).waitFor();
    const pwa = (await p.t.call('GET', `/cms-one/websites/${siteId}`, admin)).json().settings.pwa;
    expect(pwa.manifest).to.include({ start_url: `/${root}/`, display: 'standalone', theme_color: '#1c7ed6' });

    // A bad root path: the API's 400 lands on the field, nothing is stored.
    await page.getByLabel(/^Root path/).fill('/admin');
    await page.getByRole('button', { name: 'Save the website' }).click();
    await page.getByText('Root path /admin is used by the host').waitFor();
    expect(await page.getByLabel(/^Root path/).getAttribute('aria-invalid')).to.equal('true');
    expect((await p.t.call('GET', `/cms-one/websites/${siteId}`, admin)).json().rootPath).to.equal(`/${root}`);

    // The refused root path is still an unsaved edit: leaving asks first (the unsaved-changes guard).
    await page.getByRole('navigation', { name: 'Website sections' }).getByRole('link', { name: 'Pages' }).click();
    await page
      .getByRole('dialog', { name: 'Leave without saving?' })
      .getByRole('button', { name: 'Leave and discard the changes' })
      .click();
    await heading(page, `Shop ${root}: Pages`).waitFor();
    await page.getByText('No pages match').waitFor();
    await expectAccessible(page, 'empty page list');
    await page.getByRole('button', { name: 'New page' }).click();
    await page
      .getByRole('dialog')
      .getByLabel(/^Title/)
      .fill('About us');
    await page.getByRole('dialog').getByLabel(/^Path/).fill('/about');
    await page.getByRole('dialog').getByRole('button', { name: 'Create page' }).click();

    await heading(page, 'About us').waitFor();
    const pageId = new URL(page.url()).pathname.split('/').pop() as string;
    expect(await page.getByRole('link', { name: 'Open in editor' }).getAttribute('href')).to.equal(
      `/cms-one/editor/pages/${pageId}`,
    );
    await settled(page);
    await expectAccessible(page, 'page details');
    await page.getByLabel(/^Title/).fill('About');
    await page.getByLabel(/^Path/).fill('/about-us');
    await page.getByLabel('SEO title').fill('About the shop');
    await page.getByRole('button', { name: 'Save the page' }).click();
    await page.getByText('About saved').waitFor();
    const renamed = (await p.t.call('GET', `/cms-one/pages/${pageId}`, admin)).json();
    expect(renamed).to.deep.include({ title: 'About', path: '/about-us', published: false });
    expect(renamed.seo).to.deep.equal({ title: 'About the shop' });

    expect((await p.t.call('GET', `/public/page/${root}/about-us`, null)).statusCode).to.equal(404);
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByRole('button', { name: 'Unpublish' }).waitFor();
    const view = page.getByRole('link', { name: 'View the published page' });
    expect(await view.getAttribute('href')).to.equal(`/${root}/about-us`);
    const visitor = await p.page();
    const answer = await visitor.page.goto(`/${root}/about-us`);
    expect(answer?.status()).to.equal(200);
    // A browser gets the page's HTML document (its SEO title), a client the JSON.
    expect(await visitor.page.title()).to.equal('About the shop');
    const json = await p.t.call('GET', `/public/page/${root}/about-us`, null);
    expect(json.json()).to.include({ id: pageId, title: 'About', path: '/about-us' });

    await page.getByRole('tab', { name: 'Versions' }).click();
    expect(new URL(page.url()).searchParams.get('tab')).to.equal('versions');
    await page.getByText('No earlier versions').waitFor();
    await expectAccessible(page, 'page versions');

    await page.getByRole('tab', { name: 'Languages' }).click();
    await page.getByRole('button', { name: 'Add the de version' }).click();
    await page.getByText('The de version of About created as a draft with the same content').waitFor();
    // The new language's page opens (same title, another id).
    await page.waitForURL((url) => url.pathname.startsWith('/admin/pages/') && !url.pathname.endsWith(pageId));
    await heading(page, 'About').waitFor();
    await page.getByRole('tab', { name: 'Languages' }).click();
    await page.getByRole('link', { name: 'About', exact: true }).waitFor();
    await expectAccessible(page, 'page languages');
    const german = (await p.t.call('GET', `/cms-one/pages/${pageId}/translations`, admin)).json() as Array<{
      id: string;
      locale: string;
      path: string;
      published: boolean;
    }>;
    expect(german.map((t) => [t.locale, t.path, t.published])).to.deep.equal([
      ['de', '/about-us', false],
      ['en', '/about-us', true],
    ]);
    await page.getByRole('link', { name: 'About', exact: true }).click();
    await page.waitForURL(new RegExp(`/admin/pages/${pageId}`));

    // The list's filters live in the URL; the back button walks through them.
    await page.getByRole('link', { name: `Pages of Shop ${root}` }).click();
    await heading(page, `Shop ${root}: Pages`).waitFor();
    await page.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'Drafts' }).click();
    const table = page.getByRole('table', { name: 'Pages' });
    const languages = () => table.locator('tbody tr td:nth-child(3)').allTextContents();
    await eventually(async () => expect(await languages()).to.deep.equal(['de']), { timeoutMs: 10_000 });
    expect(new URL(page.url()).searchParams.get('published')).to.equal('no');
    await page.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'Published' }).click();
    await eventually(async () => expect(await languages()).to.deep.equal(['en']), { timeoutMs: 10_000 });
    await page.getByRole('textbox', { name: 'Title or path' }).fill('nothing-like-this');
    await page.getByText('No pages match').waitFor();
    await page.waitForURL(/q=nothing-like-this/);
    await page.goBack();
    await eventually(async () => expect(await languages()).to.deep.equal(['en']), { timeoutMs: 10_000 });
    await page.goBack();
    await eventually(async () => expect(await languages()).to.deep.equal(['de']), { timeoutMs: 10_000 });
    expect(new URL(page.url()).searchParams.get('published')).to.equal('no');
    await expectAccessible(page, 'filtered page list');
    // Chromium logs the one refused save (the reserved root path); nothing else failed.
    expect(appErrors(errors)).to.deep.equal([
      'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
  });

  it('builds a menu in order, a website theme (made the active one) and a layout template', async () => {
    const root = `menu${stamp()}`;
    const site = (
      await p.t.call('POST', '/cms-one/websites', admin, { name: `Menu ${root}`, rootPath: `/${root}` })
    ).json();
    const about = (
      await p.t.call('POST', '/cms-one/pages', admin, {
        websiteId: site.id,
        locale: 'en',
        path: '/about',
        title: 'About',
      })
    ).json();
    const { page, context, errors } = await p.page();
    await signInAs(p, context, admin);

    await page.goto(`/admin/websites/${site.id}/menu`);
    await heading(page, `Menu ${root}: Menu`).waitFor();
    await page.getByText('The menu is empty').waitFor();
    await expectAccessible(page, 'empty menu');
    await page.getByRole('button', { name: 'Add a menu entry' }).click();
    let dialog = page.getByRole('dialog');
    await dialog.getByLabel(/^Label/).fill('About');
    await dialog.getByRole('combobox', { name: 'Page' }).click();
    await page.getByRole('option', { name: 'About (/about, en)' }).click();
    await dialog.getByRole('button', { name: 'Add the entry' }).click();
    await page.getByText('About added to the menu').waitFor();
    await page.getByRole('button', { name: 'Add a menu entry' }).click();
    dialog = page.getByRole('dialog');
    await dialog.getByLabel(/^Label/).fill('Contact');
    await dialog.getByRole('combobox', { name: 'Leads to' }).click();
    await page.getByRole('option', { name: /^An address/ }).click();
    await dialog.getByLabel('Address').fill('/contact');
    await dialog.getByRole('button', { name: 'Add the entry' }).click();
    await page.getByRole('button', { name: 'Move Contact up' }).click();
    await page.getByText('Contact moved up').waitFor();
    await expectAccessible(page, 'menu with entries');
    await eventually(
      async () => {
        const entries = (await p.t.call('GET', `/cms-one/website-paths?websiteId=${site.id}`, admin)).json() as Array<{
          label: string;
          position: number;
          pageId: string | null;
          path: string | null;
        }>;
        const ordered = entries.sort((a, b) => a.position - b.position);
        expect(ordered.map((e) => [e.label, e.pageId, e.path])).to.deep.equal([
          ['Contact', null, '/contact'],
          ['About', about.id, null],
        ]);
      },
      { timeoutMs: 10_000 },
    );

    await page.getByRole('navigation', { name: 'Website sections' }).getByRole('link', { name: 'Themes' }).click();
    await heading(page, `Menu ${root}: Themes`).waitFor();
    await page.getByRole('button', { name: 'New theme' }).click();
    await page.getByRole('dialog').getByLabel(/^Name/).fill('Brand');
    await page.getByRole('dialog').getByRole('button', { name: 'Create theme' }).click();
    await heading(page, 'Brand').waitFor();
    await page.getByRole('button', { name: 'Add a colour' }).click();
    await page.getByLabel('Colour 1 name').fill('primary');
    await page.getByLabel('Colour 1 value').fill('#123456');
    await page.getByLabel('Custom styles (CSS)').fill('body { margin: 0; }');
    await settled(page);
    await expectAccessible(page, 'theme editor');
    await page.getByRole('button', { name: 'Save the theme' }).click();
    await page.getByText('Brand saved').waitFor();
    await page.getByRole('button', { name: 'Make it the active theme' }).click();
    await page.getByText("Brand is the website's active theme").waitFor();
    const active = (await p.t.call('GET', `/cms-one/websites/${site.id}/theme`, admin)).json().theme;
    expect(active).to.deep.include({
      name: 'Brand',
      colors: { primary: '#123456' },
      customStyles: 'body { margin: 0; }',
    });

    await page.goto(`/admin/websites/${site.id}/layouts`);
    await heading(page, `Menu ${root}: Layouts`).waitFor();
    await page.getByText('No layouts match').waitFor();
    await page.getByRole('button', { name: 'New layout' }).click();
    await page.getByRole('dialog').getByLabel(/^Name/).fill('Blog layout');
    await page.getByRole('dialog').getByRole('button', { name: 'Create layout' }).click();
    await heading(page, 'Blog layout').waitFor();
    await addTag(page, 'Path patterns', '/blog/*');
    await page.getByRole('combobox', { name: 'Language' }).click();
    await page.getByRole('option', { name: 'en', exact: true }).click();
    await settled(page);
    await expectAccessible(page, 'layout editor');
    await page.getByRole('button', { name: 'Save the layout' }).click();
    await page.getByText('Blog layout saved').waitFor();
    const layouts = (await p.t.call('GET', `/cms-one/websites/${site.id}/templates`, admin)).json();
    expect(
      layouts.map((l: { name: string; pathPatterns: string[]; locale: string | null }) => [
        l.name,
        l.pathPatterns,
        l.locale,
      ]),
    ).to.deep.equal([['Blog layout', ['/blog/*'], 'en']]);
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('creates a snippet (content, lock), a template in a kit, and changes editor settings', async () => {
    const { page, context, errors } = await p.page();
    await signInAs(p, context, admin);

    await page.goto('/admin/snippets');
    await heading(page, 'Snippets').waitFor();
    await page.getByRole('button', { name: 'New snippet' }).click();
    const name = `Footer ${stamp()}`;
    await page.getByRole('dialog').getByLabel(/^Name/).fill(name);
    await page.getByRole('dialog').getByRole('button', { name: 'Create snippet' }).click();
    await heading(page, name).waitFor();
    const snippetId = new URL(page.url()).pathname.split('/').pop() as string;
    await page
      .getByLabel('Content (node tree)')
      .fill(JSON.stringify({ type: 'footer', children: [{ type: 'p', text: 'Made with care' }] }));
    await page.getByRole('button', { name: 'Save the snippet' }).click();
    await page.getByText(`${name} saved`).waitFor();
    await page
      .getByRole('region', { name: `HTML of ${name}` })
      .getByText(/Made with care/)
      .waitFor();
    await page.getByRole('switch', { name: 'Locked' }).click();
    await page.getByText(`${name} locked`).waitFor();
    await settled(page);
    await expectAccessible(page, 'snippet');
    const snippet = (await p.t.call('GET', `/cms-one/snippets/${snippetId}`, admin)).json();
    expect(snippet.locked).to.equal(true);
    expect(snippet.content.children[0]).to.deep.include({ type: 'p', text: 'Made with care' });

    await page.goto('/admin/templates');
    await heading(page, 'Templates').waitFor();
    await page.getByRole('button', { name: 'New template' }).click();
    const template = `hero-${stamp()}`;
    await page.getByRole('dialog').getByLabel(/^Name/).fill('Hero');
    await page.getByRole('dialog').getByLabel(/^Path/).fill(`/landing/${template}`);
    await page.getByRole('dialog').getByRole('button', { name: 'Create template' }).click();
    await heading(page, 'Hero').waitFor();
    await page.goto('/admin/templates?tab=kits');
    await page.getByRole('button', { name: 'New kit' }).click();
    const kitName = `Landing ${stamp()}`;
    await page.getByRole('dialog').getByLabel(/^Name/).fill(kitName);
    await page.getByRole('dialog').getByRole('button', { name: 'Create kit' }).click();
    await heading(page, kitName).waitFor();
    await page.getByRole('combobox', { name: 'Template to add' }).click();
    await page.getByRole('option', { name: `Hero (/landing/${template})` }).click();
    await page.getByRole('button', { name: 'Add to the kit' }).click();
    await page.getByRole('listitem').getByRole('link', { name: 'Hero' }).waitFor();
    await expectAccessible(page, 'kit');

    await page.goto('/admin/content-settings');
    await heading(page, 'Editor settings').waitFor();
    await settled(page);
    await expectAccessible(page, 'editor settings');
    const autosave = page.getByRole('region', { name: 'Autosave' });
    await autosave.getByLabel('Every (seconds)').fill('45');
    await autosave.getByRole('button', { name: 'Save autosave' }).click();
    await page.getByText('Autosave saved').waitFor();
    const presets = page.getByRole('region', { name: 'Alpine presets' });
    await presets.getByRole('button', { name: 'Add a preset' }).click();
    await presets.getByLabel('Preset 1 name').fill('Bad Name');
    await presets.getByLabel('Preset 1 expression 1').fill('{ open: false }');
    await presets.getByRole('button', { name: 'Save the presets' }).click();
    await presets.getByText(/Preset name must be/).waitFor();
    await presets.getByLabel('Preset 1 name').fill('dropdown');
    await presets.getByRole('button', { name: 'Save the presets' }).click();
    await page.getByText('Alpine presets saved').waitFor();
    expect((await p.t.call('GET', '/cms-one/settings/autosave', admin)).json().intervalSeconds).to.equal(45);
    expect((await p.t.call('GET', '/cms-one/settings/alpine-presets', admin)).json().presets).to.deep.equal([
      { name: 'dropdown', description: '', directives: { 'x-data': '{ open: false }' } },
    ]);
    // Put the organisation-wide default back for the other tests of the run.
    await p.t.call('PUT', '/cms-one/settings/autosave', admin, { enabled: true, intervalSeconds: 30 });
    await p.t.call('PUT', '/cms-one/settings/alpine-presets', admin, { presets: [] });
    // Chromium logs the one refused save (the bad preset name); nothing else failed.
    expect(appErrors(errors)).to.deep.equal([
      'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
  });

  it('says what deleting a website removes, then removes it; the screens pass axe at 390 px', async () => {
    const root = `gone${stamp()}`;
    const site = (
      await p.t.call('POST', '/cms-one/websites', admin, { name: `Gone ${root}`, rootPath: `/${root}` })
    ).json();
    const pageIds: string[] = [];
    for (const path of ['/a', '/b'])
      pageIds.push(
        (
          await p.t.call('POST', '/cms-one/pages', admin, { websiteId: site.id, locale: 'en', path, title: path })
        ).json().id,
      );
    await p.t.call('POST', '/cms-one/website-paths', admin, { websiteId: site.id, label: 'Home', path: '/' });
    const { page, context, errors } = await p.page('phone');
    await signInAs(p, context, admin);
    await page.goto(`/admin/websites/${site.id}/pages?sort=-path`);
    await heading(page, `Gone ${root}: Pages`).waitFor();
    await page.getByRole('link', { name: '/b', exact: true }).waitFor();
    await expectAccessible(page, 'page list at 390 px');
    for (const path of [
      '/admin/snippets',
      '/admin/themes',
      '/admin/templates',
      '/admin/content-settings',
      `/admin/websites/${site.id}/layouts`,
      `/admin/websites/${site.id}/menu`,
      `/admin/pages/${pageIds[0]}`,
    ]) {
      await page.goto(path);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await settled(page);
      await expectAccessible(page, `${path} at 390 px`);
    }
    await page.goto(`/admin/websites/${site.id}`);
    await heading(page, `Gone ${root}`).waitFor();
    const statement = page.getByText(/^Deleting removes/);
    await statement.waitFor();
    expect(await statement.textContent()).to.equal(
      `Deleting removes the website Gone ${root} (/${root}), its 2 pages (all languages, with their version history), 0 layout templates, 1 menu entry and 0 website themes. Snippets assigned to it and uploaded assets stay.`,
    );
    await page.getByRole('button', { name: 'Delete the website' }).click();
    const confirm = await shownDialog(page);
    await confirm.getByText(/This removes: the website/).waitFor();
    await expectAccessible(page, 'delete website dialog at 390 px');
    await confirm.getByRole('button', { name: 'Delete the website' }).click();
    await heading(page, 'Websites').waitFor();
    expect((await p.t.call('GET', `/cms-one/websites/${site.id}`, admin)).statusCode).to.equal(404);
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('offers a viewer no write action on the content screens', async () => {
    const root = `read${stamp()}`;
    const site = (
      await p.t.call('POST', '/cms-one/websites', admin, { name: `Read ${root}`, rootPath: `/${root}` })
    ).json();
    const created = (
      await p.t.call('POST', '/cms-one/pages', admin, {
        websiteId: site.id,
        locale: 'en',
        path: '/x',
        title: 'Readable',
      })
    ).json();
    const snippet = (await p.t.call('POST', '/cms-one/snippets', admin, { name: `Read ${root}` })).json();
    const viewer = await p.t.createUser({ roles: ['viewer'] });
    const { page, context, errors } = await p.page();
    await signInAs(p, context, viewer);

    await page.goto('/admin/websites');
    await page.getByRole('link', { name: `Read ${root}`, exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'New website' }).count()).to.equal(0);
    await page.getByRole('link', { name: `Read ${root}`, exact: true }).click();
    await heading(page, `Read ${root}`).waitFor();
    await settled(page);
    expect(await page.getByLabel(/^Name/).isEditable()).to.equal(false);
    for (const button of ['Save the website', 'Save upload settings', 'Make a site key', 'Delete the website'])
      expect(await page.getByRole('button', { name: button }).count(), button).to.equal(0);
    await expectAccessible(page, 'website settings as a viewer');

    await page.goto(`/admin/websites/${site.id}/pages`);
    await page.getByRole('link', { name: 'Readable' }).waitFor();
    expect(await page.getByRole('button', { name: 'New page' }).count()).to.equal(0);
    expect(await page.getByRole('link', { name: /Open in editor/ }).count()).to.equal(0);
    await page.goto(`/admin/pages/${created.id}`);
    await heading(page, 'Readable').waitFor();
    await settled(page);
    for (const name of ['Publish', 'Save the page', 'Delete the page'])
      expect(await page.getByRole('button', { name, exact: true }).count(), name).to.equal(0);
    expect(await page.getByRole('link', { name: 'Open in editor' }).count()).to.equal(0);

    await page.goto(`/admin/snippets/${snippet.id}`);
    await heading(page, `Read ${root}`).waitFor();
    expect(await page.getByRole('switch', { name: 'Locked' }).isDisabled()).to.equal(true);
    expect(await page.getByRole('button', { name: 'Save the snippet' }).count()).to.equal(0);
    await page.goto(`/admin/websites/${site.id}/menu`);
    await page.getByText('The menu is empty').waitFor();
    expect(await page.getByRole('button', { name: 'Add a menu entry' }).count()).to.equal(0);
    await page.goto('/admin/themes');
    await heading(page, 'Themes').waitFor();
    expect(await page.getByRole('button', { name: 'New theme' }).count()).to.equal(0);
    await page.goto('/admin/content-settings');
    await heading(page, 'Editor settings').waitFor();
    await settled(page);
    expect(await page.getByRole('button', { name: /^Save/ }).count()).to.equal(0);
    expect(appErrors(errors)).to.deep.equal([]);
    // The API stays the authority.
    expect((await p.t.call('PATCH', `/cms-one/pages/${created.id}`, viewer, { title: 'No' })).statusCode).to.equal(403);
  });
});
