import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PROJECT_ROOT } from '../../kernel/loader.ts';

/** The built dashboard the admin-ui plugin serves. */
export const ADMIN_DIST = path.join(PROJECT_ROOT, 'plugins/admin-ui/dist');
const STAMP = path.join(ADMIN_DIST, '.build-stamp');
const APP = path.join(PROJECT_ROOT, 'plugins/admin-ui/app');
const PLUGINS = path.join(PROJECT_ROOT, 'plugins');

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? (e.name === 'node_modules' ? [] : filesUnder(full)) : [full];
  });
}

/**
 * A hash of everything the build reads: the app, every plugin's `admin/` folder, the other browser
 * apps (`plugins/<id>/app/`, the page editor) and the lockfile.
 */
export function adminSourceHash(): string {
  const files = [
    ...filesUnder(APP),
    ...readdirSync(PLUGINS).flatMap((id) => [
      ...filesUnder(path.join(PLUGINS, id, 'admin')),
      ...(id === 'admin-ui' ? [] : filesUnder(path.join(PLUGINS, id, 'app'))),
    ]),
    path.join(PROJECT_ROOT, 'package-lock.json'),
  ].sort();
  const hash = createHash('sha256');
  for (const f of files) hash.update(path.relative(PROJECT_ROOT, f)).update('\0').update(readFileSync(f)).update('\0');
  return hash.digest('hex');
}

/** True when vite (a development dependency) is installed. */
export function viteInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve('vite/package.json');
    return true;
  } catch {
    return false;
  }
}

/**
 * Builds the dashboard with Vite unless the build in `plugins/admin-ui/dist` was made from exactly
 * the current sources (a stamp with their hash). Returns whether it built.
 */
export function buildAdminUi(opts: { ifStale?: boolean } = {}): boolean {
  const hash = adminSourceHash();
  // Each other app's page is written to its plugin's dist/ by the same build.
  const pages = readdirSync(PLUGINS)
    .filter((id) => id !== 'admin-ui' && existsSync(path.join(PLUGINS, id, 'app', 'index.html')))
    .map((id) => path.join(PLUGINS, id, 'dist', 'index.html'));
  const fresh = () => existsSync(STAMP) && readFileSync(STAMP, 'utf8') === hash && pages.every((p) => existsSync(p));
  if (opts.ifStale && fresh()) return false;
  // Parallel test workers may all find the build stale: one builds, the others wait and find it fresh.
  while (!takeBuildLock()) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
  try {
    if (opts.ifStale && fresh()) return false;
    return runViteBuild(hash);
  } finally {
    rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}

/** A folder made atomically: held by whoever made it; one older than a build can take is left over from a killed run. */
const BUILD_LOCK = path.join(PROJECT_ROOT, 'plugins/admin-ui/.build-lock');
function takeBuildLock(): boolean {
  try {
    mkdirSync(BUILD_LOCK);
    return true;
  } catch {
    const age = Date.now() - (statSync(BUILD_LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > 10 * 60_000) rmSync(BUILD_LOCK, { recursive: true, force: true });
    return false;
  }
}

function runViteBuild(hash: string): boolean {
  const vite = path.join(path.dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin/vite.js');
  const run = spawnSync(process.execPath, [vite, 'build', '--config', path.join(APP, 'vite.config.ts')], {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`the dashboard build failed:\n${run.stdout}\n${run.stderr}`);
  writeFileSync(STAMP, hash);
  return true;
}
