import { expect } from 'chai';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  sharedBrowserProduct,
} from '../../../../test/helpers/browser.ts';
import type { TestUser } from '../../../../test/helpers/kernel.ts';
import { CHROME_ONLY, canvas, openEditor, status } from './editor-page.ts';

/**
 * The drafts issue's "done when" in the browser: an editor who may not publish edits a published
 * page (or a snippet, live from its creation), the site keeps the old text, and someone who may
 * publish sees the changes and publishes them from the editor.
 */
describe('page editor: working copies of published pages', function () {
  this.timeout(180_000);
  let p: BrowserProduct;
  let admin: TestUser;
  let rootPath: string;
  let websiteId: string;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.admin();
    rootPath = `/dr${Date.now().toString(36)}`;
    const site = await p.t.call('POST', '/cms-one/websites', admin, { name: 'Draft site', rootPath, locales: ['en'] });
    expect(site.statusCode, site.body).to.equal(201);
    websiteId = site.json().id;
    await p.t.call('PUT', '/cms-one/settings/autosave', admin, { enabled: true, intervalSeconds: 5 });
  });

  it('an editor autosaves to the working copy; the site keeps the live page until a publisher publishes the changes', async () => {
    const created = await p.t.call('POST', '/cms-one/pages', admin, {
      websiteId,
      locale: 'en',
      path: '/news',
      title: 'News',
      published: true,
      content: { type: 'section', children: [{ type: 'p', text: 'Old news' }] },
    });
    expect(created.statusCode, created.body).to.equal(201);
    const pageId = created.json().id as string;
    const writer = await p.t.createUser({ permissions: ['objects:read', 'pages:edit'] });
    const publicText = async () => (await p.t.call('GET', `/public/page${rootPath}/news`, null)).json().content;

    const { page, errors } = await openEditor(p, writer, `/cms-one/editor/pages/${pageId}`, 'desktop', {
      manualClock: true,
    });
    await canvas(page).locator('p', { hasText: 'Old news' }).click();
    await page.getByLabel('Text').fill('Fresh news');
    await status(page)
      .filter({ hasText: /^Unsaved changes$/ })
      .waitFor();
    await page.clock.fastForward(5_000);
    await status(page)
      .filter({ hasText: /^Saved$/ })
      .waitFor();
    expect(JSON.stringify(await publicText())).to.contain('Old news');
    await page.getByText('Draft — live version differs').waitFor();
    expect(await page.getByRole('button', { name: 'Request review' }).isDisabled()).to.equal(true);
    expect(await page.getByRole('button', { name: 'Publish changes' }).count()).to.equal(0);
    await page.getByText('Publishing needs the objects:publish permission').waitFor();
    await expectAccessible(page, 'a page with a working copy', CHROME_ONLY);
    expect(appErrors(errors)).to.deep.equal([]);

    const reviewer = await openEditor(p, admin, `/cms-one/editor/pages/${pageId}`);
    await canvas(reviewer.page).locator('p', { hasText: 'Fresh news' }).waitFor();
    await reviewer.page.getByRole('button', { name: 'Show changes' }).click();
    await reviewer.page.getByText('Blocks changed: 1').waitFor();
    await reviewer.page.getByRole('button', { name: 'Publish changes' }).click();
    await reviewer.page.getByText('Changes published').waitFor();
    await reviewer.page.getByText('Draft — live version differs').waitFor({ state: 'detached' });
    expect(JSON.stringify(await publicText())).to.contain('Fresh news');
    expect(appErrors(reviewer.errors)).to.deep.equal([]);
  });

  it('a snippet saved by a writer who may not publish goes to its working copy; a publisher publishes it from the editor', async () => {
    const created = await p.t.call('POST', '/cms-one/snippets', admin, {
      name: `Footer ${rootPath}`,
      content: { type: 'p', text: 'Old footer' },
    });
    expect(created.statusCode, created.body).to.equal(201);
    const snippetId = created.json().id as string;
    const writer = await p.t.createUser({ permissions: ['objects:read', 'snippets:edit'] });
    const liveText = async () => (await p.t.call('GET', `/public/snippets/${snippetId}`, null)).json().content.text;

    const { page, errors } = await openEditor(p, writer, `/cms-one/editor/snippets/${snippetId}`);
    await canvas(page).locator('p', { hasText: 'Old footer' }).click();
    await page.getByLabel('Text').fill('New footer');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Draft — live version differs').waitFor();
    await page.getByText('The site shows this snippet as last published').waitFor();
    expect(await liveText()).to.equal('Old footer');
    expect(await page.getByRole('button', { name: 'Request review' }).isDisabled()).to.equal(true);
    expect(await page.getByRole('button', { name: 'Publish changes' }).count()).to.equal(0);
    await expectAccessible(page, 'a snippet with a working copy', CHROME_ONLY);
    expect(appErrors(errors)).to.deep.equal([]);

    const reviewer = await openEditor(p, admin, `/cms-one/editor/snippets/${snippetId}`);
    await canvas(reviewer.page).locator('p', { hasText: 'New footer' }).waitFor();
    await reviewer.page.getByRole('button', { name: 'Show changes' }).click();
    await reviewer.page.getByRole('list', { name: 'Changes against the live snippet' }).waitFor();
    await reviewer.page.getByRole('button', { name: 'Publish changes' }).click();
    await reviewer.page.getByText('Changes published').waitFor();
    await reviewer.page.getByText('Draft — live version differs').waitFor({ state: 'detached' });
    expect(await liveText()).to.equal('New footer');
    expect(appErrors(reviewer.errors)).to.deep.equal([]);
  });
});
