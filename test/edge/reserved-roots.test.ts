import { expect } from 'chai';
import { EDGE_TABLE } from '../../edge/routes.ts';
import { definePlugin } from '../../kernel/index.ts';
import { DASHBOARD_ENTRY_PATHS, DASHBOARD_SCREENS_PREFIX } from '../../plugins/admin-ui/dashboard-routes.ts';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';
import { ANY_JSON_ANSWER } from '../helpers/any-answer.ts';

/**
 * A website's root path is its first path segment; the reverse proxy sends every path of its table to a
 * service, so a website there would never be reached. The content plugin must refuse each of them
 * without reading the proxy's table (product code never depends on a deployment file), and must refuse
 * the first segment of whatever route the process mounts.
 */
describe('edge: website root paths never take a path the proxy or the host routes', () => {
  let t: TestKernel;
  let cookie: string;
  before(async () => {
    const extra = definePlugin({
      id: 'zz-extra-routes',
      processes: ['core-api'],
      needs: [],
      routes(app) {
        app.get(
          '/zz-extra-root/ping',
          { config: { public: true }, schema: { response: ANY_JSON_ANSWER } },
          async () => ({ ok: true }),
        );
      },
    });
    // The smallest kernel with websites: what the proxy routes elsewhere is not mounted here.
    t = await startTestKernel({ plugins: ['content'], extraPlugins: [extra] });
    cookie = (await t.admin()).cookie;
  });
  after(() => t?.close());

  const tryRoot = (rootPath: string) =>
    t.inject({ method: 'POST', url: '/cms-one/websites', headers: { cookie }, payload: { name: 'x', rootPath } });

  it('refuses the first segment of every path of the edge table (a `*` row with any suffix)', async () => {
    const roots = new Set<string>();
    for (const row of EDGE_TABLE)
      for (const p of row.paths) {
        const first = p.split('/').filter(Boolean)[0];
        if (first) roots.add(first.endsWith('*') ? `${first.slice(0, -1)}anything` : first);
      }
    expect(roots.size).to.be.greaterThan(20);
    for (const root of roots) {
      const res = await tryRoot(`/${root}`);
      expect(res.statusCode, root).to.equal(400);
      expect(res.json().field, root).to.equal('rootPath');
    }
  });

  it("refuses the dashboard's own paths (answered by a catch-all, so never among the mounted roots), on create and change", async () => {
    const roots = [...DASHBOARD_ENTRY_PATHS, DASHBOARD_SCREENS_PREFIX].filter((p) => p !== '/');
    expect(roots).to.include('/admin');
    for (const root of roots) {
      const res = await tryRoot(root);
      expect(res.statusCode, root).to.equal(400);
      expect(res.json().field, root).to.equal('rootPath');
    }
    const site = (await tryRoot('/zz-dashboard-neighbour')).json();
    const change = await t.inject({
      method: 'PATCH',
      url: `/cms-one/websites/${site.id}`,
      headers: { cookie },
      payload: { rootPath: '/admin' },
    });
    expect(change.statusCode).to.equal(400);
    expect(change.json().field).to.equal('rootPath');
  });

  it('refuses the first segment of a route the process mounts, and accepts a free one', async () => {
    expect(t.kernel.resolve('mountedRoutes').roots()).to.include('zz-extra-root');
    expect((await tryRoot('/zz-extra-root')).statusCode).to.equal(400);
    expect((await tryRoot('/zz-free-root')).statusCode).to.equal(201);
  });
});
