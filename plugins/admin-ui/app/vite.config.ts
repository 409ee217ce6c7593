import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { EDGE_TABLE } from '../../../edge/routes.ts';
import { mantineComponentStyles } from './mantine-styles.ts';
import { precompress } from './precompress.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The development server passes the edge table's API paths to a running product (`npm start`). */
const api = process.env.CMS_API_URL ?? 'http://localhost:3000';
const proxy = Object.fromEntries(
  EDGE_TABLE.filter((row) => row.upstream !== null && row.upstream !== 'admin-dashboard')
    .flatMap((row) => row.paths)
    .map((p) => [p.replace(/\*$/, ''), { target: api, changeOrigin: false }]),
);

const plugins = path.resolve(here, '../..');

/**
 * Other browser applications of the product (the page editor): a plugin's `app/index.html` beside
 * this one. They share this build, so they share its chunks (React, Mantine, the API client) and
 * `/assets/`; each one's page is written to `plugins/<id>/dist/index.html`, which that plugin serves.
 */
const otherApps = readdirSync(plugins).filter(
  (id) => id !== 'admin-ui' && existsSync(path.join(plugins, id, 'app', 'index.html')),
);

/**
 * Rollup names an emitted page by its path from the root, and a page outside it would leave the
 * output folder: each other app's page enters as `<id>.app.html` in this folder (its text read from
 * the plugin, script paths made relative to here) and is moved to its plugin's `dist/` once written.
 */
function otherAppPages(outDir: string): Plugin {
  const pageOf = (id: string) => path.join(here, `${id}.app.html`);
  return {
    name: 'cms-other-app-pages',
    resolveId: (source) => otherApps.map(pageOf).find((page) => source === page),
    load(id) {
      const app = otherApps.find((a) => pageOf(a) === id);
      if (!app) return null;
      const html = readFileSync(path.join(plugins, app, 'app', 'index.html'), 'utf8');
      return html.replace(/src="\.\//g, `src="../../${app}/app/`);
    },
    writeBundle() {
      for (const app of otherApps) {
        const target = path.join(plugins, app, 'dist');
        mkdirSync(target, { recursive: true });
        renameSync(path.join(outDir, `${app}.app.html`), path.join(target, 'index.html'));
      }
    },
  };
}

const outDir = path.resolve(here, '../dist');

/** The SDK's own modules (not the API client beside it, which sets up its middleware when loaded). */
const SDK_MODULE = /[\\/]admin-ui[\\/]app[\\/]src[\\/]sdk[\\/][^\\/]+\.tsx?$/;

/**
 * The dashboard's build: `plugins/admin-ui/app` -> `plugins/admin-ui/dist` (index.html and hashed
 * files in assets/, served at /assets/ by the product or nginx). Plugin screens (`plugins/*\/admin/`)
 * are found by `import.meta.glob` in src/screens.ts; each screen is its own chunk.
 */
export default defineConfig({
  root: here,
  base: '/',
  plugins: [mantineComponentStyles(), react(), otherAppPages(outDir), precompress(path.join(outDir, 'assets'))],
  // Plugin screens live outside this folder; the dev server may read them.
  server: { fs: { allow: [path.resolve(here, '../..')] }, proxy },
  build: {
    outDir,
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    sourcemap: false,
    // The entry chunk's budget is checked by the build test; Vite's own warning threshold follows it.
    chunkSizeWarningLimit: 1000,
    rollupOptions: {
      // The SDK's modules run nothing when loaded: a module whose exports nobody in a chunk uses is
      // left out of it. Without this, the plugins' screen manifests (eager, on the first screen), which
      // import `defineAdminScreens` from the SDK's index, pulled the whole SDK (lists with
      // mantine-datatable, date pickers, forms) into the first screen's JavaScript.
      treeshake: { moduleSideEffects: (id: string) => !SDK_MODULE.test(id) },
      input: Object.fromEntries([
        ['index', path.join(here, 'index.html')],
        ...otherApps.map((id) => [id, path.join(here, `${id}.app.html`)]),
      ]),
    },
  },
});
