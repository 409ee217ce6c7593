import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';
import { COMPRESS_MIN_BYTES, COMPRESSIBLE } from '../compression.ts';

/**
 * Writes each text file of the build's `assets/` compressed beside it, at the best levels (`x.js.br`
 * at brotli quality 11, `x.js.gz` at gzip level 9): the product serves them as they are
 * (static-files.ts), and nginx can with `brotli_static` / `gzip_static`. Compressing at these levels
 * takes the build a few seconds, which no request then pays.
 */
export function precompress(assets: string): Plugin {
  return {
    name: 'cms-precompress',
    apply: 'build',
    closeBundle() {
      for (const name of readdirSync(assets)) {
        if (!COMPRESSIBLE.has(path.extname(name))) continue;
        const file = path.join(assets, name);
        const body = readFileSync(file);
        if (body.length <= COMPRESS_MIN_BYTES) continue;
        writeFileSync(`${file}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
        writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
      }
    },
  };
}
