import { expect } from 'chai';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  heading,
  sharedBrowserProduct,
  signInAs,
} from '../../../../test/helpers/browser.ts';
import { eventually, type TestUser } from '../../../../test/helpers/kernel.ts';

const stamp = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;

/**
 * The dashboard's Pending changes: an editor's change to a published page waits there; the editor sees
 * Request review disabled with the reason; an administrator reviews the diff and publishes it, and the
 * site shows it; a discard keeps the live version. A data object's working copy is listed too, and its
 * row leads to the object's screen, where its draft panel publishes it.
 */
describe('content: the Pending changes screen in the browser', function () {
  this.timeout(180_000);
  let p: BrowserProduct;
  let admin: TestUser;
  let editor: TestUser;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.admin();
    ({ editor } = await p.t.users({ editor: ['objects:read', 'objects:write'] }));
  });

  it('lists working copies; an editor may not publish; an administrator reviews, publishes and discards', async () => {
    const root = `pc${stamp()}`;
    const call = async (method: string, url: string, user: TestUser, body?: unknown, status = 200) => {
      const res = await p.t.call(method as 'POST', url, user, body);
      expect(res.statusCode, res.body).to.equal(status);
      return res.statusCode === 204 ? null : res.json();
    };
    const site = await call(
      'POST',
      '/cms-one/websites',
      admin,
      { name: `PC ${root}`, rootPath: `/${root}`, locales: ['en'] },
      201,
    );
    const page = await call(
      'POST',
      '/cms-one/pages',
      admin,
      {
        websiteId: site.id,
        locale: 'en',
        path: '/news',
        title: `News ${root}`,
        published: true,
        content: { type: 'p', text: 'Old text' },
      },
      201,
    );
    const snippet = await call(
      'POST',
      '/cms-one/snippets',
      admin,
      { name: `Footer ${root}`, content: { type: 'p', text: 'a' } },
      201,
    );
    await call('PATCH', `/cms-one/pages/${page.id}`, editor, {
      title: `News ${root} v2`,
      content: { type: 'p', text: 'New text' },
    });
    await call('PATCH', `/cms-one/snippets/${snippet.id}`, editor, { content: { type: 'p', text: 'b' } });
    const cls = await call(
      'POST',
      '/data-classes',
      admin,
      { name: `cls_${root}`, label: `Cls ${root}`, fields: [{ name: 'title', type: 'text' }] },
      201,
    );
    const obj = await call(
      'POST',
      '/data-objects',
      admin,
      { classId: cls.id, published: true, attributes: { title: 'Old object' } },
      201,
    );
    await call('PATCH', `/data-objects/${obj.id}`, editor, { attributes: { title: 'New object' } });
    const objectLabel = `cls_${root} ${String(obj.id).slice(0, 8)} (${obj.locale})`;
    const publicObject = async () =>
      (await p.t.call('GET', `/public/data-objects/${obj.id}`, null)).json().attributes.title;
    expect(await publicObject()).to.equal('Old object');
    const publicText = async () => (await p.t.call('GET', `/public/pages/en/${root}/news`, null)).json().content.text;
    expect(await publicText()).to.equal('Old text');

    // The editor: the list and the review, Publish changes disabled with the reason.
    {
      const { page: tab, context, errors } = await p.page();
      await signInAs(p, context, editor);
      await tab.goto('/admin/pending-changes');
      await heading(tab, 'Pending changes').waitFor();
      const table = tab.getByRole('table', { name: 'Pending changes' });
      await table.getByText(`News ${root}`, { exact: true }).waitFor();
      // The object's row (the data plugin's working copies) links to the object's screen.
      const objectRow = table.getByRole('row').filter({ hasText: objectLabel });
      await objectRow.getByText('Data object').waitFor();
      expect(await objectRow.getByRole('link', { name: objectLabel }).getAttribute('href')).to.equal(
        `/admin/data/objects/${obj.id}`,
      );
      await expectAccessible(tab, 'pending changes list');
      await tab.getByRole('button', { name: `Review changes to News ${root}`, exact: true }).click();
      const review = tab.getByLabel(`Changes to News ${root}`, { exact: true });
      await review.getByText('Changed: title, content').waitFor();
      expect(await review.getByRole('button', { name: 'Request review' }).isDisabled()).to.equal(true);
      expect(await review.getByRole('button', { name: 'Publish changes' }).count()).to.equal(0);
      await review.getByText(/Publishing needs the objects:publish permission/).waitFor();
      await expectAccessible(tab, 'pending changes review (editor)');
      expect(appErrors(errors)).to.deep.equal([]);
    }

    // The administrator publishes the page and discards the snippet's change.
    const { page: tab, context, errors } = await p.page();
    await signInAs(p, context, admin);
    await tab.goto('/admin/pending-changes');
    await heading(tab, 'Pending changes').waitFor();
    await tab.getByRole('button', { name: `Review changes to News ${root}`, exact: true }).click();
    const review = tab.getByLabel(`Changes to News ${root}`, { exact: true });
    await review.getByText(/title: .*News .* v2/).waitFor();
    await expectAccessible(tab, 'pending changes review (administrator)');
    await review.getByRole('button', { name: 'Publish changes' }).click();
    await tab.getByText('Changes published').waitFor();
    await eventually(async () => expect(await publicText()).to.equal('New text'));
    await tab
      .getByRole('button', { name: `Review changes to News ${root}`, exact: true })
      .waitFor({ state: 'detached' });

    await tab.getByRole('button', { name: `Review changes to Footer ${root}`, exact: true }).click();
    await tab
      .getByLabel(`Changes to Footer ${root}`, { exact: true })
      .getByRole('button', { name: 'Discard changes' })
      .click();
    await tab.getByText('Changes discarded').waitFor();
    await tab
      .getByRole('button', { name: `Review changes to Footer ${root}`, exact: true })
      .waitFor({ state: 'detached' });
    expect((await p.t.call('GET', `/public/snippets/${snippet.id}`, null)).json().content.text).to.equal('a');
    await expectAccessible(tab, 'pending changes after publish and discard');

    // The object's row: its screen's draft panel publishes the working copy.
    const objectRow = tab
      .getByRole('table', { name: 'Pending changes' })
      .getByRole('row')
      .filter({ hasText: objectLabel });
    await objectRow.getByRole('link', { name: 'Review on its screen' }).click();
    const panel = tab.getByLabel('Draft', { exact: true });
    await panel.getByText('Draft — live version differs').waitFor();
    await panel.getByRole('button', { name: 'Publish changes' }).click();
    await tab.getByText('Changes published').last().waitFor();
    await eventually(async () => expect(await publicObject()).to.equal('New object'));
    expect(appErrors(errors)).to.deep.equal([]);
  });
});
