import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  heading,
  sharedBrowserProduct,
  signInAs,
} from '../../../../test/helpers/browser.ts';
import { eventually } from '../../../../test/helpers/kernel.ts';

const stamp = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;

/** Types after what the field holds, key by key, as a person does (not `fill`, which replaces it). */
async function typeAtEnd(field: Locator, text: string) {
  await field.click();
  await field.press('End');
  await field.pressSequentially(text);
}

/** Selects what the field holds and types over it. */
async function typeOver(field: Locator, text: string) {
  await field.click();
  await field.press('ControlOrMeta+a');
  await field.pressSequentially(text);
}

/** The open dialog once its opening transition has finished (axe would read its fading colours). */
async function shownDialog(page: Page) {
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  await eventually(
    async () =>
      expect(
        await dialog.evaluate(
          (el) =>
            (globalThis as unknown as { getComputedStyle(e: unknown): { opacity: string } }).getComputedStyle(el)
              .opacity,
        ),
      ).to.equal('1'),
    { timeoutMs: 5_000 },
  );
  return dialog;
}

describe('path fields in the browser: typing /about or about gives /about', function () {
  this.timeout(180_000);
  let p: BrowserProduct;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
  });

  it('website root path, page path and template path keep one leading slash, typed after the / or over it', async () => {
    const admin = await p.t.admin();
    const root = `paths${stamp()}`;
    const { page, context, errors } = await p.page();
    await signInAs(p, context, admin);

    // New website: the field starts with "/", and the hint's "/shop" typed after it is one slash.
    await page.goto('/admin/websites');
    await heading(page, 'Websites').waitFor();
    await page.getByRole('button', { name: 'New website' }).click();
    const dialog = await shownDialog(page);
    await dialog.getByLabel(/^Name/).fill(`Paths ${root}`);
    const rootPath = dialog.getByLabel(/^Root path/);
    expect(await rootPath.inputValue()).to.equal('/');
    await typeAtEnd(rootPath, `/${root}`);
    expect(await rootPath.inputValue()).to.equal(`/${root}`);
    await expectAccessible(page, 'new website dialog, root path typed');
    await dialog.getByRole('button', { name: 'Create website' }).click();
    await heading(page, `Paths ${root}`).waitFor();
    const siteId = new URL(page.url()).pathname.split('/').pop() as string;
    expect((await p.t.call('GET', `/cms-one/websites/${siteId}`, admin)).json().rootPath).to.equal(`/${root}`);

    // Website settings: typing the root path without its slash over the old one gives it back.
    const settingsRoot = page.getByLabel(/^Root path/);
    await typeOver(settingsRoot, `${root}x`);
    expect(await settingsRoot.inputValue()).to.equal(`/${root}x`);
    await typeOver(settingsRoot, `//${root}`);
    expect(await settingsRoot.inputValue()).to.equal(`/${root}`);

    // New page: "/about" typed after the "/" and "about" over it both give "/about".
    await page.goto(`/admin/websites/${siteId}/pages`);
    await heading(page, `Paths ${root}: Pages`).waitFor();
    await page.getByRole('button', { name: 'New page' }).click();
    const pageDialog = await shownDialog(page);
    await pageDialog.getByLabel(/^Title/).fill('About');
    const path = pageDialog.getByLabel(/^Path/);
    expect(await path.inputValue()).to.equal('/');
    await typeAtEnd(path, '/about');
    expect(await path.inputValue()).to.equal('/about');
    await typeOver(path, 'about');
    expect(await path.inputValue()).to.equal('/about');
    await expectAccessible(page, 'new page dialog, path typed');
    await pageDialog.getByRole('button', { name: 'Create page' }).click();
    await heading(page, 'About').waitFor();
    const pageId = new URL(page.url()).pathname.split('/').pop() as string;
    expect((await p.t.call('GET', `/cms-one/pages/${pageId}`, admin)).json().path).to.equal('/about');

    // The page's own path field.
    const ownPath = page.getByLabel(/^Path/);
    await typeOver(ownPath, 'about-us');
    expect(await ownPath.inputValue()).to.equal('/about-us');
    await page.getByRole('button', { name: 'Save the page' }).click();
    await page.getByText('About saved').waitFor();
    expect((await p.t.call('GET', `/cms-one/pages/${pageId}`, admin)).json().path).to.equal('/about-us');

    // New template: an empty field, typed without the slash.
    await page.goto('/admin/templates');
    await heading(page, 'Templates').waitFor();
    await page.getByRole('button', { name: 'New template' }).click();
    const templateDialog = await shownDialog(page);
    const templatePath = templateDialog.getByLabel(/^Path/);
    await typeAtEnd(templatePath, `landing/${root}`);
    expect(await templatePath.inputValue()).to.equal(`/landing/${root}`);
    expect(appErrors(errors)).to.deep.equal([]);
  });
});
