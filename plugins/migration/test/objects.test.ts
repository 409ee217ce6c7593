import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { png } from '../../../test/helpers/images.ts';
import { auditRows, startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { PIMCORE_FIXTURES, type RunningMariaDb, startMariaDb } from '../../../test/helpers/mariadb.ts';
import { phpUnserialize } from '../services/php-unserialize.ts';

const KEY = { INTEGRATION_SECRETS_ENCRYPTION_KEY: 'c9'.repeat(32) };

interface Obj {
  id: string;
  key: string;
  path: string;
  locale: string;
  published: boolean;
  translationGroupId: string;
  attributes: Record<string, unknown>;
}

describe('migration: import-objects from a Pimcore 11 database (objects, languages, relations, assets)', function () {
  this.timeout(120_000);
  let t: TestKernel;
  let db: RunningMariaDb;
  let admin: TestUser;
  let assetsPath: string;
  let sourceId: string;

  const objects = async (className: string): Promise<Obj[]> => {
    const cls = (await t.call('GET', '/data-classes', admin))
      .json()
      .classes.find((c: { name: string }) => c.name === className);
    const res = await t.call('GET', `/data-objects?classId=${cls.id}&limit=100`, admin);
    expect(res.statusCode, res.body).to.equal(200);
    return res.json().objects;
  };

  before(async () => {
    [db, t] = await Promise.all([
      startMariaDb(),
      startTestKernel({ plugins: ['gateway', 'data', 'assets', 'content', 'migration'], env: KEY, jobs: true }),
    ]);
    await db.loadPimcoreFixture();
    // Two assets: the first has its file under assetsPath, the second's file is missing.
    await db.sql(`USE ${db.database};
      INSERT INTO assets (id, parentId, type, filename, path, creationDate, modificationDate) VALUES
        (9, 1, 'folder', 'products', '/', 1718000000, 1718000000),
        (10, 9, 'image', 'sneaker.png', '/products/', 1718000000, 1718000000),
        (11, 9, 'image', 'gone.png', '/products/', 1718000000, 1718000000);
      UPDATE object_store_PROD SET image = 10, gallery__images = ',10,11,' WHERE oo_id = 4;
      INSERT INTO object_collection_Spec_PROD (id, \`index\`, fieldname, label, value) VALUES
        (4, 1, 'specs', 'Weight', '300 g'), (4, 0, 'specs', 'Sole', 'rubber');
      INSERT INTO object_brick_store_Dimensions_PROD (id, fieldname, width, height) VALUES (4, 'extras', '30 cm', '12 cm');`);
    assetsPath = mkdtempSync(path.join(os.tmpdir(), 'cms-pimcore-assets-'));
    mkdirSync(path.join(assetsPath, 'products'));
    writeFileSync(path.join(assetsPath, 'products', 'sneaker.png'), await png(8, 8));
    admin = await t.admin();
    const res = await t.call('POST', '/migration-sources', admin, {
      name: 'shop',
      kind: 'pimcore',
      connection: { host: db.host, port: db.port, database: db.database, user: db.user, password: db.password },
      classPath: path.join(PIMCORE_FIXTURES, 'var', 'classes'),
      assetsPath,
    });
    expect(res.statusCode, res.body).to.equal(201);
    sourceId = res.json().id;
  });
  after(async () => {
    await t?.close();
    await db?.stop();
    if (assetsPath) rmSync(assetsPath, { recursive: true, force: true });
  });

  it('refuses to import objects of classes that are not imported yet, writing nothing', async () => {
    const res = await t.call('POST', `/migration-sources/${sourceId}/import-objects`, admin, {});
    expect(res.statusCode, res.body).to.equal(400);
    expect(res.json().code).to.equal('CLASS_NOT_IMPORTED');
    expect(Number((await t.db('migration_import_jobs').count({ n: '*' }).first())?.n)).to.equal(0);
  });

  it('imports inline: keys and paths kept, one object per language in a group, relations and assets mapped', async () => {
    expect((await t.call('POST', `/migration-sources/${sourceId}/import-classes`, admin)).statusCode).to.equal(200);
    const events = t.recordChanges('object');
    const res = await t.call('POST', `/migration-sources/${sourceId}/import-objects`, admin, {});
    expect(res.statusCode, res.body).to.equal(200);
    const answer = res.json();
    expect(answer.counts).to.deep.equal({ created: 3, updated: 0, skipped: 0, failed: 0 });
    expect(answer.failed).to.deep.equal([]);
    expect(answer.warnings).to.include('object 4: asset 11 is missing in assetsPath');

    const [category] = await objects('Category');
    expect(category).to.include({ key: 'shoes', path: '/shop/shoes', locale: 'en', published: true });
    expect(category.attributes).to.deep.equal({ name: 'Shoes', slug: 'shoes' });

    const products = await objects('Product');
    expect(products).to.have.length(4);
    const row = (key: string, locale: string) => products.find((p) => p.key === key && p.locale === locale)!;
    const sneakerEn = row('red-sneaker', 'en');
    const sneakerDe = row('red-sneaker', 'de');
    expect(sneakerEn.translationGroupId).to.equal(sneakerDe.translationGroupId);
    expect(sneakerEn).to.include({ path: '/shop/red-sneaker', published: true });
    expect(row('blue-boot', 'en').published).to.equal(false);
    const asset = await t.db('assets').where({ path: 'products/sneaker.png' }).first('id');
    expect(asset, 'the asset file was copied into the library').to.not.equal(undefined);
    expect(sneakerEn.attributes).to.deep.include({
      name: 'Red sneaker',
      description: '<p>A <b>red</b> sneaker</p>',
      sku: 'SNK-1',
      price: 59.9,
      active: true,
      releaseDate: '2024-06-01',
      color: 'red',
      tags: ['new', 'sale'],
      category: category.id,
      image: asset.id,
      gallery: [asset.id],
      website: { text: 'Details', path: 'https://example.com', target: '_blank' },
      location: { latitude: 52.5, longitude: 13.4 },
    });
    expect(sneakerDe.attributes).to.include({ name: 'Roter Sneaker', sku: 'SNK-1' });
    // The field collection's items, in Pimcore's order, in every language's row; none for the boot.
    const specs = [
      { type: 'Spec', label: 'Sole', value: 'rubber' },
      { type: 'Spec', label: 'Weight', value: '300 g' },
    ];
    expect(sneakerEn.attributes.specs).to.deep.equal(specs);
    expect(sneakerDe.attributes.specs).to.deep.equal(specs);
    expect(row('blue-boot', 'en').attributes).to.not.have.property('specs');
    // The object brick, by brick name.
    expect(sneakerEn.attributes.extras).to.deep.equal({ Dimensions: { width: '30 cm', height: '12 cm' } });
    expect(row('blue-boot', 'en').attributes).to.not.have.property('extras');
    expect(answer.warnings.join('\n')).to.not.include('not imported yet');
    // blue-boot relates to red-sneaker, written in the same batch: filled in by the relations pass.
    expect(row('blue-boot', 'en').attributes.related).to.deep.equal([sneakerEn.translationGroupId]);
    expect(row('blue-boot', 'de').attributes.related).to.deep.equal([sneakerEn.translationGroupId]);

    // One object.bulk event per batch with actor type import, never one per row.
    const bulk = events.filter((e) => e.kind === 'bulk');
    expect(events.filter((e) => e.kind !== 'bulk')).to.deep.equal([]);
    expect(bulk.map((e) => (e.data as { bulk: { kind: string; count: number } }).bulk)).to.deep.include({
      kind: 'import',
      count: 4,
      firstIds: (bulk[1].data as { bulk: { firstIds: string[] } }).bulk.firstIds,
    });
    for (const e of bulk) expect(e.actor).to.deep.equal({ type: 'import', id: admin.id });
    const audits = await auditRows(t, 'migration_source.import_objects');
    expect(audits).to.have.length(1);
  });

  it('a second run updates instead of duplicating (matched on the Pimcore id)', async () => {
    await db.sql(`USE ${db.database}; UPDATE object_store_PROD SET price = 64.5 WHERE oo_id = 4;`);
    const res = await t.call('POST', `/migration-sources/${sourceId}/import-objects`, admin, { classes: ['Product'] });
    expect(res.statusCode, res.body).to.equal(200);
    // The unchanged blue boot counts as skipped.
    expect(res.json().counts).to.deep.equal({ created: 0, updated: 1, skipped: 1, failed: 0 });
    const products = await objects('Product');
    expect(products).to.have.length(4);
    expect(products.filter((p) => p.key === 'red-sneaker').map((p) => p.attributes.price)).to.deep.equal([64.5, 64.5]);
  });

  it('runs in the background as a job with progress, and answers its state; cancel and resume follow the state', async () => {
    const res = await t.call('POST', `/migration-sources/${sourceId}/import-objects`, admin, {
      background: true,
      publish: false,
    });
    expect(res.statusCode, res.body).to.equal(202);
    const { jobId } = res.json();
    let job: Record<string, unknown> & { counts?: unknown } = {};
    for (let i = 0; i < 200; i++) {
      job = (await t.call('GET', `/migration-sources/import-jobs/${jobId}`, admin)).json();
      if (job.state === 'succeeded' || job.state === 'failed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(job).to.deep.include({
      id: jobId,
      sourceId,
      state: 'succeeded',
      progress: { done: 3, total: 3 },
      failed: [],
    });
    // publish: false writes drafts: published objects here are left as they are.
    expect(job.counts).to.deep.equal({ created: 0, updated: 0, skipped: 3, failed: 0 });
    expect(job.startedAt).to.be.a('string');
    expect(job.finishedAt).to.be.a('string');
    const cancel = await t.call('POST', `/migration-sources/import-jobs/${jobId}/cancel`, admin);
    expect(cancel.statusCode).to.equal(409);
    expect(cancel.json().code).to.equal('IMPORT_NOT_RUNNING');
    const resume = await t.call('POST', `/migration-sources/import-jobs/${jobId}/resume`, admin);
    expect(resume.statusCode).to.equal(409);
    const unknown = await t.call('GET', '/migration-sources/import-jobs/6f1c1a50-0000-4000-8000-000000000000', admin);
    expect(unknown.statusCode).to.equal(404);
  });

  it('needs data_objects:write besides migration:manage', async () => {
    const user = await t.createUser({ permissions: ['migration:manage'] });
    const res = await t.call('POST', `/migration-sources/${sourceId}/import-objects`, user, {});
    expect(res.statusCode, res.body).to.equal(403);
  });

  it('refuses a bad body with a 400 naming the field', async () => {
    const res = await t.call('POST', `/migration-sources/${sourceId}/import-objects`, admin, { background: 'yes' });
    expect(res.statusCode, res.body).to.equal(400);
    expect(res.json().field).to.equal('background');
  });

  it('reads PHP-serialized values without running them, and refuses malformed or deep ones', () => {
    expect(phpUnserialize('a:2:{i:0;s:3:"äb";i:1;d:1.5;}')).to.deep.equal(['äb', 1.5]);
    expect(phpUnserialize('O:8:"stdClass":1:{s:4:"\0*\0x";b:1;}')).to.deep.equal({ __class: 'stdClass', x: true });
    expect(() => phpUnserialize('s:10:"short";')).to.throw();
    expect(() => phpUnserialize(`${'a:1:{i:0;'.repeat(100)}N;${'}'.repeat(100)}`)).to.throw(/nesting/);
  });
});
