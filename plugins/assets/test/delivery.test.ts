import { expect } from 'chai';
import { jpeg } from '../../../test/helpers/images.ts';
import { startAssetsKernel, type AssetsKernel } from './assets-kernel.ts';

describe('assets: delivery /dam-asset/*', function () {
  this.timeout(60_000);
  let k: AssetsKernel;
  const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
  let url: string;
  before(async () => {
    k = await startAssetsKernel();
    url = (await k.upload({ name: 'data.bin', data: bytes }, { folder: 'dl' })).json().url;
  });
  after(async () => k.close());

  it('public files: validators, one-year immutable cache, nosniff, sandbox CSP', async () => {
    const res = await k.call('GET', url, null);
    expect(res.statusCode).to.equal(200);
    expect(res.rawPayload.equals(bytes)).to.equal(true);
    expect(res.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
    expect(res.headers['x-content-type-options']).to.equal('nosniff');
    expect(res.headers['content-security-policy']).to.include('sandbox');
    expect(res.headers['accept-ranges']).to.equal('bytes');
    expect(res.headers['content-length']).to.equal('1000');
    expect(res.headers.etag).to.match(/^"[0-9a-f]{24}"$/);
    expect(res.headers['last-modified']).to.be.a('string');
    expect(res.headers['content-disposition']).to.match(/^attachment; filename="data.bin"/);
    const again = await k.call('GET', url, null, undefined, { 'if-none-match': res.headers.etag as string });
    expect(again.statusCode).to.equal(304);
    expect(again.rawPayload.length).to.equal(0);
    const since = await k.call('GET', url, null, undefined, {
      'if-modified-since': res.headers['last-modified'] as string,
    });
    expect(since.statusCode).to.equal(304);
  });

  it('ranges: 206 with Content-Range, suffix and open ranges, 416 outside the file', async () => {
    const part = await k.call('GET', url, null, undefined, { range: 'bytes=10-19' });
    expect(part.statusCode).to.equal(206);
    expect(part.headers['content-range']).to.equal('bytes 10-19/1000');
    expect(part.rawPayload.equals(bytes.subarray(10, 20))).to.equal(true);
    const tail = await k.call('GET', url, null, undefined, { range: 'bytes=-5' });
    expect(tail.rawPayload.equals(bytes.subarray(995))).to.equal(true);
    const open = await k.call('GET', url, null, undefined, { range: 'bytes=990-' });
    expect(open.headers['content-range']).to.equal('bytes 990-999/1000');
    const bad = await k.call('GET', url, null, undefined, { range: 'bytes=5000-6000' });
    expect(bad.statusCode).to.equal(416);
    expect(bad.headers['content-range']).to.equal('bytes */1000');
    const stale = await k.call('GET', url, null, undefined, { range: 'bytes=0-1', 'if-range': '"other"' });
    expect(stale.statusCode).to.equal(200);
  });

  it('HEAD answers the headers without a body', async () => {
    const res = await k.call('HEAD', url, null);
    expect(res.statusCode).to.equal(200);
    expect(res.headers['content-length']).to.equal('1000');
    expect(res.rawPayload.length).to.equal(0);
  });

  it('private files: 404 without a session, served with one, never cached publicly', async () => {
    const priv = (
      await k.upload({ name: 'secret.txt', data: Buffer.from('secret') }, { folder: 'dl', visibility: 'private' })
    ).json();
    expect((await k.call('GET', priv.url, null)).statusCode).to.equal(404);
    const withSession = await k.call('GET', priv.url, k.reader);
    expect(withSession.statusCode).to.equal(200);
    expect(withSession.body).to.equal('secret');
    expect(withSession.headers['cache-control']).to.equal('private, no-store');
    expect((await k.call('GET', priv.url, null, undefined, { cookie: 'cms_session=forged' })).statusCode).to.equal(404);
  });

  it('DAM_ENFORCE_ASSET_VISIBILITY=0 serves private files without a session', async () => {
    const open = await startAssetsKernel({ DAM_ENFORCE_ASSET_VISIBILITY: '0' });
    try {
      const priv = (await open.upload({ name: 's.txt', data: Buffer.from('s') }, { visibility: 'private' })).json();
      expect((await open.call('GET', priv.url, null)).statusCode).to.equal(200);
    } finally {
      await open.close();
    }
  });

  it('SVG and HTML are delivered as attachments in a sandbox, whatever their name', async () => {
    const svg = (
      await k.upload(
        {
          name: 'logo.png',
          data: Buffer.from(
            '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
          ),
          type: 'image/png',
        },
        { folder: 'dl' },
      )
    ).json();
    expect(svg.mimeType).to.equal('image/svg+xml');
    const res = await k.call('GET', svg.url, null);
    expect(res.headers['content-type']).to.match(/^image\/svg\+xml/);
    expect(res.headers['content-disposition']).to.match(/^attachment/);
    expect(res.headers['content-security-policy']).to.include('sandbox');
    const html = (
      await k.upload(
        {
          name: 'pic.jpg',
          data: Buffer.from('<!DOCTYPE html><html><script>alert(1)</script></html>'),
          type: 'image/jpeg',
        },
        { folder: 'dl' },
      )
    ).json();
    expect(html.mimeType).to.equal('text/html');
    expect((await k.call('GET', html.url, null)).headers['content-disposition']).to.match(/^attachment/);
  });

  it('unknown paths and hostile paths answer 404', async () => {
    expect((await k.call('GET', '/dam-asset/dl/none.bin', null)).statusCode).to.equal(404);
    expect((await k.call('GET', '/dam-asset/dl/%2e%2e/%2e%2e/etc/passwd', null)).statusCode).to.equal(404);
    expect((await k.call('GET', '/dam-asset/', null)).statusCode).to.equal(404);
  });

  it('named presets: rendered once, stored and reused; auto format follows Accept with Vary; arbitrary sizes are not rendered', async () => {
    const img = (await k.upload({ name: 'big.jpg', data: await jpeg(1600, 1200) }, { folder: 'dl' })).json();
    expect((await k.call('POST', '/api/v1/dam/presets', k.reader, { name: 'card', width: 400 })).statusCode).to.equal(
      403,
    );
    const saved = await k.call('POST', '/api/v1/dam/presets', k.editor, {
      name: 'card',
      width: 400,
      format: 'auto',
      quality: 70,
    });
    expect(saved.statusCode, saved.body).to.equal(200);
    const path = img.url.split('?')[0];
    const webp = await k.call('GET', `${path}?preset=card`, null, undefined, { accept: 'image/webp,*/*' });
    expect(webp.statusCode, webp.body).to.equal(200);
    expect(webp.headers['content-type']).to.equal('image/webp');
    expect(webp.headers.vary).to.equal('Accept');
    const avif = await k.call('GET', `${path}?preset=card`, null, undefined, { accept: 'image/avif,image/webp' });
    expect(avif.headers['content-type']).to.equal('image/avif');
    const plain = await k.call('GET', `${path}?preset=card`, null, undefined, { accept: '*/*' });
    expect(plain.headers['content-type']).to.equal('image/jpeg');
    const derived = await k.services().storage.list(`d/${img.id}/`);
    expect(derived).to.have.length(3);
    await k.call('GET', `${path}?preset=card`, null, undefined, { accept: 'image/webp' });
    expect(await k.services().storage.list(`d/${img.id}/`)).to.deep.equal(derived);
    const again = await k.call('GET', `${path}?preset=card`, null, undefined, {
      accept: 'image/webp',
      'if-none-match': webp.headers.etag as string,
    });
    expect(again.statusCode).to.equal(304);
    expect((await k.call('GET', `${path}?preset=nope`, null)).statusCode).to.equal(404);
    const arbitrary = await k.call('GET', `${path}?width=50&w=50`, null);
    expect(arbitrary.rawPayload.length).to.equal(img.size);
    const listed = await k.call('GET', '/api/v1/dam/presets', k.reader);
    expect(listed.json().presets.map((p: { name: string }) => p.name)).to.include('card');
  });
});
