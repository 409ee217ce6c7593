import { expect } from 'chai';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  sharedBrowserProduct,
} from '../../../../test/helpers/browser.ts';
import type { TestUser } from '../../../../test/helpers/kernel.ts';
import { CHROME_ONLY, canvas, openEditor, status } from './editor-page.ts';

describe('page editor in the browser: a session that ends while editing', function () {
  this.timeout(150_000);
  let p: BrowserProduct;
  let admin: TestUser;
  let websiteId: string;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.admin();
    const site = await p.t.call('POST', '/cms-one/websites', admin, {
      name: 'Session site',
      rootPath: `/se${Date.now().toString(36)}`,
      locales: ['en'],
    });
    expect(site.statusCode, site.body).to.equal(201);
    websiteId = site.json().id;
    const autosave = await p.t.call('PUT', '/cms-one/settings/autosave', admin, { enabled: true, intervalSeconds: 5 });
    expect(autosave.statusCode, autosave.body).to.equal(200);
  });

  const storedHeading = async (id: string) =>
    ((await p.t.call('GET', `/cms-one/pages/${id}`, admin)).json() as { content: { children: { text: string }[] } })
      .content.children[0].text;

  it('keeps the edits, signs in again over the editor and autosaves them, and autosave goes on', async () => {
    const created = await p.t.call('POST', '/cms-one/pages', admin, {
      websiteId,
      locale: 'en',
      path: '/session',
      title: 'Session page',
      content: { type: 'section', children: [{ type: 'h1', text: 'First words' }] },
    });
    expect(created.statusCode, created.body).to.equal(201);
    const { id } = created.json() as { id: string };
    const editor = await p.t.createUser({ permissions: ['objects:read', 'pages:edit', 'assets:read'] });
    const { page, errors } = await openEditor(p, editor, `/cms-one/editor/pages/${id}`, 'desktop', {
      manualClock: true,
    });

    await canvas(page).locator('h1', { hasText: 'First words' }).click();
    const text = page.getByLabel('Text');
    await text.fill('Typed before');
    expect(await p.t.db('sessions').where({ user_id: editor.id }).delete()).to.be.greaterThan(0);
    // The user goes on typing; the next autosave finds the session gone.
    await text.fill('Typed before and after the session ended');
    await page.clock.fastForward(5_000);
    const dialog = page.getByRole('dialog', { name: 'Your session has ended' });
    await dialog.waitFor();
    await expectAccessible(page, 'editor, session dialog', CHROME_ONLY);
    // Nothing false on the screen behind it.
    expect(await page.getByText(/snippet is locked|could not be drawn|saving is tried again/).count()).to.equal(0);
    expect(await text.inputValue()).to.equal('Typed before and after the session ended');

    await page.getByLabel(/^Password/).fill(editor.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    // The autosave that waited goes through with the new session.
    await status(page)
      .filter({ hasText: /^Saved$/ })
      .waitFor();
    expect(await storedHeading(id)).to.equal('Typed before and after the session ended');
    await canvas(page).locator('h1', { hasText: 'Typed before and after the session ended' }).waitFor();

    // Autosave is on as before: the next change is stored on the next interval, without a click.
    await text.fill('After signing in again');
    await status(page)
      .filter({ hasText: /^Unsaved changes$/ })
      .waitFor();
    await page.clock.fastForward(5_000);
    await status(page)
      .filter({ hasText: /^Saved$/ })
      .waitFor();
    expect(await storedHeading(id)).to.equal('After signing in again');
    expect(await page.getByText(/snippet is locked|could not be drawn/).count()).to.equal(0);
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('says autosave waits when the API refuses this user, and a save by hand that goes through turns it on again', async () => {
    const role = `editor-${Date.now().toString(36)}`;
    const keys = ['objects:read', 'pages:edit', 'assets:read'];
    const made = await p.t.call('POST', '/auth/roles', admin, { name: role, permissions: keys });
    expect(made.statusCode, made.body).to.equal(201);
    const roleId = (made.json() as { id: string }).id;
    const setKeys = async (permissions: string[]) => {
      const res = await p.t.call('PATCH', `/auth/roles/${roleId}`, admin, { permissions });
      expect(res.statusCode, res.body).to.equal(200);
    };
    const created = await p.t.call('POST', '/cms-one/pages', admin, {
      websiteId,
      locale: 'en',
      path: '/refused',
      title: 'Refused page',
      content: { type: 'section', children: [{ type: 'h1', text: 'Stored' }] },
    });
    expect(created.statusCode, created.body).to.equal(201);
    const { id } = created.json() as { id: string };
    const editor = await p.t.createUser({ roles: [role] });
    const { page, errors } = await openEditor(p, editor, `/cms-one/editor/pages/${id}`, 'desktop', {
      manualClock: true,
    });
    await canvas(page).locator('h1', { hasText: 'Stored' }).click();
    const text = page.getByLabel('Text');
    await setKeys(['objects:read', 'assets:read']);
    await text.fill('Not allowed yet');
    await page.clock.fastForward(5_000);
    const alert = page.getByRole('alert').filter({ hasText: 'Not saved' });
    await alert.getByText(/Autosave waits: the server refused this save/).waitFor();
    expect(await alert.textContent()).not.to.match(/tries again|tried again/);
    expect(await page.getByText(/snippet is locked/).count()).to.equal(0);
    await expectAccessible(page, 'editor, save refused', CHROME_ONLY);

    await setKeys(keys);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await status(page)
      .filter({ hasText: /^Saved$/ })
      .waitFor();
    expect(await storedHeading(id)).to.equal('Not allowed yet');
    // Autosave runs again on its own.
    await text.fill('Autosaved again');
    await status(page)
      .filter({ hasText: /^Unsaved changes$/ })
      .waitFor();
    await page.clock.fastForward(5_000);
    await status(page)
      .filter({ hasText: /^Saved$/ })
      .waitFor();
    expect(await storedHeading(id)).to.equal('Autosaved again');
    expect(appErrors(errors)).to.deep.equal([]);
  });
});
