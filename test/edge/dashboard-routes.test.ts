import { expect } from 'chai';
import {
  DASHBOARD_ENTRY_PATHS,
  DASHBOARD_SCREENS_PREFIX,
  isDashboardRoute,
} from '../../plugins/admin-ui/dashboard-routes.ts';
import { EDGE_TABLE } from '../../edge/routes.ts';

/** True when the edge table sends `pathname` to a backend (not to the admin dashboard). */
function apiPath(pathname: string): boolean {
  return EDGE_TABLE.filter((row) => row.upstream !== 'admin-dashboard').some((row) =>
    row.paths.some((p) => {
      if (p.endsWith('*')) return pathname.startsWith(p.slice(0, -1));
      if (p.endsWith('/')) return pathname.startsWith(p);
      return pathname === p || pathname.startsWith(`${p}/`);
    }),
  );
}

describe("edge: the dashboard's own routes", () => {
  it('never take a path the edge table sends to a backend', () => {
    const samples = [
      ...DASHBOARD_ENTRY_PATHS.filter((p) => p !== '/'),
      DASHBOARD_SCREENS_PREFIX,
      `${DASHBOARD_SCREENS_PREFIX}/users/1`,
    ];
    for (const path of samples) {
      expect(isDashboardRoute(path), path).to.equal(true);
      expect(apiPath(path), path).to.equal(false);
    }
    // The check can fail: these are API paths.
    expect(apiPath('/auth/me')).to.equal(true);
    expect(apiPath('/users')).to.equal(true);
    expect(isDashboardRoute('/users')).to.equal(false);
  });
});
