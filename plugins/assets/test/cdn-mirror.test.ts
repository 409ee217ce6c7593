import { expect } from 'chai';
import { buffer } from 'node:stream/consumers';
import { startAssetsKernel, type AssetsKernel } from './assets-kernel.ts';
import { startLocalS3, type LocalS3 } from '../../../test/helpers/s3-server.ts';
import { eventually } from '../../../test/helpers/kernel.ts';

describe('assets: CDN mirror (a second S3 target on a loopback s3rver)', function () {
  this.timeout(60_000);
  let s3: LocalS3;
  let k: AssetsKernel;
  before(async () => {
    s3 = await startLocalS3();
    k = await startAssetsKernel({
      DAM_CDN_MIRROR_S3_ENDPOINT: s3.endpoint,
      DAM_CDN_MIRROR_S3_BUCKET: 'cdn',
      DAM_CDN_MIRROR_S3_ACCESS_KEY_ID: s3.accessKeyId,
      DAM_CDN_MIRROR_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      DAM_CDN_MIRROR_PUBLIC_BASE_URL: 'https://cdn.example',
      DAM_CDN_MIRROR_KEY_PREFIX: 'site/',
    });
    await k.services().mirrorTarget!.ensureBucket();
  });
  after(async () => {
    await k?.close();
    await s3?.close();
  });

  it('copies a public asset, reports it by path; a new version is not mirrored until pushed again', async () => {
    const a = (await k.upload({ name: 'logo file.txt', data: Buffer.from('mirror me') }, { folder: 'cdn' })).json();
    const before = await k.call('GET', '/public/dam/assets/mirror-status?paths=cdn/logo file.txt,cdn/none.txt', null);
    expect(before.json().results).to.deep.equal([
      { path: 'cdn/logo file.txt', mirrored: false, url: null },
      { path: 'cdn/none.txt', mirrored: false, url: null },
    ]);
    expect((await k.call('POST', `/api/v1/dam/assets/${a.id}/mirror-cdn`, k.reader)).statusCode).to.equal(403);
    const res = await k.call('POST', `/api/v1/dam/assets/${a.id}/mirror-cdn`, k.editor);
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.json()).to.include({
      key: `site/${a.uuid}/v1/logo_file.txt`,
      url: `https://cdn.example/site/${a.uuid}/v1/logo_file.txt`,
    });
    const copy = await k.services().mirrorTarget!.get(res.json().key);
    expect((await buffer(copy!.body)).toString()).to.equal('mirror me');
    const status = await k.call('GET', '/public/dam/assets/mirror-status?paths=cdn/logo file.txt', null);
    expect(status.json()).to.deep.equal({
      configured: true,
      results: [{ path: 'cdn/logo file.txt', mirrored: true, url: res.json().url }],
    });
    await k.upload({ name: 'logo file.txt', data: Buffer.from('second version') }, { folder: 'cdn', overwrite: '1' });
    expect(
      (await k.call('GET', '/public/dam/assets/mirror-status?paths=cdn/logo file.txt', null)).json().results[0]
        .mirrored,
    ).to.equal(false);
  });

  it('an asset made private is removed from the mirror target, by a metadata change or a private overwrite', async () => {
    const target = k.services().mirrorTarget!;
    for (const how of ['metadata', 'overwrite'] as const) {
      const a = (
        await k.upload({ name: `gone-${how}.txt`, data: Buffer.from('was public') }, { folder: 'cdn' })
      ).json();
      const key = (await k.call('POST', `/api/v1/dam/assets/${a.id}/mirror-cdn`, k.editor)).json().key;
      expect(await target.head(key), how).to.not.equal(null);
      if (how === 'metadata') {
        const res = await k.call('PATCH', '/api/v1/dam/assets/metadata', k.editor, {
          id: a.id,
          metadata: {},
          visibility: 'private',
        });
        expect(res.statusCode, res.body).to.equal(200);
      } else {
        await k.upload(
          { name: `gone-${how}.txt`, data: Buffer.from('now private') },
          { folder: 'cdn', overwrite: '1', visibility: 'private' },
        );
      }
      await eventually(
        async () =>
          (await target.head(key)) === null && (await k.t.db('asset_mirrors').where({ asset_id: a.id })).length === 0,
        { what: `the ${how} copy and its record removed` },
      );
      const status = await k.call('GET', `/public/dam/assets/mirror-status?paths=cdn/gone-${how}.txt`, null);
      expect(status.json().results[0]).to.include({ mirrored: false, url: null });
    }
  });

  it('refuses private assets (409) and unknown ids (404); bad path lists are 400', async () => {
    const p = (
      await k.upload({ name: 'p.txt', data: Buffer.from('p') }, { folder: 'cdn', visibility: 'private' })
    ).json();
    const res = await k.call('POST', `/api/v1/dam/assets/${p.id}/mirror-cdn`, k.editor);
    expect(res.statusCode).to.equal(409);
    expect(res.json().code).to.equal('ASSET_PRIVATE');
    expect(
      (await k.call('POST', '/api/v1/dam/assets/00000000-0000-4000-8000-000000000000/mirror-cdn', k.editor)).statusCode,
    ).to.equal(404);
    expect((await k.call('GET', '/public/dam/assets/mirror-status?paths=../x', null)).statusCode).to.equal(400);
  });

  it('without a mirror target: 409 MIRROR_NOT_CONFIGURED', async () => {
    const plain = await startAssetsKernel();
    try {
      const a = (await plain.upload({ name: 'x.txt', data: Buffer.from('x') })).json();
      const res = await plain.call('POST', `/api/v1/dam/assets/${a.id}/mirror-cdn`, plain.editor);
      expect(res.statusCode).to.equal(409);
      expect(res.json().code).to.equal('MIRROR_NOT_CONFIGURED');
      expect((await plain.call('GET', '/public/dam/assets/mirror-status?paths=x.txt', null)).json()).to.deep.equal({
        configured: false,
        results: [{ path: 'x.txt', mirrored: false, url: null }],
      });
    } finally {
      await plain.close();
    }
  });
});
