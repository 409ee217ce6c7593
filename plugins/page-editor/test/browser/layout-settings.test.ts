import { expect } from 'chai';
import type { Page } from 'playwright-core';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  sharedBrowserProduct,
  signInAs,
} from '../../../../test/helpers/browser.ts';
import { eventually, type TestUser } from '../../../../test/helpers/kernel.ts';
import { CHROME_ONLY, canvas, expectFits, openEditor } from './editor-page.ts';

/** The kit view's previews show the user's own content too. */
const KIT_CHROME_ONLY = { exclude: [...CHROME_ONLY.exclude, '.cms-kit-frame'] };

const saved = (page: Page) =>
  page
    .getByRole('status')
    .filter({ hasText: /^Saved$/ })
    .waitFor({ timeout: 20_000 });

/** The kit view at `path`, once its first template is drawn. */
async function openKit(p: BrowserProduct, user: TestUser, path: string) {
  const { page, context, errors } = await p.page();
  await signInAs(p, context, user);
  await page.goto(path);
  await page.getByRole('heading', { level: 1, name: /^Editing kit/ }).waitFor();
  await page.locator('iframe.cms-kit-frame[data-ready]').first().waitFor();
  return { page, errors };
}

/** The text of the messages a field is described by (Mantine's error below it). Runs in the page: no DOM types here. */
const errorOf = (page: Page, name: string) =>
  page.getByRole('textbox', { name, exact: true }).evaluate((input) => {
    type El = {
      getAttribute(n: string): string | null;
      ownerDocument: { getElementById(id: string): El | null };
      textContent: string | null;
    };
    const el = input as unknown as El;
    const ids = (el.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean);
    return ids.map((id: string) => el.ownerDocument.getElementById(id)?.textContent ?? '').join(' ');
  });

/** Whether the focus is on `el` (runs in the page). */
const hasFocus = (el: unknown) => {
  const e = el as { ownerDocument: { activeElement: unknown } };
  return e === e.ownerDocument.activeElement;
};

