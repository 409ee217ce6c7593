import { expect } from 'chai';
import { eventually } from '../../../test/helpers/kernel.ts';
import { jpeg, png } from '../../../test/helpers/images.ts';
import { startAssetsKernel, type AssetsKernel } from './assets-kernel.ts';

describe('assets: library', function () {
  this.timeout(60_000);
  let k: AssetsKernel;
  before(async () => {
    k = await startAssetsKernel({
      ASSET_MAX_FILE_BYTES: String(2 * 1024 * 1024),
      ASSET_MAX_INPUT_PIXELS: String(4_000_000),
    });
  });
  after(async () => k.close());
  beforeEach(() => k.events.splice(0));

  it('stores an upload with its type from the content, thumbnails and a created event without contents', async () => {
    const data = await jpeg(1200, 800);
    const res = await k.upload(
      { name: 'photo.txt', data, type: 'text/plain' },
      { folder: 'lib/photos', visibility: 'public', metadata: '{"alt":"red"}' },
    );
    expect(res.statusCode, res.body).to.equal(201);
    const a = res.json();
    expect(a).to.include({
      path: 'lib/photos/photo.txt',
      folder: 'lib/photos',
      filename: 'photo.txt',
      mimeType: 'image/jpeg',
      size: data.length,
      visibility: 'public',
      width: 1200,
      height: 800,
      version: 1,
    });
    expect(a.metadata).to.deep.equal({ alt: 'red' });
    expect(a.thumbnails.map((t: { width: number }) => t.width)).to.deep.equal([200, 800]);
    expect(a.url).to.equal('/dam-asset/lib/photos/photo.txt?v=1');
    expect(k.events.map((e) => e.kind)).to.deep.equal(['created']);
    expect(k.events[0]).to.include({ recordType: 'asset', recordId: a.id });
    expect(JSON.stringify(k.events[0])).not.to.include(data.subarray(0, 64).toString('base64'));
    const got = await k.call('GET', a.url, null);
    expect(got.statusCode).to.equal(200);
    expect(got.rawPayload.equals(data)).to.equal(true);
    const thumb = await k.call('GET', a.thumbnails[0].url, null);
    expect(thumb.headers['content-type']).to.equal('image/webp');
    expect((await k.call('GET', `/api/v1/dam/assets/${a.id}`, k.reader)).json().path).to.equal('lib/photos/photo.txt');
  });

  for (const [name, fields] of [
    ['a ".." segment', { folder: 'lib/../etc' }],
    ['an absolute network path', { folder: '//server/share' }],
    ['a drive letter', { folder: 'C:/windows' }],
    ['a control character', { folder: 'lib/a\u0007b' }],
    ['an empty segment', { folder: 'lib//x' }],
  ] as const) {
    it(`refuses ${name} in the folder and stores nothing`, async () => {
      const before = (await k.storedKeys()).length;
      const res = await k.upload({ name: 'x.bin', data: Buffer.from('hello') }, fields);
      expect(res.statusCode, res.body).to.equal(400);
      expect(res.json()).to.include({ code: 'INVALID_PATH', field: 'folder' });
      expect((await k.storedKeys()).length).to.equal(before);
    });
  }

  it('refuses a file name with ".." or a NUL', async () => {
    expect((await k.upload({ name: '..', data: Buffer.from('x') })).statusCode).to.equal(400);
    expect((await k.upload({ name: 'a\u0000b', data: Buffer.from('x') })).statusCode).to.equal(400);
  });

  it('answers 413 for a file over ASSET_MAX_FILE_BYTES and leaves nothing stored', async () => {
    const before = await k.storedKeys();
    const res = await k.upload({ name: 'big.bin', data: Buffer.alloc(2 * 1024 * 1024 + 10, 1) }, { folder: 'lib/big' });
    expect(res.statusCode, res.body).to.equal(413);
    expect(res.json().code).to.equal('ASSET_TOO_LARGE');
    expect(await k.storedKeys()).to.deep.equal(before);
    expect((await k.call('GET', '/api/v1/dam/exists?path=lib/big/big.bin', k.reader)).json().exists).to.equal(false);
    expect(k.events).to.have.length(0);
  });

  it('answers 413 for an image over ASSET_MAX_INPUT_PIXELS before decoding, leaving nothing stored', async () => {
    const before = await k.storedKeys();
    const res = await k.upload({ name: 'huge.png', data: await png(2500, 2000) }, { folder: 'lib/big' });
    expect(res.statusCode, res.body).to.equal(413);
    expect(res.json().code).to.equal('IMAGE_TOO_LARGE');
    expect(await k.storedKeys()).to.deep.equal(before);
  });

  it('refuses a second file at the same path (409) and replaces it with overwrite (new version, old files removed)', async () => {
    const first = (await k.upload({ name: 'same.png', data: await png(40, 40) }, { folder: 'lib/same' })).json();
    const again = await k.upload({ name: 'same.png', data: await png(50, 50) }, { folder: 'lib/same' });
    expect(again.statusCode).to.equal(409);
    expect(again.json()).to.include({ code: 'ASSET_EXISTS', field: 'path' });
    const replaced = await k.upload(
      { name: 'same.png', data: await png(60, 60) },
      { folder: 'lib/same', overwrite: '1' },
    );
    expect(replaced.statusCode, replaced.body).to.equal(200);
    expect(replaced.json()).to.include({ id: first.id, uuid: first.uuid, version: 2, width: 60 });
    expect(k.events.map((e) => e.kind)).to.deep.equal(['created', 'updated']);
    // The old version's files go after the commit, in the background.
    await eventually(async () => {
      const keys = (await k.storedKeys()).filter((key) => key.includes(first.id));
      expect(keys.some((key) => key.includes('/v1'))).to.equal(false);
      expect(keys).to.include(`a/${first.id}/v2`);
    });
  });

  it('changes metadata, moves, deletes with thumbnails, each announced', async () => {
    const a = (await k.upload({ name: 'm.jpg', data: await jpeg(300, 200) }, { folder: 'lib/m' })).json();
    const meta = await k.call('PATCH', '/api/v1/dam/assets/metadata', k.editor, {
      id: a.id,
      metadata: { title: 'T' },
      merge: true,
    });
    expect(meta.statusCode, meta.body).to.equal(200);
    expect(meta.json().metadata).to.deep.equal({ title: 'T' });
    const same = await k.call('PATCH', '/api/v1/dam/assets/metadata', k.editor, { id: a.id, metadata: { title: 'T' } });
    expect(same.statusCode).to.equal(200);
    const moved = await k.call('POST', '/api/v1/dam/assets/move', k.editor, { id: a.id, to: 'lib/other/renamed.jpg' });
    expect(moved.statusCode, moved.body).to.equal(200);
    expect(moved.json()).to.include({ path: 'lib/other/renamed.jpg', folder: 'lib/other', id: a.id });
    expect((await k.call('GET', '/dam-asset/lib/m/m.jpg', null)).statusCode).to.equal(404);
    expect((await k.call('GET', '/dam-asset/lib/other/renamed.jpg', null)).statusCode).to.equal(200);
    expect(
      (await k.call('POST', '/api/v1/dam/assets/move', k.editor, { id: a.id, to: '../x.jpg' })).statusCode,
    ).to.equal(400);
    const del = await k.call('DELETE', '/api/v1/dam/asset?path=lib/other/renamed.jpg', k.editor);
    expect(del.statusCode, del.body).to.equal(200);
    expect(k.events.map((e) => e.kind)).to.deep.equal(['created', 'updated', 'moved', 'deleted']);
    expect(k.events[2].data).to.include({ from: 'lib/m/m.jpg' });
    expect((await k.storedKeys()).filter((key) => key.includes(a.id))).to.deep.equal([]);
    expect((await k.call('GET', `/api/v1/dam/assets/${a.id}`, k.reader)).statusCode).to.equal(404);
  });

  it('folders: create, list one level, list assets (GET and POST), delete with everything under it in one bulk event', async () => {
    expect((await k.call('POST', '/api/v1/dam/folders', k.editor, { path: 'tree/a/b' })).statusCode).to.equal(201);
    await k.upload({ name: '1.txt', data: Buffer.from('one') }, { folder: 'tree/a' });
    await k.upload({ name: '2.txt', data: Buffer.from('two') }, { folder: 'tree/a/b' });
    const folders = await k.call('GET', '/api/v1/dam/folders?parent=tree', k.reader);
    expect(folders.json().folders.map((f: { path: string }) => f.path)).to.deep.equal(['tree/a']);
    const listed = await k.call('GET', '/api/v1/dam/assets?folder=tree/a', k.reader);
    expect(listed.json().assets.map((x: { filename: string }) => x.filename)).to.deep.equal(['1.txt']);
    expect(listed.json().assets[0].mimeType).to.equal('text/plain');
    const posted = await k.call('POST', '/api/v1/dam/assets', k.reader, { folder: 'tree', recursive: true });
    expect(posted.json().total).to.equal(2);
    k.events.splice(0);
    const del = await k.call('DELETE', '/api/v1/dam/folders?path=tree/a', k.editor);
    expect(del.statusCode, del.body).to.equal(200);
    expect(del.json().deletedAssets).to.equal(2);
    expect(k.events).to.have.length(1);
    expect(k.events[0].kind).to.equal('bulk');
    expect((k.events[0].data as { bulk: { count: number } }).bulk.count).to.equal(2);
    expect((await k.call('GET', '/api/v1/dam/folders?parent=tree', k.reader)).json().folders).to.deep.equal([]);
    expect((await k.call('DELETE', '/api/v1/dam/folders?path=tree/a', k.editor)).statusCode).to.equal(404);
  });

  it('asset-urls and exists, single and batch', async () => {
    const a = (
      await k.upload({ name: 'u.txt', data: Buffer.from('u') }, { folder: 'lib/u', visibility: 'private' })
    ).json();
    const one = await k.call('GET', '/api/v1/dam/asset-urls?path=lib/u/u.txt', k.reader);
    expect(one.json()).to.include({ path: 'lib/u/u.txt', exists: true, url: a.url, visibility: 'private' });
    const batch = await k.call('POST', '/api/v1/dam/exists', k.reader, { paths: ['lib/u/u.txt', 'lib/u/none.txt'] });
    expect(batch.json().results).to.deep.equal([
      { path: 'lib/u/u.txt', exists: true },
      { path: 'lib/u/none.txt', exists: false },
    ]);
    const urls = await k.call('POST', '/api/v1/dam/asset-urls', k.reader, { paths: ['lib/u/none.txt'] });
    expect(urls.json().results[0]).to.include({ exists: false, url: null });
  });

  it('permissions: readers read, only assets:upload stores, anonymous gets 401', async () => {
    expect((await k.upload({ name: 'r.txt', data: Buffer.from('r') }, {}, k.reader)).statusCode).to.equal(403);
    expect((await k.upload({ name: 'r.txt', data: Buffer.from('r') }, {}, null)).statusCode).to.equal(401);
    const uploader = await k.t.createUser({ permissions: ['assets:upload'] });
    expect(
      (await k.upload({ name: 'r.txt', data: Buffer.from('r') }, { folder: 'perm' }, uploader)).statusCode,
    ).to.equal(201);
    expect((await k.call('DELETE', '/api/v1/dam/asset?path=perm/r.txt', uploader)).statusCode).to.equal(403);
    expect((await k.call('GET', '/api/v1/dam/assets?folder=perm', uploader)).statusCode).to.equal(200);
    expect((await k.call('GET', '/api/v1/dam/info', null)).statusCode).to.equal(401);
    const info = await k.call('GET', '/api/v1/dam/info', k.reader);
    // Issue 30, item 13: the driver only, never the server's folder.
    expect(info.json().storage).to.deep.equal({ driver: 'filesystem' });
    expect(info.body).not.to.contain(k.t.dataDir);
  });

  it('stores a file that only looks like an image without dimensions or thumbnails, not as an image, delivered as an attachment', async () => {
    const res = await k.upload(
      { name: 'broken.jpg', data: Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(500, 7)]) },
      { folder: 'lib/broken' },
    );
    expect(res.statusCode, res.body).to.equal(201);
    expect(res.json()).to.include({
      mimeType: 'application/octet-stream',
      width: null,
      height: null,
      thumbnailUrl: null,
    });
    const markup = await k.upload(
      { name: 'page.gif', data: Buffer.from('GIF89a<html><script>alert(1)</script></html>') },
      { folder: 'lib/broken', visibility: 'public' },
    );
    expect(markup.json().mimeType).to.equal('application/octet-stream');
    const got = await k.call('GET', markup.json().url, null);
    expect(got.headers['content-type']).to.equal('application/octet-stream');
    expect(got.headers['content-disposition']).to.match(/^attachment/);
    expect(got.headers['x-content-type-options']).to.equal('nosniff');
  });

  it('announces in the write transaction: a failing subscriber fails the upload and leaves no row and no file', async () => {
    const before = await k.storedKeys();
    const off = k.t.kernel.resolve('recordHooks').subscribe('asset', () => {
      throw new Error('subscriber refuses');
    });
    try {
      const res = await k.upload({ name: 'tx.jpg', data: await jpeg(300, 200) }, { path: 'lib/tx/tx.jpg' });
      expect(res.statusCode).to.equal(500);
    } finally {
      off();
    }
    // The stored file goes once the rollback is seen, in the background.
    await eventually(async () => expect(await k.storedKeys()).to.deep.equal(before));
    expect((await k.call('GET', '/api/v1/dam/exists?path=lib/tx/tx.jpg', k.reader)).json().exists).to.equal(false);
    const ok = await k.upload({ name: 'ignored.jpg', data: await jpeg(300, 200) }, { path: 'lib/tx/tx.jpg' });
    expect(ok.json()).to.include({ path: 'lib/tx/tx.jpg', filename: 'tx.jpg' });
  });

  it('upload needs multipart', async () => {
    const res = await k.call('POST', '/api/v1/dam/upload', k.editor, { file: 'x' });
    expect(res.statusCode).to.equal(400);
    expect(res.json().code).to.equal('MULTIPART_REQUIRED');
  });

  it('resolves a public asset by its stable uuid; private ones are not revealed', async () => {
    const pub = (await k.upload({ name: 'p.txt', data: Buffer.from('p') }, { folder: 'lib/pub' })).json();
    const priv = (
      await k.upload({ name: 'q.txt', data: Buffer.from('q') }, { folder: 'lib/pub', visibility: 'private' })
    ).json();
    const res = await k.call('GET', `/public/assets/${pub.uuid}`, null);
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.include({ uuid: pub.uuid, url: pub.url });
    expect((await k.call('GET', `/public/assets/${priv.uuid}`, null)).statusCode).to.equal(404);
    expect((await k.call('GET', `/public/assets/${pub.id}`, null)).statusCode).to.equal(404);
    expect((await k.call('GET', '/public/assets/not-a-uuid', null)).statusCode).to.equal(404);
  });
});
