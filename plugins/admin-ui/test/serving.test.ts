import { expect } from 'chai';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { ADMIN_DIST, buildAdminUi } from '../../../test/helpers/admin-build.ts';
import { startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';

describe('admin-ui: the product serves the dashboard', () => {
  let t: TestKernel;
  let script: string;
  before(async function () {
    this.timeout(180_000);
    buildAdminUi({ ifStale: true });
    // The largest script (the entry itself may be below the size worth compressing).
    const assets = path.join(ADMIN_DIST, 'assets');
    script = readdirSync(assets)
      .filter((f) => f.endsWith('.js'))
      .sort((a, b) => statSync(path.join(assets, b)).size - statSync(path.join(assets, a)).size)[0];
    t = await startTestKernel({ service: 'all' });
  });
  after(() => t?.close());

  it('serves index.html at / and at every dashboard route, never cached, with its security headers', async () => {
    for (const url of ['/', '/sign-in', '/forgot-password', '/reset-password?token=x', '/admin', '/admin/users/42']) {
      const res = await t.inject({ method: 'GET', url });
      expect(res.statusCode, url).to.equal(200);
      expect(res.headers['content-type'], url).to.match(/^text\/html/);
      expect(res.headers['cache-control'], url).to.equal('no-store');
      expect(res.headers['content-security-policy'], url).to.contain("script-src 'self'");
      expect(res.body, url).to.contain('<div id="root">');
    }
  });

  it('serves the hashed files of /assets/ with an immutable cache, brotli or gzip as the browser accepts', async () => {
    const plain = await t.inject({ method: 'GET', url: `/assets/${script}` });
    expect(plain.statusCode).to.equal(200);
    expect(plain.headers['content-type']).to.match(/^text\/javascript/);
    expect(plain.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
    expect(plain.headers['content-encoding']).to.equal(undefined);
    const brotli = await t.inject({
      method: 'GET',
      url: `/assets/${script}`,
      headers: { 'accept-encoding': 'gzip, deflate, br, zstd' },
    });
    expect(brotli.headers['content-encoding']).to.equal('br');
    expect(brotli.headers.vary).to.contain('accept-encoding');
    expect(brotliDecompressSync(brotli.rawPayload).equals(plain.rawPayload)).to.equal(true);
    const zipped = await t.inject({
      method: 'GET',
      url: `/assets/${script}`,
      headers: { 'accept-encoding': 'gzip, deflate' },
    });
    expect(zipped.headers['content-encoding']).to.equal('gzip');
    // The build's brotli form (quality 11) is smaller than gzip's best.
    expect(brotli.rawPayload.length).to.be.lessThan(zipped.rawPayload.length);
    expect(zipped.headers.vary).to.contain('accept-encoding');
    expect(gunzipSync(zipped.rawPayload).equals(plain.rawPayload)).to.equal(true);
    expect(zipped.rawPayload.length).to.be.lessThan(plain.rawPayload.length / 2);
  });

  it("does not serve the build's compressed forms by name (they are the file's encodings)", async () => {
    expect(readdirSync(path.join(ADMIN_DIST, 'assets'))).to.include(`${script}.br`);
    for (const ext of ['br', 'gz']) {
      const res = await t.inject({ method: 'GET', url: `/assets/${script}.${ext}` });
      expect(res.statusCode, ext).to.equal(404);
    }
  });

  it('answers 404 for an unknown file or path instead of the app (no fallback outside its routes)', async () => {
    for (const url of ['/assets/missing-abcdefgh.js', '/assets/../index.html', '/nowhere', '/auth/nothing-here']) {
      const res = await t.inject({ method: 'GET', url });
      expect(res.statusCode, url).to.equal(404);
      expect(res.headers['content-type'], url).to.match(/json/);
    }
    const unknown = await t.inject({ method: 'GET', url: '/nowhere?x=1' });
    expect(unknown.json()).to.include({ code: 'ROUTE_NOT_FOUND', message: 'Route GET /nowhere not found' });
  });

  it('never shadows an API path of the edge table: those answer JSON from their service', async () => {
    const admin = await t.admin();
    for (const url of ['/auth/me', '/health', '/audit-log?limit=1', '/openapi.json']) {
      const res = await t.call('GET', url, admin);
      expect(res.statusCode, url).to.equal(200);
      expect(res.headers['content-type'], url).to.match(/json/);
    }
  });

  it("serves a website's page instead at / when its first segment is the website's root path", async () => {
    const admin = await t.admin();
    expect((await t.inject({ method: 'GET', url: '/shop-preview' })).json().code).to.equal('ROUTE_NOT_FOUND');
    const site = await t.call('POST', '/cms-one/websites', admin, { name: 'Shop', rootPath: '/shop-preview' });
    expect(site.statusCode, site.body).to.be.oneOf([200, 201]);
    const res = await t.inject({ method: 'GET', url: '/shop-preview' });
    // The public page route's own answer (the website has no page yet), with its rate-limit headers.
    expect(res.json().code).to.equal('NOT_FOUND');
    expect(res.headers['ratelimit-limit']).to.be.a('string');
  });
});
