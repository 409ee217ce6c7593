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
 * The template and layout screens (and the object screen, through the same shared review) show a
 * working copy: "Draft — live version differs" with what changed; who may not publish sees a disabled
 * "Request review" with the reason; an administrator publishes one and discards another.
 */
describe('dashboard: the draft panel on the template, layout and object screens', function () {
  this.timeout(180_000);
  let p: BrowserProduct;
  let admin: TestUser;
  let editor: TestUser;
  const ids: Record<string, string> = {};
  let root: string;

  const call = async (method: string, url: string, user: TestUser, body?: unknown, status = 200) => {
    const res = await p.t.call(method as 'POST', url, user, body);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).to.equal(status);
    return res.statusCode === 204 ? null : res.json();
  };

  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.admin();
    editor = await p.t.createUser({
      permissions: ['objects:read', 'objects:write', 'templates:edit', 'websites:edit'],
    });
    root = `rd${stamp()}`;
    const site = await call(
      'POST',
      '/cms-one/websites',
      admin,
      { name: `RD ${root}`, rootPath: `/${root}`, locales: ['en'] },
      201,
    );
    ids.site = site.id;
    const template = await call(
      'POST',
      '/cms-one/templates',
      admin,
      { name: `Landing ${root}`, path: `/landing-${root}`, content: { type: 'p', text: 'Live template' } },
      201,
    );
    ids.template = template.id;
    const layout = await call(
      'POST',
      `/cms-one/websites/${site.id}/templates`,
      admin,
      { name: `Main ${root}`, isDefault: true, regions: { header: { type: 'p', text: 'Live header' } } },
      201,
    );
    ids.layout = layout.id;
    const cls = `Rd${root}`;
    await call(
      'POST',
      '/data-classes',
      admin,
      { name: cls, label: cls, fields: [{ name: 'title', type: 'text' }] },
      201,
    );
    const object = await call(
      'POST',
      '/data-objects',
      admin,
      { className: cls, published: true, attributes: { title: 'Live title' } },
      201,
    );
    ids.object = object.id;
    // The editor may not publish: each save goes to the record's working copy.
    const t = await call('PATCH', `/cms-one/templates/${template.id}`, editor, {
      content: { type: 'p', text: 'Next template' },
    });
    expect(t.draft.updatedBy).to.equal(editor.id);
    await call('PATCH', `/cms-one/websites/${site.id}/templates/${layout.id}`, editor, {
      regions: { header: { type: 'p', text: 'Next header' } },
    });
    await call('PATCH', `/data-objects/${object.id}`, editor, { attributes: { title: 'Draft title' } });
  });

  const screens = () => [
    { what: 'template', url: `/admin/templates/${ids.template}`, title: `Landing ${root}`, changed: 'content' },
    {
      what: 'layout',
      url: `/admin/websites/${ids.site}/layouts/${ids.layout}`,
      title: `Main ${root}`,
      changed: 'regions',
    },
    { what: 'object', url: `/admin/data/objects/${ids.object}`, title: null, changed: 'title' },
  ];

  it('shows the editor the draft, what changed and a disabled Request review with the reason', async () => {
    const { page, context, errors } = await p.page();
    await signInAs(p, context, editor);
    for (const s of screens()) {
      await page.goto(s.url);
      if (s.title) await heading(page, s.title).waitFor();
      const panel = page.getByLabel('Draft', { exact: true });
      await panel.getByText('Draft — live version differs').waitFor();
      await panel.getByText(`Changed: ${s.changed}`).waitFor();
      const request = panel.getByRole('button', { name: 'Request review' });
      expect(await request.isDisabled(), s.what).to.equal(true);
      expect(await panel.getByRole('button', { name: 'Publish changes' }).count(), s.what).to.equal(0);
      await panel.getByText(/Publishing needs the objects:publish permission/).waitFor();
      // The reason is the disabled button's description.
      const described = await request.getAttribute('aria-describedby');
      expect(await page.locator(`[id="${described}"]`).textContent()).to.match(/objects:publish/);
      await expectAccessible(page, `${s.what} screen with a working copy (editor)`);
    }
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('lets an administrator publish the template and the object and discard the layout; the panel goes', async () => {
    const { page, context, errors } = await p.page();
    await signInAs(p, context, admin);
    const [template, layout, object] = screens();

    await page.goto(template.url);
    const panel = page.getByLabel('Draft', { exact: true });
    await panel.getByText('Changed: content').waitFor();
    await panel.getByText(/Blocks: 0 added, 0 removed, 1 changed/).waitFor();
    await expectAccessible(page, 'template screen with a working copy (administrator)');
    await panel.getByRole('button', { name: 'Publish changes' }).click();
    await page.getByText('Changes published').waitFor();
    await panel.waitFor({ state: 'detached' });
    const live = await call('GET', `/cms-one/templates/${ids.template}?version=live`, admin);
    expect(live.content.text).to.equal('Next template');

    await page.goto(layout.url);
    await panel.getByText('Changed: regions').waitFor();
    await panel.getByRole('button', { name: 'Discard changes' }).click();
    await page.getByText('Changes discarded').waitFor();
    await panel.waitFor({ state: 'detached' });
    const kept = await call('GET', `/cms-one/websites/${ids.site}/templates/${ids.layout}`, admin);
    expect(kept.regions.header.text).to.equal('Live header');
    expect(kept).to.not.have.property('draft');
    await expectAccessible(page, 'layout screen after the discard');

    await page.goto(object.url);
    await panel.getByText('title: "Live title" → "Draft title"').waitFor();
    await panel.getByRole('button', { name: 'Publish changes' }).click();
    await page.getByText('Changes published').waitFor();
    await panel.waitFor({ state: 'detached' });
    expect((await call('GET', `/public/data-objects/${ids.object}`, admin)).attributes.title).to.equal('Draft title');
    expect(appErrors(errors)).to.deep.equal([]);
  });
  it('the seeded editor role saves a published object in the dashboard: the public API keeps the old title until an administrator publishes', async () => {
    const seeded = await p.t.createUser({ roles: ['editor'] });
    const cls = `Rs${stamp()}`;
    await call(
      'POST',
      '/data-classes',
      admin,
      { name: cls, label: cls, fields: [{ name: 'title', type: 'text' }] },
      201,
    );
    const object = await call(
      'POST',
      '/data-objects',
      admin,
      { className: cls, published: true, attributes: { title: 'Old lamp' } },
      201,
    );
    const publicTitle = async () =>
      (await call('GET', `/public/data-objects/${object.id}`, admin)).attributes.title as string;
    {
      const { page, context, errors } = await p.page();
      await signInAs(p, context, seeded);
      await page.goto(`/admin/data/objects/${object.id}`);
      const title = page.getByRole('textbox', { name: 'title', exact: true });
      // The form takes the loaded object first; a value typed before that would be replaced.
      await eventually(async () => expect(await title.inputValue()).to.equal('Old lamp'));
      await title.fill('New lamp');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      const panel = page.getByLabel('Draft', { exact: true });
      await panel.getByText('Draft — live version differs').waitFor();
      expect(await panel.getByRole('button', { name: 'Request review' }).isDisabled()).to.equal(true);
      expect(await publicTitle()).to.equal('Old lamp');
      await expectAccessible(page, 'object screen after a save to the working copy (seeded editor)');
      expect(appErrors(errors)).to.deep.equal([]);
    }
    const { page, context, errors } = await p.page();
    await signInAs(p, context, admin);
    await page.goto(`/admin/data/objects/${object.id}`);
    const panel = page.getByLabel('Draft', { exact: true });
    await panel.getByText('title: "Old lamp" → "New lamp"').waitFor();
    await panel.getByRole('button', { name: 'Publish changes' }).click();
    await page.getByText('Changes published').waitFor();
    await panel.waitFor({ state: 'detached' });
    expect(await publicTitle()).to.equal('New lamp');
    expect(appErrors(errors)).to.deep.equal([]);
  });
});
