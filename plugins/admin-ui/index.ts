import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../kernel/index.ts';
import { dashboardRoutes } from './routes.ts';
import { DashboardFiles } from './static-files.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * The built app: `plugins/admin-ui/dist` beside this file; the compiled server (`dist/plugins/...`)
 * reads the same folder of the source tree.
 */
function builtAppFolder(): string {
  const beside = path.join(here, 'dist');
  const fromBuild = path.resolve(here, '../../../plugins/admin-ui/dist');
  return existsSync(beside) || !existsSync(fromBuild) ? beside : fromBuild;
}

/**
 * The admin dashboard: a single-page app (React + Mantine, built by Vite from `app/`) that the
 * process serves at `/` and `/assets/`. Its screens come from every plugin's `admin/` folder. It
 * stores nothing and calls only the documented API.
 */
export default definePlugin({
  id: 'admin-ui',
  processes: ['core-api'],
  needs: [],
  setup: () => new DashboardFiles(builtAppFolder()),
  async onStart({ services: files, log }) {
    if (!(await files.index()))
      log.warn({ folder: files.root }, 'the admin dashboard is not built: run `npm run build:admin`');
  },
  routes: (app, { services: files }) => dashboardRoutes(app, files),
});
