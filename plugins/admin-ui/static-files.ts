import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { COMPRESS_MIN_BYTES, COMPRESSIBLE } from './compression.ts';
import { HASHED_NAME } from './dashboard-routes.ts';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

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

/** The compressed forms the build writes beside a file (`x.js.br`, `x.js.gz`): read, never served by name. */
const PRECOMPRESSED = /\.(br|gz)$/;

export interface StaticFile {
  body: Buffer;
  gzipped?: Buffer;
  brotli?: Buffer;
  type: string;
  immutable: boolean;
}

/**
 * The built dashboard (`vite build` output): `index.html` and the files of `assets/`. The list of
 * files is read once; a file's bytes and their brotli and gzip forms are read on first request and
 * kept, so start-up pays nothing and a request never compresses twice. The build writes both forms
 * beside each file (`.br`, `.gz`, at their best levels); a file without them is compressed then.
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
    for (const name of await readdir(root)) if (!PRECOMPRESSED.test(name)) names.add(name);
    for (const name of await readdir(path.join(root, 'assets')))
      if (!PRECOMPRESSED.test(name)) names.add(`assets/${name}`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return names;
}

async function readStatic(file: string, isAsset: boolean): Promise<StaticFile> {
  const body = await readFile(file);
  const ext = path.extname(file).toLowerCase();
  const compress = COMPRESSIBLE.has(ext) && body.length > COMPRESS_MIN_BYTES;
  const [gzipped, brotli] = compress
    ? await Promise.all([
        readSidecar(`${file}.gz`) ?? gzipAsync(body, { level: 9 }),
        // At run time a middle quality: the best one costs about a second a megabyte.
        readSidecar(`${file}.br`) ?? brotliAsync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }),
      ])
    : [undefined, undefined];
  return {
    body,
    gzipped: gzipped && gzipped.length < body.length ? gzipped : undefined,
    brotli: brotli && brotli.length < body.length ? brotli : undefined,
    type: TYPES.get(ext) ?? 'application/octet-stream',
    immutable: isAsset && HASHED_NAME.test(path.basename(file)),
  };
}

/** The build's compressed form of a file, or undefined (then the caller compresses it). */
function readSidecar(file: string): Promise<Buffer> | undefined {
  return existsSync(file) ? readFile(file) : undefined;
}
