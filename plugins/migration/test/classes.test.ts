import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { auditRows, startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { PIMCORE_FIXTURES, type RunningMariaDb, startMariaDb } from '../../../test/helpers/mariadb.ts';

const KEY = { INTEGRATION_SECRETS_ENCRYPTION_KEY: 'b8'.repeat(32) };

describe('migration sources: a Pimcore 11 database and class folder', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let db: RunningMariaDb;
  let admin: TestUser;
  let classPath: string;
  const folders: string[] = [];

  /** A copy of the fixture class folder to change in one test. */
  const classFolder = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cms-pimcore-classes-'));
    cpSync(path.join(PIMCORE_FIXTURES, 'var', 'classes'), dir, { recursive: true });
    folders.push(dir);
    return dir;
  };
  const createSource = async (name: string, extra: Record<string, unknown> = {}) => {
    const res = await t.call('POST', '/migration-sources', admin, {
      name,
      kind: 'pimcore',
      connection: { host: db.host, port: db.port, database: db.database, user: db.user, password: db.password },
      classPath,
      ...extra,
    });
    expect(res.statusCode, res.body).to.equal(201);
    return res.json().id as string;
  };

  before(async () => {
    [db, t] = await Promise.all([
      startMariaDb(),
      startTestKernel({ plugins: ['gateway', 'data', 'migration'], env: KEY }),
    ]);
    await db.loadPimcoreFixture();
    admin = await t.admin();
    classPath = classFolder();
  });
  after(async () => {
    await t?.close();
    await db?.stop();
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  });

  it('tests the connection with the sealed password: server, counts of classes, objects and documents', async () => {
    const id = await createSource('pimcore-test');
    const res = await t.call('POST', `/migration-sources/${id}/test`, admin);
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.json()).to.deep.include({ ok: true, classes: 2, objects: 3, documents: 0, problems: [] });
    expect(res.json().server).to.contain('MariaDB');
  });

  it('reports a wrong password and a missing class folder as problems, not as an error', async () => {
    const id = await createSource('pimcore-wrong', {
      connection: { host: db.host, port: db.port, database: db.database, user: db.user, password: 'wrong' },
      classPath: '/nonexistent/var/classes',
    });
    const res = await t.call('POST', `/migration-sources/${id}/test`, admin);
    expect(res.statusCode, res.body).to.equal(200);
    const report = res.json();
    expect(report.ok).to.equal(false);
    expect(report.problems).to.have.length(2);
    expect(report.problems[0]).to.match(/^database: ER_ACCESS_DENIED_ERROR/);
    expect(report.problems[1]).to.match(/^classPath: /);
    expect(res.body).not.to.contain(db.password);
  });

  it('previews the classes as a mapping table and creates nothing', async () => {
    const id = await createSource('pimcore-preview');
    const res = await t.call('POST', `/migration-sources/${id}/preview-classes`, admin);
    expect(res.statusCode, res.body).to.equal(200);
    const { classes, components, warnings } = res.json();
    expect(classes.map((c: { name: string }) => c.name)).to.deep.equal(['Category', 'Product']);
    const product = classes[1];
    expect(product).to.include({ pimcoreId: 'PROD', action: 'create' });
    const row = (name: string) => product.fields.find((f: { name: string }) => f.name === name);
    expect(row('name')).to.include({ pimcoreType: 'input', type: 'text', translated: true });
    expect(row('description')).to.include({ pimcoreType: 'wysiwyg', type: 'richtext', translated: true });
    expect(row('sku')).to.include({ pimcoreType: 'input', type: 'text', translated: false });
    expect(row('price')).to.include({ type: 'number' });
    expect(row('active')).to.include({ type: 'boolean' });
    expect(row('releaseDate')).to.include({ type: 'date' });
    expect(row('color')).to.include({ type: 'select' });
    expect(row('tags')).to.include({ pimcoreType: 'multiselect', type: 'array' });
    expect(row('category')).to.include({ pimcoreType: 'manyToOneRelation', type: 'relation' });
    expect(row('related')).to.include({ pimcoreType: 'manyToManyObjectRelation', type: 'array' });
    expect(row('image')).to.include({ type: 'asset' });
    expect(row('gallery')).to.include({ pimcoreType: 'imageGallery', type: 'array' });
    expect(row('website')).to.include({ pimcoreType: 'link', type: 'json' });
    expect(row('specs')).to.include({ pimcoreType: 'fieldcollections', type: 'json' });
    expect(row('extras')).to.include({ pimcoreType: 'objectbricks', type: 'json' });
    expect(row('location')).to.include({ pimcoreType: 'geopoint', type: 'json' });
    expect(row('rating')).to.include({ pimcoreType: 'rating', type: 'json' });
    expect(warnings).to.deep.equal(['Product.field rating: unknown Pimcore type "rating" becomes json']);
    expect(components).to.deep.equal([
      {
        name: 'Spec',
        kind: 'fieldcollection',
        fields: [
          { name: 'label', pimcoreType: 'input', type: 'text', translated: false },
          { name: 'value', pimcoreType: 'input', type: 'text', translated: false },
        ],
      },
      {
        name: 'Dimensions',
        kind: 'objectbrick',
        fields: [
          { name: 'width', pimcoreType: 'input', type: 'text', translated: false },
          { name: 'height', pimcoreType: 'input', type: 'text', translated: false },
        ],
      },
    ]);
    expect(await t.db('data_classes').whereIn('name', ['Category', 'Product'])).to.have.length(0);
  });

  it('imports the classes (relation targets first), audited; a second import reuses them', async () => {
    const id = await createSource('pimcore-import');
    const res = await t.call('POST', `/migration-sources/${id}/import-classes`, admin, {});
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.json().created.map((c: { name: string }) => c.name)).to.deep.equal(['Category', 'Product']);
    const product = await t.db('data_classes').where({ name: 'Product' }).first();
    const field = (name: string) => product.fields.find((f: { name: string }) => f.name === name);
    expect(field('name')).to.include({ type: 'text', localized: true, required: true });
    expect(field('category')).to.deep.include({ type: 'relation', relation: { class: 'Category' } });
    expect(field('related')).to.deep.include({ type: 'array', of: 'relation', relation: { class: 'Product' } });
    expect(field('color')).to.deep.include({ type: 'select', options: ['red', 'blue'] });
    const [audit] = await auditRows(t, 'migration_source.import_classes', id);
    expect(audit.after).to.deep.equal({ created: ['Category', 'Product'] });
    expect(await auditRows(t, 'data_class.create')).to.have.length(2);

    const again = await t.call('POST', `/migration-sources/${id}/import-classes`, admin, {});
    expect(again.statusCode, again.body).to.equal(200);
    expect(again.json()).to.deep.include({ created: [], reused: ['Category', 'Product'], conflicts: [] });
    expect(await auditRows(t, 'migration_source.import_classes', id)).to.have.length(1);
  });

  it('reports a class whose fields differ from an existing class of its name as a conflict', async () => {
    const dir = classFolder();
    const file = path.join(dir, 'definition_Category.php');
    const { readFileSync } = await import('node:fs');
    writeFileSync(file, readFileSync(file, 'utf8').replace("'name' => 'slug'", "'name' => 'handle'"));
    const id = await createSource('pimcore-conflict', { classPath: dir });
    const preview = (
      await t.call('POST', `/migration-sources/${id}/preview-classes`, admin, { classes: ['Category'] })
    ).json();
    expect(preview.classes[0]).to.include({ name: 'Category', action: 'conflict' });
    expect(preview.classes[0].reason).to.contain('handle');
    const res = await t.call('POST', `/migration-sources/${id}/import-classes`, admin, { classes: ['Category'] });
    expect(res.json().conflicts.map((c: { name: string }) => c.name)).to.deep.equal(['Category']);
    const unknown = await t.call('POST', `/migration-sources/${id}/preview-classes`, admin, { classes: ['Nope'] });
    expect(unknown.statusCode).to.equal(400);
    expect(unknown.json().code).to.equal('CLASS_NOT_IN_SOURCE');
  });

  it('importing classes needs data_classes:manage besides migration:manage', async () => {
    const id = await createSource('pimcore-rights');
    const manager = await t.createUser({ permissions: ['migration:manage'] });
    const res = await t.call('POST', `/migration-sources/${id}/import-classes`, manager, {});
    expect(res.statusCode).to.equal(403);
    expect((await t.call('POST', `/migration-sources/${id}/preview-classes`, manager)).statusCode).to.equal(200);
  });

  it('extracts field collections and object bricks as data components, audited; a second run reuses them', async () => {
    const id = await createSource('pimcore-components');
    const manager = await t.createUser({ permissions: ['migration:manage'] });
    const refused = await t.call('POST', `/migration-sources/${id}/extract-components`, manager, {});
    expect(refused.statusCode, refused.body).to.equal(403);
    const unknown = await t.call('POST', `/migration-sources/${id}/extract-components`, admin, {
      components: ['Nope'],
    });
    expect(unknown.statusCode).to.equal(400);
    expect(unknown.json()).to.include({ code: 'COMPONENT_NOT_IN_SOURCE', field: 'components' });
    expect(await t.db('data_components').whereIn('name', ['Spec', 'Dimensions'])).to.have.length(0);

    const res = await t.call('POST', `/migration-sources/${id}/extract-components`, admin);
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.json().created.map((c: { name: string; kind: string }) => [c.name, c.kind])).to.deep.equal([
      ['Spec', 'fieldcollection'],
      ['Dimensions', 'objectbrick'],
    ]);
    const listed = (await t.call('GET', '/data-components', admin)).json().components as Array<{
      name: string;
      fields: Array<{ name: string; type: string }>;
    }>;
    const spec = listed.find((c) => c.name === 'Spec');
    expect(spec?.fields.map((f) => [f.name, f.type])).to.deep.equal([
      ['label', 'text'],
      ['value', 'text'],
    ]);
    const [audit] = await auditRows(t, 'migration_source.extract_components', id);
    expect(audit.after).to.deep.equal({ created: ['Spec', 'Dimensions'] });

    const again = await t.call('POST', `/migration-sources/${id}/extract-components`, admin, { components: ['Spec'] });
    expect(again.json()).to.deep.include({ created: [], reused: ['Spec'], conflicts: [] });
    expect(await auditRows(t, 'migration_source.extract_components', id)).to.have.length(1);

    // A component of the name with other fields is left as it is and reported.
    const dir = classFolder();
    const brick = path.join(dir, 'objectbricks', 'Dimensions.php');
    const { readFileSync } = await import('node:fs');
    writeFileSync(brick, readFileSync(brick, 'utf8').replace("'name' => 'height'", "'name' => 'depth'"));
    const changed = await createSource('pimcore-components-changed', { classPath: dir });
    const conflict = await t.call('POST', `/migration-sources/${changed}/extract-components`, admin, {});
    expect(conflict.json().conflicts.map((c: { name: string }) => c.name)).to.deep.equal(['Dimensions']);
  });

  describe('hostile class files are refused with a clear 400 and nothing written', () => {
    const hostile = async (name: string, content: string | Buffer) => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'cms-pimcore-hostile-'));
      folders.push(dir);
      writeFileSync(path.join(dir, `definition_${name}.php`), content);
      const id = await createSource(`hostile-${name}`, { classPath: dir });
      const before = await t.db('data_classes').count<{ count: string }[]>('* as count');
      const preview = await t.call('POST', `/migration-sources/${id}/preview-classes`, admin);
      const imported = await t.call('POST', `/migration-sources/${id}/import-classes`, admin, {});
      const after = await t.db('data_classes').count<{ count: string }[]>('* as count');
      expect(after[0].count).to.equal(before[0].count);
      expect(imported.statusCode).to.equal(preview.statusCode);
      return preview;
    };

    it('an expression that is not a literal (a call, a variable, interpolation, a second statement)', async () => {
      for (const [name, code] of [
        [
          'Call',
          "<?php return \\Pimcore\\Model\\DataObject\\ClassDefinition::__set_state(array('name' => system('id')));",
        ],
        ['Variable', "<?php return array('name' => $_ENV['x']);"],
        ['Interpolation', '<?php return array(\'name\' => "a{$x}");'],
        ['Statements', "<?php file_put_contents('/tmp/x', 'y'); return array('name' => 'A');"],
        ['Constant', "<?php return array('name' => PHP_VERSION);"],
      ]) {
        const res = await hostile(name, code);
        expect(res.statusCode, `${name}: ${res.body}`).to.equal(400);
        expect(res.json()).to.include({ code: 'CLASS_FILE_NOT_LITERAL', field: 'classPath' });
        expect(res.json().message).to.contain(`definition_${name}.php`);
      }
    });

    it('a file over the size limit (50 MB)', async () => {
      const res = await hostile('Huge', Buffer.alloc(50 * 1024 * 1024, 0x20));
      expect(res.statusCode).to.equal(400);
      expect(res.json().code).to.equal('CLASS_FILE_TOO_LARGE');
    });

    it('deep nesting', async () => {
      const res = await hostile('Deep', `<?php return ${'array('.repeat(100_000)}${')'.repeat(100_000)};`);
      expect(res.statusCode).to.equal(400);
      expect(res.json().code).to.equal('CLASS_FILE_TOO_DEEP');
    });

    it('text that is not PHP', async () => {
      const res = await hostile('Broken', '<?php return array(;');
      expect(res.statusCode).to.equal(400);
      expect(res.json().code).to.equal('CLASS_FILE_INVALID');
    });
  });
});
