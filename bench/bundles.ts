/**
 * Website bundle benchmark (`npm run bench:bundles`): a site of 500 pages, 10,000 objects and
 * BENCH_BUNDLE_ASSET_MB of asset files (default 1024, in 16 MB files) is exported from one product
 * server and imported (dry run, then apply) into a second one on a fresh database, all through HTTP.
 * Reported: wall time of each step and the resident memory growth of the server doing it (target
 * < 256 MB: files stream, they never sit in memory).
 *
 * Settings: BENCH_BUNDLE_PAGES (500), BENCH_BUNDLE_OBJECTS (10000), BENCH_BUNDLE_ASSET_MB (1024).
 * On a shared machine the wall times move between runs; the memory figure is what the target is about.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { request } from 'undici';
import { createTestDatabase, teardownTestDatabases } from '../test/helpers/database.ts';
import { startChild, type ChildServer } from './lib/children.ts';

const PAGES = Number(process.env.BENCH_BUNDLE_PAGES ?? 500);
const OBJECTS = Number(process.env.BENCH_BUNDLE_OBJECTS ?? 10_000);
const ASSET_MB = Number(process.env.BENCH_BUNDLE_ASSET_MB ?? 1024);
const FILE_MB = 16;
const TARGET_MB = 256;
type Server = ChildServer<{ port: number; cookie: string }>;

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function call(s: Server, method: 'GET' | 'POST', url: string, body?: unknown) {
  const res = await request(`http://127.0.0.1:${s.info.port}${url}`, {
    method,
    headers: { cookie: s.info.cookie, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

async function seed(s: Server): Promise<string> {
  const site = await call(s, 'POST', '/cms-one/websites', { name: 'Bench shop', rootPath: '/bench', locales: ['en'] });
  await call(s, 'POST', '/data-classes', {
    name: 'BenchProduct',
    label: 'Product',
    fields: [
      { name: 'title', type: 'text' },
      { name: 'body', type: 'text' },
      { name: 'file', type: 'text' },
    ],
  });
  const files = Math.max(1, Math.round(ASSET_MB / FILE_MB));
  const paths: string[] = [];
  for (let i = 0; i < files; i++) {
    const bytes = Math.min(FILE_MB, ASSET_MB) * 1024 * 1024;
    const boundary = `----bench${i}`;
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="folder"\r\n\r\nbench\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="f${i}.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    );
    const res = await request(`http://127.0.0.1:${s.info.port}/api/v1/dam/upload`, {
      method: 'POST',
      headers: { cookie: s.info.cookie, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: Buffer.concat([head, randomBytes(bytes), Buffer.from(`\r\n--${boundary}--\r\n`)]),
    });
    const text = await res.body.text();
    if (res.statusCode !== 201) throw new Error(`upload: ${res.statusCode} ${text}`);
    paths.push(`bench/f${i}.bin`);
  }
  const ids: string[] = [];
  for (let i = 0; i < OBJECTS; i += 500) {
    const objects = Array.from({ length: Math.min(500, OBJECTS - i) }, (_, j) => ({
      key: `p${i + j}`,
      attributes: { title: `Product ${i + j}`, body: 'x'.repeat(200), file: paths[(i + j) % paths.length] },
    }));
    const out = await call(s, 'POST', '/data-objects/bulk', { className: 'BenchProduct', objects });
    ids.push(...(out.created as string[]));
  }
  for (let i = 0; i < PAGES; i++)
    await call(s, 'POST', '/cms-one/pages', {
      websiteId: site.id,
      locale: 'en',
      path: `/p${i}`,
      title: `Page ${i}`,
      published: true,
      content: {
        type: 'section',
        children: [
          { type: 'h1', text: `Page ${i}` },
          { type: 'product', props: { objectId: ids[i % Math.max(1, ids.length)] ?? '' } },
          { type: 'a', props: { href: `/dam-asset/${paths[i % paths.length]}` } },
        ],
      },
    });
  return site.id;
}

async function measured<T>(s: Server, work: () => Promise<T>): Promise<{ ms: number; growth: number; out: T }> {
  await s.ask('rss-start');
  const start = performance.now();
  const out = await work();
  const ms = performance.now() - start;
  const { baseline, peak } = await s.ask<{ baseline: number; peak: number }>('rss-stop');
  return { ms, growth: peak - baseline, out };
}

async function importZip(s: Server, file: string, query: string) {
  const { size } = await fs.stat(file);
  const res = await request(`http://127.0.0.1:${s.info.port}/cms-one/websites/import${query}`, {
    method: 'POST',
    headers: { cookie: s.info.cookie, 'content-type': 'application/zip', 'content-length': String(size) },
    body: createReadStream(file),
    bodyTimeout: 0,
    headersTimeout: 0,
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`import${query}: ${res.statusCode} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

const work = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-bundles-'));
const servers: Server[] = [];
try {
  const [dbA, dbB] = [await createTestDatabase(), await createTestDatabase()];
  const start = (url: string, dir: string) =>
    startChild<{ port: number; cookie: string }>(
      'bundles-server.ts',
      { BENCH_DATABASE_URL: url, BENCH_DATA_DIR: dir },
      180_000,
    );
  const source = await start(dbA.url, path.join(work, 'a'));
  servers.push(source);
  const target = await start(dbB.url, path.join(work, 'b'));
  servers.push(target);
  console.log(
    `load average before: ${os
      .loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')}; seeding ${PAGES} pages, ${OBJECTS} objects, ${ASSET_MB} MB of files`,
  );
  const seedStart = performance.now();
  const siteId = await seed(source);
  console.log(`seeded in ${secs(performance.now() - seedStart)}`);
  const zipFile = path.join(work, 'bundle.zip');
  const exported = await measured(source, async () => {
    const res = await request(`http://127.0.0.1:${source.info.port}/cms-one/websites/${siteId}/export`, {
      headers: { cookie: source.info.cookie },
      bodyTimeout: 0,
    });
    if (res.statusCode !== 200) throw new Error(`export: ${res.statusCode} ${await res.body.text()}`);
    await pipeline(res.body, createWriteStream(zipFile));
  });
  const { size } = await fs.stat(zipFile);
  const dry = await measured(target, () => importZip(target, zipFile, '?dryRun=1'));
  const applied = await measured(target, () => importZip(target, zipFile, ''));
  const rows = [
    ['export (zip to disk)', exported],
    ['import dry run', dry],
    ['import apply', applied],
  ] as const;
  console.log(
    `\nbundle ${mb(size)}; load average after: ${os
      .loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')}\n`,
  );
  console.log('| Step | Wall time | Peak RSS growth | Target < 256 MB |');
  console.log('| --- | --- | --- | --- |');
  for (const [name, r] of rows)
    console.log(
      `| ${name} | ${secs(r.ms)} | ${mb(r.growth)} | ${r.growth < TARGET_MB * 1024 * 1024 ? 'PASS' : 'MISS'} |`,
    );
  console.log(`\ncreated: ${JSON.stringify(applied.out.created)}; files uploaded ${applied.out.assets.uploaded}`);
} finally {
  for (const s of servers) await s.stop();
  await teardownTestDatabases();
  await fs.rm(work, { recursive: true, force: true });
}
