import { expect } from 'chai';
import { CMS_ONE_DATA_ROUTES, EDGE_TABLE } from '../../edge/routes.ts';
import { EDITOR_PREFIX, isEditorRoute } from '../../plugins/page-editor/editor-routes.ts';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';

/** The upstream the edge table sends `pathname` to (longest matching path wins). */
function upstreamOf(pathname: string): string | null {
  let best: { length: number; upstream: string | null } | undefined;
  for (const row of EDGE_TABLE) {
    for (const p of row.paths) {
      const matches = p.endsWith('*')
        ? pathname.startsWith(p.slice(0, -1))
        : p.endsWith('/')
          ? pathname.startsWith(p)
          : pathname === p || pathname.startsWith(p === '/' ? '/' : `${p}/`);
      if (matches && (!best || p.length > best.length)) best = { length: p.length, upstream: row.upstream };
    }
  }
  return best?.upstream ?? null;
}

describe("edge: the page editor's own routes", () => {
  let t: TestKernel;
  before(async function () {
    this.timeout(120_000);
    t = await startTestKernel({ service: 'all' });
  });
  after(() => t?.close());

  it('go to the editor upstream, and every mounted /cms-one route but the editor is a core-api data route', () => {
    for (const path of [
      EDITOR_PREFIX,
      `${EDITOR_PREFIX}/pages/1`,
      `${EDITOR_PREFIX}/snippets/1`,
      '/cms-one',
      '/cms-one/',
    ]) {
      expect(isEditorRoute(path), path).to.equal(true);
      expect(upstreamOf(path), path).to.equal('editor');
    }
    expect(CMS_ONE_DATA_ROUTES).not.to.include('editor');
    const cmsOne = t.kernel
      .resolve('mountedRoutes')
      .paths()
      .filter((p) => p.startsWith('/cms-one/'));
    expect(cmsOne.length).to.be.greaterThan(20);
    for (const p of cmsOne) {
      if (isEditorRoute(p.replace(/\*$/, 'x'))) continue;
      expect(CMS_ONE_DATA_ROUTES, p).to.include(p.split('/')[2]);
      expect(upstreamOf(p.replace(/:\w+/g, 'x')), p).to.equal('core-api');
    }
    // The check can fail: a data route is not the editor's, and the editor's path is not core-api's.
    expect(isEditorRoute('/cms-one/pages')).to.equal(false);
    expect(upstreamOf('/cms-one/pages/1')).to.equal('core-api');
  });
});
