import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  heading,
  signInAs,
  startBrowserProduct,
} from '../../../../test/helpers/browser.ts';
import { PIMCORE_FIXTURES, type RunningMariaDb, startMariaDb } from '../../../../test/helpers/mariadb.ts';

const KEY = { INTEGRATION_SECRETS_ENCRYPTION_KEY: 'c9'.repeat(32) };

describe('migration in the browser: a Pimcore source from connection test to promoted pages', function () {
  this.timeout(180_000);
  let db: RunningMariaDb;
  let p: BrowserProduct;

  before(async function () {
    this.timeout(240_000);
    // A product of its own: sealing the source password needs the key, and background imports the job engine.
    [db, p] = await Promise.all([startMariaDb(), startBrowserProduct({ env: KEY, jobs: true })]);
    await db.loadPimcoreFixture();
    await db.sql(`USE ${db.database}; ${readFileSync(path.join(PIMCORE_FIXTURES, 'documents.sql'), 'utf8')}`);
    // A second category keyed like the first in another folder: keys are unique per class here, so
    // it fails with its reason and the progress screen lists it.
    await db.sql(`USE ${db.database};
      INSERT INTO objects (id, parentId, type, \`key\`, path, \`index\`, published, creationDate, modificationDate, classId, className) VALUES
        (7, 1, 'folder', 'archive', '/', 3, 1, 1718000000, 1718000000, NULL, NULL),
        (6, 7, 'object', 'shoes', '/archive/', 0, 1, 1718000000, 1718000000, 'CAT', 'Category');
      INSERT INTO object_store_CAT (oo_id, name) VALUES (6, 'Old shoes');
      INSERT INTO object_query_CAT (oo_id, name) VALUES (6, 'Old shoes');`);
  });
  after(async () => {
    await p?.close();
    await db?.stop();
  });

  it('creates a source, tests it, imports classes, objects in the background and documents staged, promotes one', async () => {
    const admin = await p.t.admin();
    const site = await p.t.call('POST', '/cms-one/websites', admin, {
      name: 'Pimcore shop',
      rootPath: '/pimcore-shop',
      locales: ['en', 'de'],
    });
    expect(site.statusCode, site.body).to.equal(201);
    const websiteId = site.json().id;
    // A page already at /about: the comparison shows it beside the staged one.
    const current = await p.t.call('POST', '/cms-one/pages', admin, {
      websiteId,
      locale: 'en',
      path: '/about',
      title: 'About (old)',
      content: { type: 'section', children: [{ type: 'p', text: 'The old about page' }] },
    });
    expect(current.statusCode, current.body).to.equal(201);

    const { page, context, errors } = await p.page();
    await signInAs(p, context, admin);
    await page.goto('/admin');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Migration from Pimcore' }).click();
    await heading(page, 'Migration sources').waitFor();
    await page.getByText('No migration sources yet').waitFor();
    await expectAccessible(page, 'sources, empty');

    await page.getByRole('button', { name: 'New source' }).click();
    const dialog = page.getByRole('dialog', { name: 'New migration source' });
    await dialog.getByLabel(/^Name/).fill('Shop');
    await dialog.getByLabel(/^Database host/).fill(db.host);
    await dialog.getByLabel(/^Port/).fill(String(db.port));
    await dialog.getByLabel(/^Database name/).fill(db.database);
    await dialog.getByLabel(/^Database user/).fill(db.user);
    await dialog.getByLabel(/^Database password/).fill(db.password);
    await dialog.getByLabel(/^Class folder/).fill(path.join(PIMCORE_FIXTURES, 'var', 'classes'));
    await expectAccessible(page, 'new source form');
    await dialog.getByRole('button', { name: 'Create source' }).click();

    await heading(page, 'Shop: connection').waitFor();
    await page.getByText('Password set. Leave empty to keep it.').waitFor();
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page.getByText('Connection works').waitFor();
    const holds = page.getByRole('list', { name: 'What the source holds' });
    await holds.getByText('Classes: 2').waitFor();
    await holds.getByText(/^Server: .+/).waitFor();
    await expectAccessible(page, 'source with its connection test');

    await page.getByRole('navigation', { name: 'Migration steps' }).getByRole('link', { name: 'Classes' }).click();
    await heading(page, 'Shop: classes').waitFor();
    const fields = page.getByRole('table', { name: 'Fields of Product' });
    await fields.getByRole('row').filter({ hasText: 'manyToOneRelation' }).waitFor();
    expect(await page.getByRole('table', { name: 'Fields of Category' }).count()).to.equal(1);
    await expectAccessible(page, 'class preview');
    await page.getByRole('button', { name: 'Import all classes' }).click();
    const imported = page.getByRole('list', { name: 'What happened: classes imported' });
    await imported.getByText('Created Product').waitFor();
    await imported.getByText('Created Category').waitFor();
    // The preview is read again: both classes now exist here and are reused.
    await page.getByRole('heading', { name: /^Product\s*reuse$/ }).waitFor();
    await expectAccessible(page, 'classes imported');
    // Field collections and bricks become data components.
    await page.getByRole('button', { name: 'Extract as components' }).click();
    const extracted = page.getByRole('list', { name: 'What happened: components extracted' });
    await extracted.getByText('Created Spec').waitFor();
    await extracted.getByText('Created Dimensions').waitFor();
    expect(
      (await p.t.call('GET', '/data-components', admin)).json().components.map((c: { name: string }) => c.name),
    ).to.include.members(['Spec', 'Dimensions']);
    await expectAccessible(page, 'components extracted');

    await page.getByRole('navigation', { name: 'Migration steps' }).getByRole('link', { name: 'Objects' }).click();
    await heading(page, 'Shop: objects').waitFor();
    await page.getByRole('checkbox', { name: /Keep Pimcore's published state/ }).waitFor();
    await expectAccessible(page, 'object import');
    await page.getByRole('button', { name: 'Import objects' }).click();
    await page.getByText('succeeded', { exact: true }).waitFor({ timeout: 60_000 });
    const bar = page.getByRole('progressbar', { name: 'Objects imported' });
    expect(await bar.getAttribute('aria-valuenow')).to.equal('100');
    await page.getByText('4 of 4 objects').waitFor();
    await page.getByRole('list', { name: 'Counts' }).getByText('Created: 3').waitFor();
    await page.getByRole('list', { name: 'Counts' }).getByText('Failed: 1').waitFor();
    await page.getByRole('table', { name: 'Failed records' }).getByRole('cell', { name: '6', exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Cancel import' }).count()).to.equal(0);
    expect(new URL(page.url()).searchParams.get('job')).to.match(/^[0-9a-f-]{36}$/);
    await expectAccessible(page, 'object import succeeded');

    await page.getByRole('navigation', { name: 'Migration steps' }).getByRole('link', { name: 'Documents' }).click();
    await heading(page, 'Shop: documents').waitFor();
    await page.getByRole('combobox', { name: 'Website' }).click();
    await page.getByRole('option', { name: 'Pimcore shop (/pimcore-shop)' }).click();
    await page.getByText('No staged pages of this source').waitFor();
    expect(await page.getByRole('checkbox', { name: /Stage the pages for review/ }).isChecked()).to.equal(true);
    await expectAccessible(page, 'document import');
    await page.getByRole('button', { name: 'Import documents' }).click();
    await page.getByText('Documents imported').waitFor();
    const staged = page.getByRole('table', { name: 'Staged pages' });
    await staged.getByRole('cell', { name: '/about', exact: true }).waitFor();
    await expectAccessible(page, 'staged pages');

    await page.getByRole('button', { name: 'Compare /about' }).click();
    const compare = page.getByRole('dialog', { name: 'Compare /about' });
    await compare.getByText('Title: About us', { exact: true }).waitFor();
    await compare.getByText('Title: About (old)', { exact: true }).waitFor();
    await compare.getByText(/p: The old about page/).waitFor();
    await expectAccessible(page, 'staged page beside the current page');
    await compare.getByRole('button', { name: 'Close' }).click();

    await page.getByRole('checkbox', { name: 'Select /about' }).check();
    await page.getByRole('button', { name: 'Promote selected (1)' }).click();
    await page.getByRole('list', { name: 'Promoted pages' }).getByText('/about').waitFor();
    await staged.getByRole('cell', { name: '/about', exact: true }).waitFor({ state: 'detached' });
    await expectAccessible(page, 'a staged page promoted');

    const about = await p.t.call('GET', `/cms-one/pages/${current.json().id}`, admin);
    expect(about.json().title).to.equal('About us');
    const left = (await p.t.call('GET', `/cms-one/pages/staged?websiteId=${websiteId}`, admin)).json();
    expect(left.map((s: { path: string }) => s.path)).to.not.include('/about');
    expect(left.length).to.be.greaterThan(0);
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('edits a source (the password stays set) and deletes it after asking', async () => {
    const admin = await p.t.admin();
    const made = await p.t.call('POST', '/migration-sources', admin, {
      name: 'Staging copy',
      kind: 'pimcore',
      connection: { host: db.host, port: db.port, database: db.database, user: db.user, password: db.password },
      classPath: path.join(PIMCORE_FIXTURES, 'var', 'classes'),
    });
    expect(made.statusCode, made.body).to.equal(201);
    const { page, context, errors } = await p.page();
    await signInAs(p, context, admin);
    await page.goto('/admin/migration');
    await page.getByRole('link', { name: 'Staging copy' }).click();
    await heading(page, 'Staging copy: connection').waitFor();
    await page.getByLabel(/^Name/).fill('Staging copy (old)');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await heading(page, 'Staging copy (old): connection').waitFor();
    const saved = (await p.t.call('GET', `/migration-sources/${made.json().id}`, admin)).json();
    expect(saved).to.deep.include({ name: 'Staging copy (old)', passwordSet: true });

    await page.getByRole('button', { name: 'Delete source' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete the source Staging copy (old)?' });
    await confirm.getByText(/What was imported from it stays/).waitFor();
    await expectAccessible(page, 'delete source confirmation');
    await confirm.getByRole('button', { name: 'Delete source' }).click();
    await heading(page, 'Migration sources').waitFor();
    expect((await p.t.call('GET', `/migration-sources/${made.json().id}`, admin)).statusCode).to.equal(404);
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('hides the imports from a user who may only manage sources, and the screens from one who may not', async () => {
    const admin = await p.t.admin();
    const sources = (await p.t.call('GET', '/migration-sources', admin)).json().sources;
    const id = sources.find((s: { name: string }) => s.name === 'Shop').id;
    const manager = await p.t.createUser({ permissions: ['migration:manage', 'objects:read'] });
    const { page, context, errors } = await p.page('phone');
    await signInAs(p, context, manager);
    await page.goto(`/admin/migration/${id}/classes`);
    await heading(page, 'Shop: classes').waitFor();
    await page.getByRole('table', { name: 'Fields of Product' }).waitFor();
    expect(await page.getByRole('button', { name: 'Import all classes' }).count()).to.equal(0);
    expect(await page.getByRole('button', { name: 'Extract as components' }).count()).to.equal(0);
    await expectAccessible(page, 'class preview without data_classes:manage at 390 px');
    await page.goto(`/admin/migration/${id}/objects`);
    await page.getByText('Importing objects needs the permission to write data objects.').waitFor();
    expect(await page.getByRole('button', { name: 'Import objects' }).count()).to.equal(0);
    await page.goto(`/admin/migration/${id}/documents`);
    await page.getByText('Importing documents needs the permissions to edit pages and snippets.').waitFor();
    await expectAccessible(page, 'document import without pages:edit at 390 px');

    const reader = await p.t.createUser({ permissions: ['objects:read'] });
    const other = await p.page();
    await signInAs(p, other.context, reader);
    await other.page.goto('/admin/migration');
    await heading(other.page, 'Migration sources').waitFor();
    await other.page.getByRole('alert').getByText('Not allowed').waitFor();
    expect(await other.page.getByRole('link', { name: 'Migration from Pimcore' }).count()).to.equal(0);
    expect(appErrors(errors)).to.deep.equal([]);
    expect(appErrors(other.errors)).to.deep.equal([]);
  });
});
