import { expect } from 'chai';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  sharedBrowserProduct,
  heading,
  signIn,
} from '../../../../test/helpers/browser.ts';

describe('data screens in the browser: classes, objects, preview links', function () {
  this.timeout(180_000);
  let p: BrowserProduct;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
  });

  it('creates a class with fields, creates and publishes an object, makes a preview link and opens it', async () => {
    const admin = await p.t.admin();
    const name = `article_${Date.now().toString(36)}`;
    const { page, errors } = await p.page();
    await signIn(page, admin, '/admin/data/classes');
    await heading(page, 'Data classes').waitFor();
    await expectAccessible(page, 'class list');

    await page.getByRole('link', { name: 'New class' }).click();
    await heading(page, 'New class').waitFor();
    await page.getByLabel('Name', { exact: false }).first().fill(name);
    await page.getByLabel('Label').first().fill('Article');
    await page.getByRole('button', { name: 'Add a field' }).click();
    const second = page.getByRole('group', { name: /^Field 2/ });
    await second.getByLabel('Name', { exact: false }).fill('rank');
    await second.getByRole('combobox', { name: 'Type' }).click();
    await page.getByRole('option', { name: 'Number' }).click();
    await expectAccessible(page, 'new class');
    await page.getByRole('button', { name: 'Create the class' }).click();
    await heading(page, 'Article').waitFor();
    await expectAccessible(page, 'class definition');
    const classes = (await p.t.call('GET', '/data-classes', admin)).json().classes as Array<{
      id: string;
      name: string;
      fields: Array<{ name: string; type: string; required?: boolean }>;
    }>;
    const stored = classes.find((c) => c.name === name);
    expect(stored?.fields.map((f) => [f.name, f.type])).to.deep.equal([
      ['title', 'text'],
      ['rank', 'number'],
    ]);
    await page.getByRole('tab', { name: 'Workflow' }).click();
    await page.getByRole('button', { name: 'Add a workflow' }).click();
    expect(new URL(page.url()).searchParams.get('tab')).to.equal('workflow');
    await page.getByRole('button', { name: 'Add a place' }).click();
    await page.getByLabel('Place 2 name').fill('review');
    await page.getByRole('button', { name: 'Add a transition' }).click();
    const transition = page.getByRole('group', { name: /^Transition/ });
    await transition.getByLabel('Name').fill('submit');
    await transition.getByLabel('From', { exact: true }).first().click({ force: true });
    await page.getByRole('option', { name: 'draft' }).click();
    await transition.getByRole('combobox', { name: 'To' }).click();
    await page.getByRole('option', { name: 'review' }).click();
    await expectAccessible(page, 'class workflow');
    await page.getByRole('button', { name: 'Save the workflow' }).click();
    await page.getByText('Workflow saved').waitFor();
    const workflow = (await p.t.call('GET', `/data-classes/${stored!.id}/workflow`, admin)).json();
    expect(workflow.transitions).to.deep.equal([
      { name: 'submit', label: 'submit', from: ['draft'], to: 'review', permissions: [] },
    ]);

    await page.getByRole('link', { name: 'Its objects' }).click();
    await heading(page, 'Article: objects').waitFor();
    await page.getByText('No objects match').waitFor();
    await expectAccessible(page, 'empty object list');
    await page.getByRole('link', { name: 'New object' }).click();
    await heading(page, 'New Article').waitFor();
    await page.getByLabel('title', { exact: false }).fill('Hello from the browser');
    await page.getByLabel('rank').fill('7');
    await page.getByRole('button', { name: 'Create the object' }).click();
    await heading(page, 'Hello from the browser').waitFor();
    await expectAccessible(page, 'object form');
    await page.getByText('Place: draft').waitFor();
    await page.getByRole('button', { name: 'submit → review' }).click();
    await page.getByText('Place: review').waitFor();
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByRole('button', { name: 'Unpublish' }).waitFor();
    const id = new URL(page.url()).pathname.split('/').pop()!;
    const object = (await p.t.call('GET', `/data-objects/${id}`, admin)).json();
    expect(object).to.deep.include({ published: true, workflowState: 'review' });
    expect(object.attributes).to.deep.equal({ title: 'Hello from the browser', rank: 7 });

    await page.getByRole('button', { name: 'Make a preview link' }).click();
    const open = page.getByRole('link', { name: 'Open preview' });
    await open.waitFor();
    await expectAccessible(page, 'object with a preview link');
    const href = (await open.getAttribute('href'))!;
    expect(href).to.match(/^\/preview\/objects\/[A-Za-z0-9_-]+$/);
    const preview = await p.page();
    const answer = await preview.page.goto(href);
    expect(answer?.status()).to.equal(200);
    expect(JSON.parse((await answer?.text()) ?? '{}').attributes.title).to.equal('Hello from the browser');

    // Back to the list: the filter lives in the URL, and the back button walks through it.
    await page.goBack();
    await heading(page, 'Article: objects').waitFor();
    await page.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'Drafts' }).click();
    await page.getByText('No objects match').waitFor();
    expect(new URL(page.url()).searchParams.get('published')).to.equal('no');
    await page.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'Published' }).click();
    await page.getByRole('link', { name: 'Hello from the browser' }).waitFor();
    await page.goBack();
    await page.getByText('No objects match').waitFor();
    await expectAccessible(page, 'filtered object list');
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('pages by cursor, publishes in bulk and imports a CSV file; the phone width passes axe', async () => {
    const admin = await p.t.admin();
    const created = await p.t.call('POST', '/data-classes', admin, {
      name: `item_${Date.now().toString(36)}`,
      label: 'Item',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'size', type: 'number' },
      ],
    });
    expect(created.statusCode, created.body).to.equal(201);
    const cls = created.json();
    const rows = Array.from({ length: 30 }, (_, i) => ({ key: `i${i}`, attributes: { title: `Item ${i}`, size: i } }));
    expect(
      (await p.t.call('POST', '/data-objects/bulk', admin, { classId: cls.id, objects: rows })).statusCode,
    ).to.equal(200);
    const { page, errors } = await p.page('phone');
    await signIn(page, admin, `/admin/data/objects?class=${cls.name}&sort=size`);
    await heading(page, 'Item: objects').waitFor();
    await page.getByText('30 objects match').waitFor();
    await page.getByRole('link', { name: 'Item 0', exact: true }).waitFor();
    await expectAccessible(page, 'object list at 390 px');
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByRole('link', { name: 'Item 25', exact: true }).waitFor();
    await page.getByText('Page 2').waitFor();
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByRole('link', { name: 'Item 0', exact: true }).waitFor();

    await page.getByRole('checkbox', { name: 'Select every object of this page' }).check();
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByText('25 of 25 objects published').waitFor();
    const published = await p.t.call('POST', '/data-objects/query', admin, {
      className: cls.name,
      filters: [{ field: 'published', op: 'eq', value: true }],
      limit: 1,
    });
    expect(published.json().total).to.equal(25);

    await page.getByRole('button', { name: 'Import CSV' }).click();
    await page.getByRole('dialog').waitFor();
    await page.locator('input[type="file"]').setInputFiles({
      name: 'items.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(
        'key,title,size,colour\r\nc1,"From CSV, one",1,red\r\nc2,From CSV two,x,blue\r\ni0,Taken key,3,\r\n',
      ),
    });
    await page.getByText('ignored (no such field): colour').waitFor();
    await page.getByText('row 3, size: not a number').waitFor();
    await expectAccessible(page, 'CSV import');
    await page.getByRole('button', { name: 'Import 3 rows' }).click();
    await page.getByText('2 created, 0 updated, 0 unchanged, 1 refused.').waitFor();
    const csv = await p.t.call('POST', '/data-objects/query', admin, {
      className: cls.name,
      filters: [{ field: 'key', op: 'in', value: ['c1', 'c2'] }],
      orderBy: [{ field: 'key' }],
    });
    expect(csv.json().objects.map((o: { attributes: unknown }) => o.attributes)).to.deep.equal([
      { title: 'From CSV, one', size: 1 },
      { title: 'From CSV two' },
    ]);
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('offers a reader no changes, and tells a user without the data keys that the screen is not allowed', async () => {
    const admin = await p.t.admin();
    const cls = (
      await p.t.call('POST', '/data-classes', admin, {
        name: `note_${Date.now().toString(36)}`,
        label: 'Note',
        fields: [{ name: 'title', type: 'text' }],
      })
    ).json();
    const reader = await p.t.createUser({ roles: ['viewer'] });
    const { page, errors } = await p.page();
    await signIn(page, reader, '/admin/data/classes');
    await heading(page, 'Data classes').waitFor();
    await page.getByRole('link', { name: 'Note', exact: true }).waitFor();
    expect(await page.getByRole('link', { name: 'New class' }).count()).to.equal(0);
    await page.getByRole('link', { name: 'Note', exact: true }).click();
    await heading(page, 'Note').waitFor();
    expect(await page.getByRole('button', { name: 'Save the class' }).count()).to.equal(0);
    expect(await page.getByRole('button', { name: 'Add a field' }).count()).to.equal(0);
    await page.goto(`/admin/data/objects?class=${cls.name}`);
    await heading(page, 'Note: objects').waitFor();
    expect(await page.getByRole('button', { name: 'Import CSV' }).count()).to.equal(0);
    expect(await page.getByRole('link', { name: 'New object' }).count()).to.equal(0);
    expect(appErrors(errors)).to.deep.equal([]);

    const outsider = await p.t.createUser({ permissions: ['audit:read'] });
    const other = await p.page();
    await signIn(other.page, outsider, '/admin/data/objects');
    await other.page.getByRole('alert').filter({ hasText: 'Not allowed' }).waitFor();
    expect(
      await other.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Objects' }).count(),
    ).to.equal(0);
    expect(appErrors(other.errors)).to.deep.equal([]);
  });
});
