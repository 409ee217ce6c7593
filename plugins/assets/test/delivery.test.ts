import { expect } from 'chai';
import { jpeg, png } from '../../../test/helpers/images.ts';
import { SERVICE_TOKEN, startAssetsKernel, type AssetsKernel } from './assets-kernel.ts';

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

  it('public files: validators, immutable at the current version, nosniff, sandbox CSP', async () => {
    const res = await k.call('GET', url, null);
    expect(res.statusCode).to.equal(200);
    expect(res.rawPayload.equals(bytes)).to.equal(true);
    expect(url).to.match(/\?v=1$/);
    expect(res.headers['cache-control']).to.equal('public, max-age=31536000, s-maxage=3600, immutable');
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
    const anonymous = await k.call('GET', priv.url, null);
    expect(anonymous.statusCode).to.equal(404);
    expect(anonymous.headers['cache-control']).to.equal('no-store');
    const withSession = await k.call('GET', priv.url, k.reader);
    expect(withSession.statusCode).to.equal(200);
    expect(withSession.body).to.equal('secret');
    expect(withSession.headers['cache-control']).to.equal('private, no-store');
    expect((await k.call('GET', priv.url, null, undefined, { cookie: 'cms_session=forged' })).statusCode).to.equal(404);
  });

  it('private files need the key that reading the library needs: a session without it gets 404, like GET /api/v1/dam/assets gets 403', async () => {
    const priv = (
      await k.upload({ name: 'payroll.txt', data: Buffer.from('payroll') }, { folder: 'dl', visibility: 'private' })
    ).json();
    const nobody = await k.t.createUser({ permissions: [] });
    expect((await k.call('GET', '/api/v1/dam/assets?folder=dl', nobody)).statusCode).to.equal(403);
    for (const method of ['GET', 'HEAD']) {
      const refused = await k.call(method, priv.url, nobody);
      expect(refused.statusCode, method).to.equal(404);
      expect(refused.headers['cache-control'], method).to.equal('no-store');
      expect(refused.body, method).to.not.include('payroll');
    }
    expect((await k.call('GET', `${priv.url.split('?')[0]}?thumb=200`, nobody)).statusCode).to.equal(404);
    const uploader = await k.t.createUser({ permissions: ['assets:upload'] });
    expect((await k.call('GET', priv.url, uploader)).body).to.equal('payroll');
    const service = await k.call('GET', priv.url, null, undefined, { authorization: `Bearer ${SERVICE_TOKEN}` });
    expect(service.statusCode).to.equal(200);
    expect(service.headers['cache-control']).to.equal('private, no-store');
  });

  it('versions: immutable only at the current version; an older one redirects to it, an unknown one is 404; no version revalidates', async () => {
    const first = await png(40, 30);
    const v1 = (await k.upload({ name: 'x.png', data: first }, { folder: 'ver' })).json();
    const path = v1.url.split('?')[0];
    const at = (query: string, headers: Record<string, string> = {}) =>
      k.call('GET', `${path}${query}`, null, undefined, headers);

    // A version that does not exist yet is never answered with another version's bytes.
    const early = await at('?v=2');
    expect(early.statusCode).to.equal(404);
    expect(early.json().code).to.equal('VERSION_NOT_FOUND');
    expect(early.headers['cache-control']).to.equal('no-store');
    for (const junk of ['?v=0', '?v=abc', '?v=01', '?v=-1']) expect((await at(junk)).statusCode, junk).to.equal(404);

    // Without a version: a short max-age, revalidated with the ETag.
    const bare = await at('');
    expect(bare.headers['cache-control']).to.equal('public, max-age=60');
    expect(bare.rawPayload.equals(first)).to.equal(true);
    const revalidated = await at('', { 'if-none-match': bare.headers.etag as string });
    expect(revalidated.statusCode).to.equal(304);
    expect(revalidated.headers['cache-control']).to.equal('public, max-age=60');

    const second = await png(60, 30);
    const v2 = (await k.upload({ name: 'x.png', data: second }, { folder: 'ver' }, k.editor, '?overwrite=1')).json();
    expect(v2.version).to.equal(2);
    const current = await at('?v=2');
    expect(current.statusCode).to.equal(200);
    expect(current.rawPayload.equals(second)).to.equal(true);
    expect(current.headers['cache-control']).to.equal('public, max-age=31536000, s-maxage=3600, immutable');

    // The old URL (embedded in pages) is redirected, never answered with the new bytes as its own.
    const old = await at('?v=1');
    expect(old.statusCode).to.equal(302);
    expect(old.headers.location).to.equal(`${path}?v=2`);
    expect(old.headers['cache-control']).to.equal('no-store');
    expect(old.rawPayload.length).to.equal(0);
    const oldThumb = await at('?thumb=200&v=1');
    expect(oldThumb.statusCode).to.equal(302);
    expect(oldThumb.headers.location).to.equal(`${path}?thumb=200&v=2`);
    expect((await k.call('HEAD', `${path}?v=1`, null)).statusCode).to.equal(302);
    expect((await at('')).rawPayload.equals(second)).to.equal(true);
  });

  it('versions: a newer version stored by another process is found, not refused from the row cache', async () => {
    const v1 = (await k.upload({ name: 'other.png', data: await png(20, 20) }, { folder: 'ver' })).json();
    const path = v1.url.split('?')[0];
    expect((await k.call('GET', `${path}?v=1`, null)).statusCode).to.equal(200); // now cached here
    // What another process's overwrite leaves: the row at version 2, this process's cache untouched.
    await k.t.db('assets').where({ id: v1.id }).update({ version: 2 });
    expect((await k.call('GET', `${path}?v=1`, null)).statusCode, 'cached row still at 1').to.equal(200);
    expect((await k.call('GET', `${path}?v=2`, null)).statusCode).to.not.equal(404);
  });

  it('a file made private leaves delivery at once, and its unversioned URL was never immutable', async () => {
    const a = (await k.upload({ name: 'later.txt', data: Buffer.from('later') }, { folder: 'ver' })).json();
    const bare = a.url.split('?')[0];
    expect((await k.call('GET', bare, null)).headers['cache-control']).to.not.include('immutable');
    const reference = await k.call('GET', `/public/assets/${a.uuid}`, null);
    expect(reference.headers['cache-control']).to.equal('public, max-age=60');
    const patched = await k.call('PATCH', '/api/v1/dam/assets/metadata', k.editor, {
      id: a.id,
      metadata: {},
      visibility: 'private',
    });
    expect(patched.statusCode, patched.body).to.equal(200);
    for (const url of [bare, a.url]) {
      const res = await k.call('GET', url, null);
      expect(res.statusCode, url).to.equal(404);
      expect(res.headers['cache-control'], url).to.equal('no-store');
    }
    const gone = await k.call('GET', `/public/assets/${a.uuid}`, null);
    expect(gone.statusCode).to.equal(404);
    expect(gone.headers['cache-control']).to.equal('no-store');
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
    // An administrator may redefine a preset: its renditions revalidate, even at the current version.
    const versioned = await k.call('GET', `${path}?preset=card&v=1`, null, undefined, { accept: 'image/webp' });
    expect(versioned.statusCode).to.equal(200);
    expect(versioned.headers['cache-control']).to.equal('public, max-age=60');
    expect((await k.call('GET', `${path}?preset=nope`, null)).statusCode).to.equal(404);
    const arbitrary = await k.call('GET', `${path}?width=50&w=50`, null);
    expect(arbitrary.rawPayload.length).to.equal(img.size);
    const listed = await k.call('GET', '/api/v1/dam/presets', k.reader);
    expect(listed.json().presets.map((p: { name: string }) => p.name)).to.include('card');
  });
});
