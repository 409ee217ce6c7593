// Builds the admin dashboard (plugins/admin-ui/app -> plugins/admin-ui/dist) with Vite.
// `--if-stale`: only when the sources changed since the last build (npm's `prepare` and the tests use
// it). Without Vite (an install without development dependencies) it says so and leaves the build
// as it is.
import { buildAdminUi, viteInstalled } from '../test/helpers/admin-build.ts';

if (!viteInstalled()) {
  console.warn('admin dashboard: vite is not installed (development dependencies omitted); not building');
} else {
  const started = Date.now();
  const built = buildAdminUi({ ifStale: process.argv.includes('--if-stale') });
  console.log(
    built
      ? `admin dashboard built in ${((Date.now() - started) / 1000).toFixed(1)} s (plugins/admin-ui/dist)`
      : 'admin dashboard: the build is current',
  );
}
