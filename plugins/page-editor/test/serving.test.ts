import { expect } from 'chai';
import { buildAdminUi } from '../../../test/helpers/admin-build.ts';
import { startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';
import { EDITOR_PREFIX } from '../editor-routes.ts';

describe('page-editor: the product serves the editor at /cms-one/editor/...', () => {
  let t: TestKernel;
  before(async function () {
    this.timeout(180_000);
    buildAdminUi({ ifStale: true });
    t = await startTestKernel({ service: 'all' });
  });
  after(() => t?.close());

  it("serves the editor's index.html at its routes, never cached, with its security headers", async () => {
    const pageId = '0b7e3c2a-5d1f-4c6e-9a8b-1f2e3d4c5b6a';
    for (const url of [EDITOR_PREFIX, `${EDITOR_PREFIX}/pages/${pageId}`, `${EDITOR_PREFIX}/snippets/${pageId}?v=1`]) {
      const res = await t.inject({ method: 'GET', url });
      expect(res.statusCode, url).to.equal(200);
      expect(res.headers['content-type'], url).to.match(/^text\/html/);
      expect(res.headers['cache-control'], url).to.equal('no-store');
      expect(res.headers['content-security-policy'], url).to.contain("script-src 'self'");
      expect(res.headers['x-frame-options'], url).to.equal('DENY');
      expect(res.body, url).to.contain('<div id="root">');
      expect(res.body, url).to.match(/<script type="module" crossorigin src="\/assets\/page-editor-[\w-]+\.js">/);
    }
    // Its script is one of the shared build's hashed files under /assets/.
    const script = /src="(\/assets\/page-editor-[\w-]+\.js)"/.exec(
      (await t.inject({ method: 'GET', url: EDITOR_PREFIX })).body,
    )![1];
    const file = await t.inject({ method: 'GET', url: script });
    expect(file.statusCode).to.equal(200);
    expect(file.headers['cache-control']).to.contain('immutable');
  });

  it('never shadows an API path: /cms-one data routes answer from core-api, other paths stay 404; /cms-one itself leads to the entry', async () => {
    const reader = await t.createUser({ permissions: ['objects:read'] });
    for (const url of ['/cms-one/pages', '/cms-one/snippets', '/cms-one/settings/autosave']) {
      const res = await t.call('GET', url, reader);
      expect(res.statusCode, url).to.equal(200);
      expect(res.headers['content-type'], url).to.match(/json/);
    }
    expect((await t.call('GET', '/cms-one/pages', null)).statusCode).to.equal(401);
    for (const url of ['/cms-one/editorial', '/cms-one/nowhere', '/cms-one//', '/cms-one/?x']) {
      const res = await t.inject({ method: 'GET', url });
      expect(res.statusCode, url).to.equal(url === '/cms-one/?x' ? 302 : 404);
    }
    for (const url of ['/cms-one', '/cms-one/']) {
      const res = await t.inject({ method: 'GET', url });
      expect(res.statusCode, url).to.equal(302);
      expect(res.headers.location, url).to.equal('/cms-one/editor/');
    }
  });
});
