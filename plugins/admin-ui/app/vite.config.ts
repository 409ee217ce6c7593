import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { EDGE_TABLE } from '../../../edge/routes.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The development server passes the edge table's API paths to a running product (`npm start`). */
const api = process.env.CMS_API_URL ?? 'http://localhost:3000';
const proxy = Object.fromEntries(
  EDGE_TABLE.filter((row) => row.upstream !== null && row.upstream !== 'admin-dashboard')
    .flatMap((row) => row.paths)
    .map((p) => [p.replace(/\*$/, ''), { target: api, changeOrigin: false }]),
);

/**
 * The dashboard's build: `plugins/admin-ui/app` -> `plugins/admin-ui/dist` (index.html and hashed
 * files in assets/, served at /assets/ by the product or nginx). Plugin screens (`plugins/*\/admin/`)
 * are found by `import.meta.glob` in src/screens.ts; each screen is its own chunk.
 */
export default defineConfig({
  root: here,
  base: '/',
  plugins: [react()],
  // Plugin screens live outside this folder; the dev server may read them.
  server: { fs: { allow: [path.resolve(here, '../..')] }, proxy },
  build: {
    outDir: path.resolve(here, '../dist'),
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    sourcemap: false,
    // The entry chunk's budget is checked by the build test; Vite's own warning threshold follows it.
    chunkSizeWarningLimit: 1000,
  },
});
