import { expect } from 'chai';
import type { AssetLibrary } from '../ports.ts';
import { startAssetsKernel, type AssetsKernel } from './assets-kernel.ts';

describe('assets: the assetLibrary port and the data batch action resolve-assets', function () {
  this.timeout(60_000);
  let k: AssetsKernel;
  before(async () => {
    k = await startAssetsKernel({}, [], ['data', 'assets']);
  });
  after(async () => k.close());

  it('resolve finds assets by id, uuid or path; unknown references are absent', async () => {
    const a = (
      await k.upload({ name: 'r.txt', data: Buffer.from('r') }, { folder: 'port', visibility: 'private' })
    ).json();
    const library = k.t.kernel.resolve('assetLibrary') as AssetLibrary;
    const out = await library.resolve([a.id, a.uuid, 'port/r.txt', 'port/none.txt', 'not-a-uuid']);
    expect([...out.keys()]).to.deep.equal([a.id, a.uuid, 'port/r.txt']);
    expect(out.get(a.uuid)).to.deep.equal({
      id: a.id,
      uuid: a.uuid,
      path: 'port/r.txt',
      folder: 'port',
      filename: 'r.txt',
      mimeType: 'text/plain',
      size: 1,
      visibility: 'private',
      url: a.url,
      thumbnailUrl: null,
    });
  });

  it('POST /data-objects/batch resolve-assets resolves asset fields and arrays of assets', async () => {
    const img = (await k.upload({ name: 'hero.txt', data: Buffer.from('hero') }, { folder: 'port' })).json();
    const gone = (await k.upload({ name: 'gone.txt', data: Buffer.from('gone') }, { folder: 'port' })).json();
    const cls = await k.call('POST', '/data-classes', k.admin, {
      name: `assetful_${Date.now()}`,
      fields: [
        { name: 'title', type: 'text' },
        { name: 'hero', type: 'asset' },
        { name: 'gallery', type: 'array', of: 'asset' },
        { name: 'none', type: 'asset' },
      ],
    });
    expect(cls.statusCode, cls.body).to.equal(201);
    const obj = await k.call('POST', '/data-objects', k.admin, {
      classId: cls.json().id,
      attributes: { title: 't', hero: img.id, gallery: ['port/hero.txt', 'port/gone.txt'] },
    });
    expect(obj.statusCode, obj.body).to.equal(201);
    // A file deleted after the object named it: the reference stays, and resolves to nothing.
    expect((await k.call('DELETE', `/api/v1/dam/asset?id=${gone.id}`, k.admin)).statusCode).to.be.oneOf([200, 204]);
    // A reference to no file is refused when written (an asset field names a file its writer can read).
    const unknown = await k.call('POST', '/data-objects', k.admin, {
      classId: cls.json().id,
      attributes: { gallery: ['port/missing.png'] },
    });
    expect(unknown.statusCode).to.equal(400);
    expect(unknown.json()).to.include({ code: 'ASSET_NOT_FOUND', field: 'attributes.gallery.0' });
    const missing = '00000000-0000-4000-8000-000000000000';
    const res = await k.call('POST', '/data-objects/batch', k.editor, {
      ids: [obj.json().id, missing],
      action: 'resolve-assets',
    });
    expect(res.statusCode, res.body).to.equal(200);
    const [first, second] = res.json().results;
    expect(first.status).to.equal('resolved');
    expect(first.assets.hero).to.include({ id: img.id, url: img.url });
    expect(first.assets.gallery[0]).to.include({ id: img.id });
    expect(first.assets.gallery[1]).to.equal(null);
    expect(first.assets.none).to.equal(null);
    expect(second).to.deep.equal({ id: missing, status: 'not_found' });
  });
});
