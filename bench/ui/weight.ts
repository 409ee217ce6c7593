import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';

/**
 * What a page received over the network, by resource type, as Chromium counts it for DevTools'
 * "transferred": the response headers and the body as sent (compressed when the server compressed
 * it). Watch a page before its navigation, then call `total()` once the moment to measure is reached;
 * requests whose URL `ignore` accepts are not counted.
 */
export function watchTransfer(
  page: Page,
  ignore: (url: string) => boolean = () => false,
): { total(): Promise<Transfer> } {
  const sizes: Promise<{ type: string; bytes: number; body: number; url: string; encoding: string }>[] = [];
  page.on('requestfinished', (request) => {
    if (ignore(request.url())) return;
    sizes.push(
      Promise.all([request.sizes(), request.response()]).then(async ([s, response]) => ({
        type: request.resourceType(),
        bytes: s.responseBodySize + s.responseHeadersSize,
        body: s.responseBodySize,
        url: request.url(),
        encoding: (await response?.headerValue('content-encoding')) ?? '',
      })),
    );
  });
  return {
    async total() {
      const all = await Promise.all(sizes);
      const by = (types: string[]) => all.filter((s) => types.includes(s.type)).reduce((n, s) => n + s.bytes, 0);
      const assets = all.filter((s) => s.type === 'script' || s.type === 'stylesheet');
      return {
        bytes: all.reduce((n, s) => n + s.bytes, 0),
        requests: all.length,
        script: by(['script']),
        stylesheet: by(['stylesheet']),
        api: by(['fetch', 'xhr']),
        other: by(['document', 'image', 'font', 'other']),
        uncompressed: assets.filter((s) => s.encoding === '' && s.body > 1024).map((s) => new URL(s.url).pathname),
        encodings: [...new Set(assets.map((s) => s.encoding || 'identity'))],
        files: all
          .map((s) => ({ path: new URL(s.url).pathname, type: s.type, bytes: s.bytes }))
          .sort((a, b) => b.bytes - a.bytes),
      };
    },
  };
}

export interface Transfer {
  /** Everything, headers included. */
  bytes: number;
  requests: number;
  script: number;
  stylesheet: number;
  /** The API's answers (fetch and XHR). */
  api: number;
  /** Documents, images, fonts. */
  other: number;
  /** Scripts and stylesheets over 1 KB the server sent without a content-encoding. */
  uncompressed: string[];
  /** Content-encodings of scripts and stylesheets seen. */
  encodings: string[];
  /** Every response counted, largest first. */
  files: Array<{ path: string; type: string; bytes: number }>;
}

export const kb = (bytes: number) => (bytes / 1024).toFixed(1);
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One row of the weight table: the median of the runs against its target, "met" or "missed". */
export function weightRow(name: string, runs: Transfer[], targetKb: number): { line: string; met: boolean } {
  const totals = runs.map((r) => r.bytes);
  const mid = runs.find((r) => r.bytes === median(totals)) ?? runs[0];
  const met = mid.bytes / 1024 < targetKb;
  const parts = `JS ${kb(mid.script)}, CSS ${kb(mid.stylesheet)}, API ${kb(mid.api)}, other ${kb(mid.other)} KB; ${mid.requests} requests`;
  return {
    line: `| ${name} | ${kb(mid.bytes)} KB (${parts}) | ${totals.map(kb).join(', ')} | < ${targetKb} KB ${met ? 'met' : 'missed'} |`,
    met,
  };
}

/** The build's files of one kind (`.js`, `.css`) with their raw, gzip and brotli sizes, largest first. */
export function buildFiles(assets: string, ext: string): Array<{ f: string; raw: number; gz: number; br: number }> {
  return readdirSync(assets)
    .filter((f) => f.endsWith(ext))
    .map((f) => {
      const body = readFileSync(path.join(assets, f));
      return { f, raw: body.length, gz: gzipSync(body, { level: 9 }).length, br: brotliCompressSync(body).length };
    })
    .sort((a, b) => b.raw - a.raw);
}
