import { expect } from 'chai';
import type { Page } from 'playwright-core';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  heading,
  sharedBrowserProduct,
  signInAs,
} from '../../../../test/helpers/browser.ts';
import type { TestUser } from '../../../../test/helpers/kernel.ts';

const stamp = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;

/** What Chromium logs for each save the API refused as a conflict. */
const REFUSED = 'console: Failed to load resource: the server responded with a status of 412 (Precondition Failed)';

/** The conflict notice of a form (an alert naming what was changed elsewhere). */
const conflictOf = (page: Page, what: string) =>
  page.getByRole('alert').filter({ hasText: `Not saved: the ${what} was changed elsewhere` });

/** Loads the stored version from the notice, confirming that the form's changes are discarded. */
async function loadStored(page: Page, what: string) {
  await conflictOf(page, what).getByRole('button', { name: 'Load the stored version' }).click();
  const dialog = page.getByRole('dialog', { name: 'Load the stored version?' });
  await dialog.getByText(`your unsaved changes to this ${what}`).waitFor();
  await dialog.getByRole('button', { name: 'Discard my changes and load' }).click();
  await page.getByText(`The stored version of the ${what} is loaded`).waitFor();
  await conflictOf(page, what).waitFor({ state: 'detached' });
}

describe('dashboard content forms never overwrite a newer version (If-Match)', function () {
  this.timeout(180_000);
  let p: BrowserProduct;
  let admin: TestUser;
  /** Another user, saving through the API while the dashboard's form is open (as the editor would). */
  let other: TestUser;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.admin();
    ({ other } = await p.t.users({
      other: ['objects:read', 'templates:edit', 'pages:edit', 'snippets:edit', 'websites:edit'],
    }));
  });

  it('refuses to save a template changed elsewhere, says so, loads the stored version, then saves (twice)', async () => {
    const path = `/conflict/${stamp()}`;
    const created = await p.t.call('POST', '/cms-one/templates', admin, { name: 'Hero', path });
    expect(created.statusCode).to.equal(201);
    const id = created.json().id as string;
    const { page, context, errors } = await p.page();
    await signInAs(p, context, admin);
    await page.goto(`/admin/templates/${id}`);
    await heading(page, 'Hero').waitFor();
    await page.getByLabel(/^Name/).fill('Hero from the dashboard');

    // Meanwhile the template is changed elsewhere (no If-Match: it goes through).
    const content = { type: 'section', children: [{ type: 'h1', text: 'Changed in the editor' }] };
    const elsewhere = await p.t.call('PATCH', `/cms-one/templates/${id}`, other, { name: 'Hero elsewhere', content });
    expect(elsewhere.statusCode).to.equal(200);

    await page.getByRole('button', { name: 'Save the template' }).click();
    const notice = conflictOf(page, 'template');
    await notice.waitFor();
    await notice.getByText(/nothing was saved; your changes are still here/).waitFor();
    await expectAccessible(page, 'template save refused as a conflict');
    const stored = (await p.t.call('GET', `/cms-one/templates/${id}`, admin)).json();
    expect(stored).to.deep.include({ name: 'Hero elsewhere', path, content });
    // The form keeps what was typed.
    expect(await page.getByLabel(/^Name/).inputValue()).to.equal('Hero from the dashboard');

    // Keeping on editing and saving again is refused again: never a silent overwrite.
    await notice.getByRole('button', { name: 'Keep editing' }).click();
    await notice.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Save the template' }).click();
    await notice.waitFor();
    expect((await p.t.call('GET', `/cms-one/templates/${id}`, admin)).json().name).to.equal('Hero elsewhere');

    await loadStored(page, 'template');
    expect(await page.getByLabel(/^Name/).inputValue()).to.equal('Hero elsewhere');
    expect(JSON.parse(await page.getByLabel('Content (node tree)').inputValue())).to.deep.equal(content);

    // Saves from the stored version go through, one after the other (each takes the new tag).
    await page.getByLabel(/^Name/).fill('Hero, merged');
    await page.getByRole('button', { name: 'Save the template' }).click();
    await page.getByText('Hero, merged saved').waitFor();
    await page.getByLabel(/^Name/).fill('Hero, final');
    await page.getByLabel(/^Path/).fill(`${path}-2`);
    await page.getByRole('button', { name: 'Save the template' }).click();
    await page.getByText('Hero, final saved').waitFor();
    const saved = (await p.t.call('GET', `/cms-one/templates/${id}`, admin)).json();
    expect(saved).to.deep.include({ name: 'Hero, final', path: `${path}-2`, content });
    expect(await conflictOf(page, 'template').count()).to.equal(0);
    expect(appErrors(errors)).to.deep.equal([REFUSED, REFUSED]);
  });

  it("refuses to save a page's details over a change made in the editor, and saves after loading it", async () => {
    const root = `clash${stamp()}`;
    const site = (
      await p.t.call('POST', '/cms-one/websites', admin, { name: `Clash ${root}`, rootPath: `/${root}` })
    ).json();
    const made = (
      await p.t.call('POST', '/cms-one/pages', admin, {
        websiteId: site.id,
        locale: 'en',
        path: '/about',
        title: 'About',
      })
    ).json();
    const { page, context, errors } = await p.page();
    await signInAs(p, context, admin);
    await page.goto(`/admin/pages/${made.id}`);
    await heading(page, 'About').waitFor();
    await page.getByLabel('SEO title').fill('About us, from the dashboard');

    const content = { type: 'main', children: [{ type: 'p', text: 'Written in the editor' }] };
    const elsewhere = await p.t.call('PATCH', `/cms-one/pages/${made.id}`, other, { title: 'About (editor)', content });
    expect(elsewhere.statusCode).to.equal(200);

    await page.getByRole('button', { name: 'Save the page' }).click();
    await conflictOf(page, 'page').waitFor();
    await expectAccessible(page, 'page details save refused as a conflict');
    const stored = (await p.t.call('GET', `/cms-one/pages/${made.id}`, admin)).json();
    expect(stored).to.deep.include({ title: 'About (editor)', content });
    expect(stored.seo).to.deep.equal({});

    await loadStored(page, 'page');
    expect(await page.getByLabel(/^Title/).inputValue()).to.equal('About (editor)');
    expect(await page.getByLabel('SEO title').inputValue()).to.equal('');

    await page.getByLabel('SEO title').fill('About us');
    await page.getByRole('button', { name: 'Save the page' }).click();
    await page.getByText('About (editor) saved').waitFor();
    await page.getByLabel(/^Title/).fill('About us');
    await page.getByRole('button', { name: 'Save the page' }).click();
    await page.getByText('About us saved').waitFor();
    const saved = (await p.t.call('GET', `/cms-one/pages/${made.id}`, admin)).json();
    expect(saved).to.deep.include({ title: 'About us', content });
    expect(saved.seo).to.deep.equal({ title: 'About us' });
    expect(appErrors(errors)).to.deep.equal([REFUSED]);
  });

  it('saves a snippet twice in a row, also after locking it on the same screen, and a layout twice', async () => {
    const name = `Note ${stamp()}`;
    const snippet = (await p.t.call('POST', '/cms-one/snippets', admin, { name })).json();
    const { page, context, errors } = await p.page();
    await signInAs(p, context, admin);
    await page.goto(`/admin/snippets/${snippet.id}`);
    await heading(page, name).waitFor();
    const tree = { type: 'div', children: [{ type: 'p', text: 'First' }] };
    await page.getByLabel('Content (node tree)').fill(JSON.stringify(tree));
    await page.getByRole('button', { name: 'Save the snippet' }).click();
    await page.getByText(`${name} saved`).waitFor();
    await page.getByLabel(/^Name/).fill(`${name} 2`);
    await page.getByRole('button', { name: 'Save the snippet' }).click();
    await page.getByText(`${name} 2 saved`).waitFor();
    // The lock is a write of its own (it moves the snippet's tag): the form's next save still goes through.
    await page.getByLabel(/^Name/).fill(`${name} 3`);
    await page.getByRole('switch', { name: 'Locked' }).click();
    await page.getByText(`${name} 2 locked`).waitFor();
    expect(await page.getByLabel(/^Name/).inputValue()).to.equal(`${name} 3`);
    await page.getByRole('button', { name: 'Save the snippet' }).click();
    await page.getByText(`${name} 3 saved`).waitFor();
    const stored = (await p.t.call('GET', `/cms-one/snippets/${snippet.id}`, admin)).json();
    expect(stored).to.deep.include({ name: `${name} 3`, locked: true, content: tree });

    const root = `lay${stamp()}`;
    const site = (
      await p.t.call('POST', '/cms-one/websites', admin, { name: `Lay ${root}`, rootPath: `/${root}` })
    ).json();
    const layout = (
      await p.t.call('POST', `/cms-one/websites/${site.id}/templates`, admin, { name: 'Blog layout' })
    ).json();
    await page.goto(`/admin/websites/${site.id}/layouts/${layout.id}`);
    await heading(page, 'Blog layout').waitFor();
    const patterns = page.getByRole('combobox', { name: 'Path patterns' });
    await patterns.fill('/blog/*');
    await patterns.press('Enter');
    await page.getByRole('button', { name: 'Save the layout' }).click();
    await page.getByText('Blog layout saved').waitFor();
    await page.getByLabel(/^Name/).fill('News layout');
    await page.getByRole('button', { name: 'Save the layout' }).click();
    await page.getByText('News layout saved').waitFor();
    const twice = (await p.t.call('GET', `/cms-one/websites/${site.id}/templates/${layout.id}`, admin)).json();
    expect(twice).to.deep.include({ name: 'News layout', pathPatterns: ['/blog/*'] });

    // A layout changed elsewhere: the dashboard's save is refused too, the stored layout kept.
    await page.getByLabel(/^Name/).fill('Dashboard layout');
    const elsewhere = await p.t.call('PATCH', `/cms-one/websites/${site.id}/templates/${layout.id}`, other, {
      pathPatterns: ['/news/*'],
    });
    expect(elsewhere.statusCode).to.equal(200);
    await page.getByRole('button', { name: 'Save the layout' }).click();
    await conflictOf(page, 'layout').waitFor();
    expect(
      (await p.t.call('GET', `/cms-one/websites/${site.id}/templates/${layout.id}`, admin)).json(),
    ).to.deep.include({ name: 'News layout', pathPatterns: ['/news/*'] });
    expect(appErrors(errors)).to.deep.equal([REFUSED]);
  });

  it('refuses to append to a kit changed elsewhere, then appends to the stored list', async () => {
    const a = (await p.t.call('POST', '/cms-one/templates', admin, { name: 'A', path: `/kit/${stamp()}` })).json();
    const b = (await p.t.call('POST', '/cms-one/templates', admin, { name: 'B', path: `/kit/${stamp()}` })).json();
    const kitName = `Kit ${stamp()}`;
    const kit = (await p.t.call('POST', '/cms-one/kits', admin, { name: kitName })).json();
    const { page, context, errors } = await p.page();
    await signInAs(p, context, admin);
    await page.goto(`/admin/kits/${kit.id}`);
    await heading(page, kitName).waitFor();
    await page.getByText('No templates in this kit yet').waitFor();
    const changed = await p.t.call('PATCH', `/cms-one/kits/${kit.id}`, other, { templateIds: [a.id] });
    expect(changed.statusCode).to.equal(200);

    await page.getByRole('combobox', { name: 'Template to add' }).click();
    await page.getByRole('option', { name: `B (${b.path})` }).click();
    await page.getByRole('button', { name: 'Add to the kit' }).click();
    await conflictOf(page, 'kit').waitFor();
    await expectAccessible(page, 'kit append refused as a conflict');
    expect((await p.t.call('GET', `/cms-one/kits/${kit.id}`, admin)).json().templateIds).to.deep.equal([a.id]);

    // Nothing typed is lost by loading: no confirmation, the stored list shows, the choice stays.
    await conflictOf(page, 'kit').getByRole('button', { name: 'Load the stored version' }).click();
    await page.getByRole('listitem').getByRole('link', { name: 'A', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Add to the kit' }).click();
    await page.getByRole('listitem').getByRole('link', { name: 'B', exact: true }).waitFor();
    expect((await p.t.call('GET', `/cms-one/kits/${kit.id}`, admin)).json().templateIds).to.deep.equal([a.id, b.id]);
    expect(appErrors(errors)).to.deep.equal([REFUSED]);
  });
});
