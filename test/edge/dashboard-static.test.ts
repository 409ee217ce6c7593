import { expect } from 'chai';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UPSTREAMS, type Upstream } from '../../edge/routes.ts';
import { startNginx, startStub, type RunningNginx, type StubUpstream } from '../helpers/nginx.ts';

const SCRIPT = 'console.log("the dashboard");\n'.repeat(200);

/**
 * The split deployment: nginx serves the built dashboard from its folder (EDGE_ADMIN_DASHBOARD_ROOT)
 * and the page editor's page from its own (EDGE_EDITOR_ROOT).
 */
describe('edge: nginx serves the admin dashboard and the page editor from their build folders', () => {
  let nginx: RunningNginx;
  let root: string;
  let editorRoot: string;
  const stubs: StubUpstream[] = [];

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'cms-dashboard-'));
    mkdirSync(path.join(root, 'assets'));
    writeFileSync(path.join(root, 'index.html'), '<!doctype html><div id="root"></div>');
    writeFileSync(path.join(root, 'assets', 'index-AbCd1234.js'), SCRIPT);
    writeFileSync(path.join(root, 'assets', 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    editorRoot = mkdtempSync(path.join(os.tmpdir(), 'cms-editor-'));
    writeFileSync(
      path.join(editorRoot, 'index.html'),
      '<!doctype html><title>Page editor</title><div id="root"></div>',
    );
    // nginx's workers (an unprivileged user when run as root) read the files.
    for (const p of [root, path.join(root, 'assets'), editorRoot]) chmodSync(p, 0o755);
    const upstreams = {} as Record<Upstream, string>;
    for (const name of UPSTREAMS) {
      const stub = await startStub(name, (req) =>
        name === 'core-api' && req.url === '/site-root'
          ? { status: String(req.headers['x-original-uri']).startsWith('/shop') ? 204 : 403 }
          : undefined,
      );
      stubs.push(stub);
      upstreams[name] = stub.address;
    }
    nginx = await startNginx({ upstreams, adminDashboardRoot: root, editorRoot });
  });

  after(async () => {
    await nginx?.stop();
    await Promise.all(stubs.map((s) => s.close()));
    rmSync(root, { recursive: true, force: true });
    rmSync(editorRoot, { recursive: true, force: true });
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed') console.error(nginx?.errorLog());
  });

  it("answers index.html, never cached, for the dashboard's own routes only", async () => {
    for (const url of ['/', '/sign-in', '/reset-password?token=x', '/admin', '/admin/users/7']) {
      const res = await fetch(`${nginx.url}${url}`, { redirect: 'manual' });
      expect(res.status, url).to.equal(200);
      expect(res.headers.get('content-type'), url).to.match(/^text\/html/);
      expect(res.headers.get('cache-control'), url).to.equal('no-store');
      expect(res.headers.get('content-security-policy'), url).to.contain("script-src 'self'");
      expect(res.headers.get('x-upstream'), url).to.equal(null);
      expect(await res.text(), url).to.contain('<div id="root">');
    }
    const unknown = await fetch(`${nginx.url}/nowhere`);
    expect(unknown.status).to.equal(404);
  });

  it('serves /assets/ from the folder: hashed files immutable and gzipped, others revalidated, missing 404', async () => {
    const js = await fetch(`${nginx.url}/assets/index-AbCd1234.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(js.status).to.equal(200);
    expect(js.headers.get('content-type')).to.match(/^text\/javascript/);
    expect(js.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect(js.headers.get('content-encoding')).to.equal('gzip');
    expect(await js.text()).to.equal(SCRIPT);
    const icon = await fetch(`${nginx.url}/assets/favicon.svg`);
    expect(icon.headers.get('content-type')).to.equal('image/svg+xml');
    expect(icon.headers.get('cache-control')).to.equal('no-cache');
    expect((await fetch(`${nginx.url}/assets/missing-AbCd1234.js`)).status).to.equal(404);
  });

  it('still sends API paths to their services and website roots to the website preview', async () => {
    const me = await fetch(`${nginx.url}/auth/me`);
    expect(me.headers.get('x-upstream')).to.equal('core-api');
    const shop = await fetch(`${nginx.url}/shop/about`);
    expect(shop.headers.get('x-upstream')).to.equal('core-api');
    expect(((await shop.json()) as { url: string }).url).to.equal('/public/page/shop/about');
  });

  it("serves the page editor's index.html at /cms-one/editor/..., the /cms-one data routes from core-api, nothing else", async () => {
    for (const url of ['/cms-one/editor', '/cms-one/editor/pages/7', '/cms-one/editor/snippets/7?x=1']) {
      const res = await fetch(`${nginx.url}${url}`);
      expect(res.status, url).to.equal(200);
      expect(res.headers.get('content-type'), url).to.match(/^text\/html/);
      expect(res.headers.get('cache-control'), url).to.equal('no-store');
      expect(res.headers.get('x-frame-options'), url).to.equal('DENY');
      expect(res.headers.get('x-upstream'), url).to.equal(null);
      expect(await res.text(), url).to.contain('<title>Page editor</title>');
    }
    for (const url of ['/cms-one/pages/7', '/cms-one/snippets', '/cms-one/settings/autosave']) {
      const res = await fetch(`${nginx.url}${url}`);
      expect(res.headers.get('x-upstream'), url).to.equal('core-api');
    }
    // The editor's entry: exactly /cms-one and /cms-one/ go to its home; anything else there is no page.
    for (const url of ['/cms-one', '/cms-one/']) {
      const res = await fetch(`${nginx.url}${url}`, { redirect: 'manual' });
      expect(res.status, url).to.equal(302);
      expect(new URL(res.headers.get('location') ?? '', nginx.url).pathname, url).to.equal('/cms-one/editor/');
    }
    const elsewhere = await fetch(`${nginx.url}/cms-one/elsewhere`);
    expect(elsewhere.status).to.equal(404);
    expect(elsewhere.headers.get('x-upstream')).to.equal(null);
  });
});