describe('page editor in the browser: layout settings and renaming in place', function () {
  this.timeout(180_000);
  let p: BrowserProduct;
  let admin: TestUser;
  let websiteId: string;
  let stamp: string;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.admin();
    stamp = Date.now().toString(36);
    const site = await p.t.call('POST', '/cms-one/websites', admin, {
      name: 'Settings site',
      rootPath: `/ls${stamp}`,
      locales: ['en', 'de'],
    });
    expect(site.statusCode, site.body).to.equal(201);
    websiteId = site.json().id;
  });

  const layout = async (name: string) => {
    const res = await p.t.call('POST', `/cms-one/websites/${websiteId}/templates`, admin, {
      name,
      pathPatterns: ['/blog/*'],
      slots: { body: { className: 'container' } },
      regions: { header: { type: 'nav', children: [{ type: 'a', props: { href: '/' }, text: 'Home' }] } },
    });
    expect(res.statusCode, res.body).to.equal(201);
    return res.json().id as string;
  };
  const storedLayout = async (id: string) =>
    (await p.t.call('GET', `/cms-one/websites/${websiteId}/templates/${id}`, admin)).json();
  const template = async (name: string) => {
    const res = await p.t.call('POST', '/cms-one/templates', admin, {
      path: `/${name.toLowerCase().replace(/\W+/g, '-')}-${stamp}`,
      name,
      content: { type: 'section', children: [{ type: 'h2', text: `${name} text` }] },
    });
    expect(res.statusCode, res.body).to.equal(201);
    return res.json().id as string;
  };

  it("changes a layout's path patterns and language in the editor; a bad pattern shows the API's 400 at its field and stores nothing", async () => {
    const id = await layout('Blog layout');
    const designer = await p.t.createUser({ permissions: ['objects:read', 'websites:edit'] });
    const { page, errors } = await openEditor(p, designer, `/cms-one/editor/layouts/${websiteId}/${id}`);
    await page.getByRole('tab', { name: 'More' }).click();
    const settings = page.getByRole('region', { name: 'Layout settings' });
    await settings.getByRole('textbox', { name: 'Path pattern 1' }).waitFor();
    expect(await settings.getByRole('textbox', { name: 'Path pattern 1' }).inputValue()).to.equal('/blog/*');
    expect(await settings.getByRole('textbox', { name: 'Slot 1: class names' }).inputValue()).to.equal('container');
    await expectAccessible(page, 'layout settings', CHROME_ONLY);

    await settings.getByRole('textbox', { name: 'Path pattern 1' }).fill('/news/*');
    await settings.getByRole('button', { name: 'Add a path pattern' }).click();
    await settings.getByRole('textbox', { name: 'Path pattern 2' }).fill('/about');
    await settings.getByRole('combobox', { name: 'Language' }).click();
    await page.getByRole('option', { name: 'de', exact: true }).click();
    await settings.getByRole('button', { name: 'Save the layout settings' }).click();
    await settings.getByRole('status').filter({ hasText: 'Layout settings saved' }).waitFor();
    const stored = await storedLayout(id);
    expect(stored.pathPatterns).to.deep.equal(['/news/*', '/about']);
    expect(stored.locale).to.equal('de');
    expect(stored.slots).to.deep.equal({ body: { className: 'container' } });
    expect(stored.regions.header.children[0].text).to.equal('Home');

    // A pattern the API refuses: its message at the field, nothing stored.
    await settings.getByRole('button', { name: 'Add a path pattern' }).click();
    await settings.getByRole('textbox', { name: 'Path pattern 3' }).fill('no slash');
    await settings.getByRole('button', { name: 'Save the layout settings' }).click();
    await eventually(
      async () =>
        (await settings.getByRole('textbox', { name: 'Path pattern 3' }).getAttribute('aria-invalid')) === 'true',
      { timeoutMs: 10_000, what: 'the refused pattern marked invalid' },
    );
    const message = await errorOf(page, 'Path pattern 3');
    expect(message).to.match(/^Not saved: The field "pathPatterns.2" does not have the expected form/);
    expect(await settings.getByRole('textbox', { name: 'Path pattern 1' }).getAttribute('aria-invalid')).to.not.equal(
      'true',
    );
    const after = await storedLayout(id);
    expect(after.pathPatterns).to.deep.equal(['/news/*', '/about']);
    expect(after.updatedAt).to.equal(stored.updatedAt);
    // Removing the row and saving stores the rest.
    await settings.getByRole('button', { name: 'Remove path pattern 1' }).click();
    await settings.getByRole('button', { name: 'Remove path pattern 2' }).click();
    await settings.getByRole('button', { name: 'Save the layout settings' }).click();
    await settings.getByRole('status').filter({ hasText: 'Layout settings saved' }).waitFor();
    expect((await storedLayout(id)).pathPatterns).to.deep.equal(['/about']);

    // The settings' writes moved the editor's tag on: a region saved next is not taken for a conflict.
    await canvas(page).locator('header a', { hasText: 'Home' }).click();
    await page.getByRole('textbox', { name: 'Text', exact: true }).fill('Start');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await saved(page);
    const last = await storedLayout(id);
    expect(last.regions.header.children[0].text).to.equal('Start');
    expect(last.pathPatterns).to.deep.equal(['/about']);
    expect(last.locale).to.equal('de');
    expect(
      appErrors(errors).filter((e) => !/Failed to load resource: the server responded with a status of 400\b/.test(e)),
    ).to.deep.equal([]);
  });

  it('renames a kit and a template in place: Enter saves, Escape cancels, the heading and the document title follow', async () => {
    const alpha = await template('Alpha');
    const kit = await p.t.call('POST', '/cms-one/kits', admin, { name: `Kit ${stamp}`, templateIds: [alpha] });
    expect(kit.statusCode, kit.body).to.equal(201);
    const kitId = kit.json().id;
    const designer = await p.t.createUser({ permissions: ['objects:read', 'templates:edit'] });

    const kitView = await openKit(p, designer, `/cms-one/editor/kits/${kitId}`);
    const k = kitView.page;
    await k.getByRole('button', { name: 'Rename the kit' }).click();
    const kitName = k.getByRole('textbox', { name: 'New name of the kit' });
    await kitName.fill('Landing blocks');
    await expectAccessible(k, 'kit view, rename form', KIT_CHROME_ONLY);
    await kitName.press('Enter');
    await k.getByRole('heading', { level: 1, name: 'Editing kit: Landing blocks' }).waitFor();
    expect(await k.title()).to.equal('Landing blocks · Editor');
    expect((await p.t.call('GET', `/cms-one/kits/${kitId}`, admin)).json().name).to.equal('Landing blocks');
    // Escape closes the form and keeps the name; the focus goes back to the edit button.
    await k.getByRole('button', { name: 'Rename the kit' }).click();
    await k.getByRole('textbox', { name: 'New name of the kit' }).fill('Not this');
    await k.getByRole('textbox', { name: 'New name of the kit' }).press('Escape');
    await k.getByRole('textbox', { name: 'New name of the kit' }).waitFor({ state: 'detached' });
    await eventually(() => k.getByRole('button', { name: 'Rename the kit' }).evaluate(hasFocus), {
      what: 'the focus back on the edit button',
    });
    expect((await p.t.call('GET', `/cms-one/kits/${kitId}`, admin)).json().name).to.equal('Landing blocks');
    expect(await k.getByRole('heading', { level: 1 }).textContent()).to.equal('Editing kit: Landing blocks');
    // The rename moved the kit's tag on: a change of its list right after is stored, not a conflict.
    await k.getByRole('button', { name: 'Remove Alpha from the kit' }).click();
    await saved(k);
    expect((await p.t.call('GET', `/cms-one/kits/${kitId}`, admin)).json().templateIds).to.deep.equal([]);

    const { page, errors } = await openEditor(p, designer, `/cms-one/editor/templates/${alpha}`);
    await page.getByRole('button', { name: 'Rename the template' }).click();
    await page.getByRole('textbox', { name: 'New name of the template' }).fill('Alpha hero');
    await page.getByRole('textbox', { name: 'New name of the template' }).press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Editing template: Alpha hero' }).waitFor();
    expect(await page.title()).to.equal('Alpha hero · Editor');
    expect((await p.t.call('GET', `/cms-one/templates/${alpha}`, admin)).json().name).to.equal('Alpha hero');
    expect(await page.getByRole('textbox', { name: 'Template name' }).inputValue()).to.equal('Alpha hero');
    // A content save after the rename keeps the new name (and meets no conflict of the rename's making).
    await canvas(page).locator('h2', { hasText: 'Alpha text' }).click();
    await page.getByRole('textbox', { name: 'Text', exact: true }).fill('Alpha changed');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await saved(page);
    const storedTemplate = (await p.t.call('GET', `/cms-one/templates/${alpha}`, admin)).json();
    expect(storedTemplate.name).to.equal('Alpha hero');
    expect(storedTemplate.content.children[0].text).to.equal('Alpha changed');
    expect(appErrors([...kitView.errors, ...errors])).to.deep.equal([]);
  });

  it('shows a reader the layout settings read only, and no rename or save controls', async () => {
    const id = await layout('Reader layout');
    const alpha = await template('Reader template');
    const kit = (
      await p.t.call('POST', '/cms-one/kits', admin, { name: `RO kit ${stamp}`, templateIds: [alpha] })
    ).json();
    const reader = await p.t.createUser({ permissions: ['objects:read'] });

    const { page, errors } = await openEditor(p, reader, `/cms-one/editor/layouts/${websiteId}/${id}`);
    await page.getByText('Your role may look at this layout').waitFor();
    expect(await page.getByRole('button', { name: 'Rename the layout' }).count()).to.equal(0);
    await page.getByRole('tab', { name: 'More' }).click();
    const settings = page.getByRole('region', { name: 'Layout settings' });
    await settings.getByText('Read only: changing a layout').waitFor();
    expect(await settings.getByRole('textbox', { name: 'Path pattern 1' }).getAttribute('readonly')).to.not.equal(null);
    expect(await settings.getByRole('textbox', { name: 'Name', exact: true }).getAttribute('readonly')).to.not.equal(
      null,
    );
    for (const name of ['Save the layout settings', 'Add a path pattern', 'Remove path pattern 1', 'Add a slot'])
      expect(await settings.getByRole('button', { name }).count(), name).to.equal(0);
    await expectAccessible(page, 'layout settings, read only', CHROME_ONLY);

    const kitView = await openKit(p, reader, `/cms-one/editor/kits/${kit.id}`);
    expect(await kitView.page.getByRole('button', { name: 'Rename the kit' }).count()).to.equal(0);
    const editor = await openEditor(p, reader, `/cms-one/editor/templates/${alpha}`);
    expect(await editor.page.getByRole('button', { name: 'Rename the template' }).count()).to.equal(0);
    expect(await editor.page.getByRole('button', { name: 'Save', exact: true }).count()).to.equal(0);
    expect((await storedLayout(id)).name).to.equal('Reader layout');
    expect(appErrors([...errors, ...kitView.errors, ...editor.errors])).to.deep.equal([]);
  });

  it('at phone width: the layout settings and the rename form fit 390 px and are named', async () => {
    const id = await layout('Phone settings layout');
    const designer = await p.t.createUser({ permissions: ['objects:read', 'websites:edit'] });
    const { page, errors } = await openEditor(p, designer, `/cms-one/editor/layouts/${websiteId}/${id}`, 'phone');
    await page.getByRole('tab', { name: 'More' }).click();
    const settings = page.getByRole('region', { name: 'Layout settings' });
    await settings.getByRole('button', { name: 'Add a path pattern' }).click();
    await settings.getByRole('textbox', { name: 'Path pattern 2' }).fill('/a-rather-long-path/with/several/levels/*');
    await settings.getByRole('button', { name: 'Add a slot' }).click();
    await expectFits(settings, 'the layout settings');
    await settings.getByRole('button', { name: 'Save the layout settings' }).click();
    // The new slot has no name: the API's refusal is shown, and still fits.
    await settings.getByText(/^Not saved: /).waitFor();
    await expectFits(settings, 'the layout settings with an error');
    await settings.getByRole('button', { name: 'Remove slot 2' }).click();
    await settings.getByRole('button', { name: 'Save the layout settings' }).click();
    await settings.getByRole('status').filter({ hasText: 'Layout settings saved' }).waitFor();
    expect((await storedLayout(id)).pathPatterns).to.deep.equal([
      '/blog/*',
      '/a-rather-long-path/with/several/levels/*',
    ]);
    await expectAccessible(page, 'layout settings at 390 px', CHROME_ONLY);

    await page.getByRole('button', { name: 'Rename the layout' }).click();
    await page.getByRole('textbox', { name: 'New name of the layout' }).fill('Phone layout, renamed');
    await expectFits(page.locator('header.cms-editor-bar'), "the editor's bar with the rename form");
    await expectAccessible(page, 'rename form at 390 px', CHROME_ONLY);
    await page.getByRole('textbox', { name: 'New name of the layout' }).press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Editing layout: Phone layout, renamed' }).waitFor();
    // The settings' name follows the rename.
    expect(await settings.getByRole('textbox', { name: 'Name', exact: true }).inputValue()).to.equal(
      'Phone layout, renamed',
    );
    expect((await storedLayout(id)).name).to.equal('Phone layout, renamed');
    expect(
      appErrors(errors).filter((e) => !/Failed to load resource: the server responded with a status of 400\b/.test(e)),
    ).to.deep.equal([]);
  });
});
