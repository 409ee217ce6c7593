import { expect } from 'chai';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { readZip } from '../../../test/helpers/zip.ts';

/**
 * Data objects in a bundle round trip: with `?drafts=1` each object with a working copy carries it as
 * `workingCopy` beside its live values; the import creates the object from the live values and keeps
 * the copy as its working copy (the public API shows live until a publisher publishes it).
 */
describe('bundles: working copies of data objects', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: TestUser;
  let editor: TestUser;
  let site: { id: string };
  let lamp: { id: string };
  let manifest: Record<string, unknown> & { dataObjects: Array<Record<string, unknown>> };
  const className = `WcProduct${Date.now().toString(36)}`;

  before(async () => {
    t = await startTestKernel({ plugins: ['data', 'content', 'assets', 'bundles'], ownDataDir: true });
    admin = await t.admin();
    editor = await t.createUser({ permissions: ['objects:read', 'objects:write'] });
    const ok = async (res: ReturnType<TestKernel['call']>, status = 201) => {
      const answer = await res;
      expect(answer.statusCode, answer.body).to.equal(status);
      return answer.json();
    };
    site = await ok(t.call('POST', '/cms-one/websites', admin, { name: 'Objects', rootPath: '/wco', locales: ['en'] }));
    await ok(
      t.call('POST', '/data-classes', admin, {
        name: className,
        label: 'Product',
        fields: [
          { name: 'title', type: 'text' },
          { name: 'price', type: 'number' },
        ],
      }),
    );
    lamp = await ok(
      t.call('POST', '/data-objects', admin, {
        className,
        published: true,
        attributes: { title: 'Live lamp', price: 10 },
      }),
    );
    // The editor may not publish: the save goes to the working copy (price cleared there only).
    const saved = await ok(
      t.call('PATCH', `/data-objects/${lamp.id}`, editor, { attributes: { title: 'Draft lamp', price: null } }),
      200,
    );
    expect(saved.draft.updatedBy).to.equal(editor.id);
    await ok(
      t.call('POST', '/cms-one/pages', admin, {
        websiteId: site.id,
        locale: 'en',
        path: '/lamp',
        title: 'Lamp',
        published: true,
        content: { type: 'section', children: [{ type: 'product', props: { objectId: lamp.id } }] },
      }),
    );
  });
  after(() => t?.close());

  const exportManifest = async (query: string) => {
    const res = await t.inject({
      method: 'GET',
      url: `/cms-one/websites/${site.id}/export${query}`,
      headers: { cookie: admin.cookie },
    });
    expect(res.statusCode, res.body).to.equal(200);
    return JSON.parse((await readZip(res.rawPayload)).get('bundle.json')!.toString());
  };

  it('exports the live values only, unless ?drafts=1 asks for the working copy too', async () => {
    const plain = await exportManifest('');
    expect(plain.dataObjects).to.have.length(1);
    expect(plain.dataObjects[0].attributes).to.deep.equal({ title: 'Live lamp', price: 10 });
    expect(plain.dataObjects[0]).to.not.have.property('workingCopy');
    manifest = await exportManifest('?drafts=1');
    const [o] = manifest.dataObjects;
    expect(o.attributes).to.deep.equal({ title: 'Live lamp', price: 10 });
    expect(o.workingCopy).to.deep.equal({ key: null, parentId: null, attributes: { title: 'Draft lamp' } });
  });

  it('an import keeps the live version and the working copy apart; a publish makes the copy live', async () => {
    const res = await t.call('POST', '/cms-one/websites/import?rootPath=/wco2', admin, manifest);
    expect(res.statusCode, res.body).to.equal(201);
    expect(res.json().created).to.include({ dataObjects: 1, workingCopies: 1 });
    const imported = await t
      .db('data_objects as o')
      .join('data_classes as c', 'c.id', 'o.class_id')
      .where('c.name', className)
      .whereNot('o.id', lamp.id)
      .first('o.id');
    const id = imported.id as string;
    const pub = await t.call('GET', `/public/data-objects/${id}`, null);
    expect(pub.json().attributes).to.deep.equal({ title: 'Live lamp', price: 10 });
    const staff = (await t.call('GET', `/data-objects/${id}`, admin)).json();
    expect(staff.attributes).to.deep.equal({ title: 'Draft lamp' });
    expect(staff.draft).to.be.an('object');
    const diff = (await t.call('GET', `/data-objects/${id}/draft/diff`, admin)).json();
    expect(diff.changed).to.deep.equal(['title', 'price']);
    // The original keeps its own copy: the import wrote a new one.
    expect((await t.call('GET', `/data-objects/${lamp.id}`, admin)).json().draft.updatedBy).to.equal(editor.id);
    expect((await t.call('POST', `/data-objects/${id}/publish-draft`, admin)).statusCode).to.equal(200);
    expect((await t.call('GET', `/public/data-objects/${id}`, null)).json().attributes).to.deep.equal({
      title: 'Draft lamp',
    });
  });

  it('a working copy passes the rules of a save: a bad value or shape is refused and nothing is written', async () => {
    const count = async () => Number((await t.db('data_object_drafts').count('* as n').first())?.n);
    const websites = async () => Number((await t.db('content_websites').count('* as n').first())?.n);
    const [drafts, sites] = [await count(), await websites()];
    const bad = structuredClone(manifest);
    (bad.dataObjects[0].workingCopy as { attributes: Record<string, unknown> }).attributes.price = 'cheap';
    const refused = await t.call('POST', '/cms-one/websites/import?rootPath=/wco3', admin, bad);
    expect(refused.statusCode, refused.body).to.equal(400);
    expect(refused.json().field).to.include('price');
    const notObject = structuredClone(manifest);
    notObject.dataObjects[0].workingCopy = 'text';
    const shape = await t.call('POST', '/cms-one/websites/import?rootPath=/wco3&dryRun=1', admin, notObject);
    expect(shape.statusCode, shape.body).to.equal(400);
    expect(shape.json().field).to.equal('dataObjects.0.workingCopy');
    expect([await count(), await websites()]).to.deep.equal([drafts, sites]);
  });
});
