import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { HASHED_NAME } from './dashboard-routes.ts';

const gzipAsync = promisify(gzip);

const TYPES = new Map<string, string>([
  ['.js', 'text/javascript; charset=utf-8'],
  ['.mjs', 'text/javascript; charset=utf-8'],
  ['.css', 'text/css; charset=utf-8'],
  ['.html', 'text/html; charset=utf-8'],
  ['.json', 'application/json; charset=utf-8'],
  ['.svg', 'image/svg+xml'],
  ['.png', 'image/png'],
  ['.ico', 'image/x-icon'],
  ['.woff2', 'font/woff2'],
  ['.woff', 'font/woff'],
  ['.txt', 'text/plain; charset=utf-8'],
  ['.map', 'application/json; charset=utf-8'],
]);

/** Worth compressing: text formats (images and fonts are compressed already). */
const COMPRESSIBLE = new Set(['.js', '.mjs', '.css', '.html', '.json', '.svg', '.txt', '.map']);

export interface StaticFile {
  body: Buffer;
  gzipped?: Buffer;
  type: string;
  immutable: boolean;
}

/**
 * The built dashboard (`vite build` output): `index.html` and the files of `assets/`. The list of
 * files is read once; a file's bytes (and their gzip form) are read and compressed on first request
 * and kept, so start-up pays nothing and a request never compresses twice.
 */
export class DashboardFiles {
  private names: Promise<Set<string>> | undefined;
  private readonly cache = new Map<string, Promise<StaticFile>>();

  constructor(readonly root: string) {}

  /** `index.html`, or undefined when the app is not built. */
  async index(): Promise<StaticFile | undefined> {
    return (await this.has('index.html')) ? this.load('index.html') : undefined;
  }

  /** A file of `assets/` by its name (no folders: Vite writes them flat), or undefined. */
  async asset(name: string): Promise<StaticFile | undefined> {
    if (!/^[A-Za-z0-9._-]{1,200}$/.test(name) || name.startsWith('.')) return undefined;
    return (await this.has(`assets/${name}`)) ? this.load(`assets/${name}`) : undefined;
  }

  private async has(relative: string): Promise<boolean> {
    this.names ??= listFiles(this.root);
    return (await this.names).has(relative);
  }

  private load(relative: string): Promise<StaticFile> {
    let file = this.cache.get(relative);
    if (!file) {
      file = readStatic(path.join(this.root, relative), relative.startsWith('assets/'));
      // A failed read is not remembered (the next request tries again).
      file.catch(() => this.cache.delete(relative));
      this.cache.set(relative, file);
    }
    return file;
  }
}

async function listFiles(root: string): Promise<Set<string>> {
  const names = new Set<string>();
  try {
    for (const name of await readdir(root)) names.add(name);
    for (const name of await readdir(path.join(root, 'assets'))) names.add(`assets/${name}`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return names;
}

async function readStatic(file: string, isAsset: boolean): Promise<StaticFile> {
  const body = await readFile(file);
  const ext = path.extname(file).toLowerCase();
  const gzipped = COMPRESSIBLE.has(ext) && body.length > 1024 ? await gzipAsync(body, { level: 9 }) : undefined;
  return {
    body,
    gzipped: gzipped && gzipped.length < body.length ? gzipped : undefined,
    type: TYPES.get(ext) ?? 'application/octet-stream',
    immutable: isAsset && HASHED_NAME.test(path.basename(file)),
  };
}
