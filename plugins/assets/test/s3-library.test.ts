import { expect } from 'chai';
import { jpeg } from '../../../test/helpers/images.ts';
import { startAssetsKernel, type AssetsKernel } from './assets-kernel.ts';
import { freePort } from '../../../test/helpers/ports.ts';
import { startLocalS3, type LocalS3 } from '../../../test/helpers/s3-server.ts';

describe('assets: the library on an S3 store (s3rver on loopback)', function () {
  this.timeout(60_000);
  let s3: LocalS3;
  let k: AssetsKernel;
  before(async () => {
    s3 = await startLocalS3();
    k = await startAssetsKernel({
      ...s3.env('library'),
      S3_PART_SIZE_MB: '5',
      ASSET_MAX_FILE_BYTES: String(8 * 1024 * 1024),
    });
  });
  after(async () => {
    await k?.close();
    await s3?.close();
  });

  it('info names the S3 store without its secret; ensure-bucket needs assets:storage', async () => {
    const info = (await k.call('GET', '/api/v1/dam/info', k.reader)).json();
    expect(info.storage).to.include({ driver: 's3', bucket: 'library', forcePathStyle: true });
    expect(JSON.stringify(info)).not.to.include(s3.secretAccessKey);
    expect((await k.call('POST', '/api/v1/dam/ensure-bucket', k.editor)).statusCode).to.equal(403);
    const ensured = await k.call('POST', '/api/v1/dam/ensure-bucket', k.admin);
    expect(ensured.json()).to.include({ created: false, policy: 'private' });
  });

  it('uploads (multipart above one part), delivers whole and by range, makes presets, deletes everything', async () => {
    const big = Buffer.alloc(6 * 1024 * 1024 + 7, 3);
    big.write('PK\u0003\u0004', 0, 'latin1');
    const file = (await k.upload({ name: 'archive.zip', data: big }, { folder: 's3' })).json();
    expect(file.mimeType).to.equal('application/zip');
    const whole = await k.call('GET', file.url, null);
    expect(whole.rawPayload.equals(big)).to.equal(true);
    const part = await k.call('GET', file.url, null, undefined, { range: 'bytes=6291456-6291463' });
    expect(part.statusCode).to.equal(206);
    expect(part.rawPayload.equals(big.subarray(6291456, 6291464))).to.equal(true);

    const img = (await k.upload({ name: 'i.jpg', data: await jpeg(900, 600) }, { folder: 's3' })).json();
    await k.call('POST', '/api/v1/dam/presets', k.admin, { name: 'thumb', width: 100, format: 'webp' });
    const preset = await k.call('GET', `${img.url.split('?')[0]}?preset=thumb`, null);
    expect(preset.statusCode, preset.body).to.equal(200);
    expect(preset.headers['content-type']).to.equal('image/webp');
    const rotated = await k.call('POST', '/api/v1/dam/transform', k.editor, {
      id: img.id,
      rotate: 180,
      saveAs: 'version',
    });
    expect(rotated.statusCode, rotated.body).to.equal(200);

    expect((await k.call('DELETE', `/api/v1/dam/asset?id=${file.id}`, k.editor)).statusCode).to.equal(200);
    expect((await k.call('DELETE', `/api/v1/dam/asset?id=${img.id}`, k.editor)).statusCode).to.equal(200);
    expect(await k.storedKeys()).to.deep.equal([]);
  });

  it('an unreachable store: the process still starts, and uploads answer 503 with Retry-After, storing no row', async () => {
    const port = await freePort();
    const down = await startAssetsKernel({
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_BUCKET: 'down',
      S3_ACCESS_KEY_ID: 'x',
      S3_SECRET_ACCESS_KEY: 'y',
    });
    try {
      const res = await down.upload({ name: 'x.txt', data: Buffer.from('x') }, { folder: 'down' });
      expect(res.statusCode, res.body).to.equal(503);
      expect(res.json().code).to.equal('STORAGE_UNAVAILABLE');
      expect(res.headers['retry-after']).to.equal('5');
      expect(await down.t.db('assets').where({ folder: 'down' }).first()).to.equal(undefined);
    } finally {
      await down.close();
    }
  });

  it('413 over the size limit leaves nothing in the bucket', async () => {
    const res = await k.upload({ name: 'big.bin', data: Buffer.alloc(8 * 1024 * 1024 + 1, 1) }, { folder: 's3' });
    expect(res.statusCode).to.equal(413);
    expect(await k.storedKeys()).to.deep.equal([]);
  });
});
