/**
 * Asset service benchmark (`npm run bench:assets`): the product in a child process (production mode),
 * measured only through HTTP.
 *
 * 1. `POST /api/v1/process`: a 4000x3000 JPEG to an 800-wide WebP q80, against raw sharp in this
 *    process doing the same with the same concurrency and libvips settings (target ≥ 0.9x); and, as a
 *    reference for what HTTP alone costs, bare Fastify + sharp doing the same over HTTP.
 * 2. A cached preset rendition (~100 KB) from `/dam-asset/...?preset=`, against bare Fastify +
 *    @fastify/static serving the same bytes (target ≥ 0.7x req/s); and the first, uncached request.
 * 3. Resident memory growth of the server while a 50 MB file is uploaded, on disk and on S3 (s3rver on
 *    loopback) (target < 64 MB).
 * 4. Time to the first byte of a `Range` request in the middle of the 50 MB file (target < 20 ms).
 * 5. A staff user's 300x300 PNG upload (header probe and two thumbnails) while another caller (the
 *    service token) floods `/api/v1/process` with BENCH_FLOOD_CALLERS concurrent variant requests of
 *    the 4000x3000 JPEG, against the same upload on an idle server (target: p50 < 2 s; the image slots
 *    are shared fairly, so the upload waits for at most one flood operation per step).
 *
 * Settings: BENCH_SECONDS (10), BENCH_CONNECTIONS (16), BENCH_PROCESS_CONCURRENCY (`1,2`), BENCH_ONLY
 * (comma-separated: process, preset, upload, flood), BENCH_FLOOD_CALLERS (6), BENCH_FLOOD_UPLOADS (8).
 * On a shared machine the figures move between runs; read the ratios first.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { request } from 'undici';
import { startLocalS3 } from '../test/helpers/s3-server.ts';
import { createTestDatabase, teardownTestDatabases } from '../test/helpers/database.ts';
import { startChild, type ChildServer } from './lib/children.ts';
import { loadToolName, runLoad } from './lib/load.ts';
import { runWrkPostFile, wrkAvailable } from './lib/wrk.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
// One request at a time isolates the HTTP overhead; two fill both cores of the reference machine.
const PROCESS_CONCURRENCY = (process.env.BENCH_PROCESS_CONCURRENCY ?? '1,2').split(',').map(Number);
const BIG = 50 * 1024 * 1024;
type Server = ChildServer<{ port: number; cookie: string; token: string }>;

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))];

/** Runs `work` from `concurrency` loops for `seconds`; operations per second. */
async function closedLoop(concurrency: number, seconds: number, work: () => Promise<void>): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        await work();
        done++;
      }
    }),
  );
  return done / seconds;
}

async function processBench(server: Server, jpeg: Buffer): Promise<string[]> {
  const bare = await startChild<{ port: number }>('sharp-server.ts', {});
  try {
    const rows: string[] = [];
    for (const concurrency of PROCESS_CONCURRENCY)
      rows.push(...(await processAt(server, bare.info.port, jpeg, concurrency)));
    return rows;
  } finally {
    await bare.stop();
  }
}

/**
 * Closed-loop POSTs of the JPEG to `url`, `concurrency` at once; requests per second. With wrk when it
 * is installed (a Node client would take CPU from the server on these 2 cores), else undici here.
 */
async function postLoop(
  url: string,
  jpeg: Buffer,
  headers: Record<string, string>,
  concurrency: number,
): Promise<number> {
  const once = async () => {
    const res = await request(url, {
      method: 'POST',
      body: jpeg,
      headers: { 'content-type': 'image/jpeg', ...headers },
    });
    if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}: ${await res.body.text()}`);
    await res.body.arrayBuffer();
  };
  await once();
  if (!wrkAvailable()) return closedLoop(concurrency, SECONDS, once);
  const result = await runWrkPostFile(url, jpeg, 'image/jpeg', headers, { connections: concurrency, seconds: SECONDS });
  if (result.non2xx || result.errors)
    throw new Error(`${url}: ${result.non2xx} answers not 2xx, ${result.errors} socket errors under load`);
  return result.rps;
}

async function processAt(server: Server, barePort: number, jpeg: Buffer, concurrency: number): Promise<string[]> {
  // The product's defaults: one libvips thread per operation, operation cache off.
  sharp.concurrency(1);
  sharp.cache(false);
  const raw = () =>
    sharp(jpeg, { limitInputPixels: 100_000_000 })
      .rotate()
      .resize({ width: 800, withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer()
      .then(() => undefined);
  await raw();
  const rawRate = await closedLoop(concurrency, SECONDS, raw);
  const gcBefore = await server.ask<{ majorGcs: number }>('gc-count');
  const httpRate = await postLoop(
    `http://127.0.0.1:${server.info.port}/api/v1/process?width=800&format=webp&quality=80`,
    jpeg,
    { authorization: `Bearer ${server.info.token}` },
    concurrency,
  );
  const gcAfter = await server.ask<{ majorGcs: number }>('gc-count');
  const gcPer100 = ((gcAfter.majorGcs - gcBefore.majorGcs) / Math.max(1, httpRate * SECONDS)) * 100;
  const bareRate = await postLoop(`http://127.0.0.1:${barePort}/process?width=800`, jpeg, {}, concurrency);
  const ratio = httpRate / rawRate;
  const label = `/api/v1/process 4000x3000 JPEG (${mb(jpeg.length)}) → 800w WebP q80, ${concurrency} at once`;
  return [
    `| ${label} | ${httpRate.toFixed(2)}/s (${gcPer100.toFixed(1)} full GCs per 100 requests) | raw sharp in-process ${rawRate.toFixed(2)}/s | ${ratio.toFixed(2)}x | ≥ 0.9x ${verdict(ratio >= 0.9)} |`,
    `| same, bare Fastify + sharp over HTTP (reference: what HTTP costs) | ${bareRate.toFixed(2)}/s | raw sharp in-process | ${(bareRate / rawRate).toFixed(2)}x; product / bare ${(httpRate / bareRate).toFixed(2)}x | |`,
  ];
}

async function upload(
  server: Server,
  folder: string,
  name: string,
  body: Buffer | string,
): Promise<{ url: string; id: string }> {
  const boundary = `----bench${randomBytes(6).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="folder"\r\n\r\n${folder}\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const size = typeof body === 'string' ? (await fs.stat(body)).size : body.length;
  const stream = Readable.from(
    (async function* () {
      yield head;
      if (typeof body === 'string') yield* createReadStream(body, { highWaterMark: 256 * 1024 });
      else yield body;
      yield tail;
    })(),
  );
  const res = await request(`http://127.0.0.1:${server.info.port}/api/v1/dam/upload`, {
    method: 'POST',
    body: stream,
    headers: {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(head.length + size + tail.length),
      cookie: server.info.cookie,
    },
  });
  const text = await res.body.text();
  if (res.statusCode !== 201) throw new Error(`upload answered ${res.statusCode}: ${text}`);
  return JSON.parse(text);
}

const FLOOD_CALLERS = Number(process.env.BENCH_FLOOD_CALLERS ?? 6);
const FLOOD_UPLOADS = Number(process.env.BENCH_FLOOD_UPLOADS ?? 8);

/** A staff 300x300 upload's latency, idle and while the service token floods /api/v1/process (scenario 5). */
async function floodBench(server: Server, jpeg: Buffer): Promise<string[]> {
  const small = await sharp({ create: { width: 300, height: 300, channels: 3, background: { r: 20, g: 120, b: 200 } } })
    .png()
    .toBuffer();
  let uploads = 0;
  const staffUploads = async (n: number) => {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const start = performance.now();
      await upload(server, 'flood', `staff-${process.pid}-${uploads++}.png`, small);
      times.push(performance.now() - start);
    }
    return times;
  };
  await staffUploads(2);
  const idle = await staffUploads(FLOOD_UPLOADS);

  const url = `http://127.0.0.1:${server.info.port}/api/v1/process?mode=variants&widths=3000,2000,1000&format=webp`;
  const statuses = new Map<number, number>();
  let flooding = true;
  const flood = Array.from({ length: FLOOD_CALLERS }, async () => {
    while (flooding) {
      const res = await request(url, {
        method: 'POST',
        body: jpeg,
        headers: { authorization: `Bearer ${server.info.token}`, 'content-type': 'image/jpeg' },
      });
      await res.body.dump();
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    }
  });
  // Let the flood fill the image slots and their queue before the staff user arrives.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const busy = await staffUploads(FLOOD_UPLOADS);
  flooding = false;
  await Promise.all(flood);

  const p50 = (v: number[]) => percentile(v, 50);
  const answered = [...statuses].map(([status, n]) => `${n}x ${status}`).join(', ');
  return [
    `| Staff 300x300 PNG upload, idle (${FLOOD_UPLOADS} in a row) | p50 ${p50(idle).toFixed(0)} ms, max ${Math.max(...idle).toFixed(0)} ms | | | |`,
    `| same while the service token floods /api/v1/process (${FLOOD_CALLERS} at once, 4000x3000 JPEG → WebP 3000,2000,1000; flood answered ${answered}) | p50 ${p50(busy).toFixed(0)} ms, max ${Math.max(...busy).toFixed(0)} ms | idle p50 ${p50(idle).toFixed(0)} ms | ${(p50(busy) / p50(idle)).toFixed(1)}x | p50 < 2 s ${verdict(p50(busy) < 2000)} |`,
  ];
}

async function presetBench(server: Server, staticDir: string): Promise<string[]> {
  // Random colour blobs scaled up: a photo-like amount of detail, so the rendition is about 100 KB.
  const blobs = await sharp(randomBytes(240 * 160 * 3), { raw: { width: 240, height: 160, channels: 3 } })
    .resize(2400, 1600, { kernel: 'cubic' })
    .blur(2)
    .png()
    .toBuffer();
  const source = await sharp(blobs).jpeg({ quality: 85 }).toBuffer();
  const asset = await upload(server, 'bench/preset', 'photo.jpg', source);
  const base = `http://127.0.0.1:${server.info.port}`;
  const presetName = `bench-${Date.now().toString(36)}`;
  const saved = await request(`${base}/api/v1/dam/presets`, {
    method: 'POST',
    body: JSON.stringify({ name: presetName, width: 960, format: 'auto', quality: 45 }),
    headers: { 'content-type': 'application/json', cookie: server.info.cookie },
  });
  await saved.body.text();
  const presetPath = `${asset.url.split('?')[0]}?preset=${presetName}`;
  const started = performance.now();
  const first = await request(`${base}${presetPath}`, { headers: { accept: 'image/webp' } });
  const bytes = Buffer.from(await first.body.arrayBuffer());
  const firstMs = performance.now() - started;
  await fs.writeFile(path.join(staticDir, 'preset.webp'), bytes);
  const staticServer = await startChild<{ port: number }>('static-server.ts', { BENCH_STATIC_DIR: staticDir });
  try {
    const product = await runLoad(base, [{ method: 'GET', path: presetPath, headers: { accept: 'image/webp' } }], {
      connections: CONNECTIONS,
      seconds: SECONDS,
    });
    const baseline = await runLoad(
      `http://127.0.0.1:${staticServer.info.port}`,
      [{ method: 'GET', path: '/preset.webp' }],
      { connections: CONNECTIONS, seconds: SECONDS },
    );
    const ratio = product.rps / baseline.rps;
    return [
      `| cached preset (${(bytes.length / 1024).toFixed(0)} KB WebP), ${CONNECTIONS} connections | ${product.rps.toFixed(0)} req/s (p50 ${product.p50.toFixed(1)} ms, p99 ${product.p99.toFixed(1)} ms, non-2xx ${product.non2xx}) | @fastify/static ${baseline.rps.toFixed(0)} req/s (p99 ${baseline.p99.toFixed(1)} ms) | ${ratio.toFixed(2)}x | ≥ 0.7x ${verdict(ratio >= 0.7)} |`,
      `| first, uncached preset request (render + store) | ${firstMs.toFixed(0)} ms | | | reported |`,
    ];
  } finally {
    await staticServer.stop();
  }
}

async function memoryAndRange(server: Server, label: string, bigFile: string): Promise<string[]> {
  // A first upload loads and compiles the upload path (on S3 the SDK's multipart modules): memory
  // that is code, not the file. One 12 MB upload (three 5 MB parts on S3) comes first.
  await server.ask('rss-start');
  await upload(server, `bench/${label}-warm-up`, 'warm.bin', randomBytes(12 * 1024 * 1024));
  const warm = await server.ask<{ baseline: number; peak: number }>('rss-stop');
  await server.ask('rss-start');
  const asset = await upload(server, `bench/${label}`, 'big.bin', bigFile);
  const { baseline, peak } = await server.ask<{ baseline: number; peak: number }>('rss-stop');
  const growth = peak - baseline;
  const ttfb: number[] = [];
  const url = `http://127.0.0.1:${server.info.port}${asset.url}`;
  for (let i = 0; i < 30; i++) {
    const start = 25 * 1024 * 1024 + i * 4096;
    const t0 = performance.now();
    const res = await request(url, { headers: { range: `bytes=${start}-${start + 99}` } });
    for await (const chunk of res.body) {
      if (chunk.length) {
        ttfb.push(performance.now() - t0);
        break;
      }
    }
    await res.body.dump().catch(() => undefined);
    if (res.statusCode !== 206) throw new Error(`range answered ${res.statusCode}`);
  }
  const p50 = percentile(ttfb.slice(5), 50);
  const p95 = percentile(ttfb.slice(5), 95);
  return [
    `| first upload into the idle ${label} process (12 MB): resident memory growth | ${mb(warm.peak - warm.baseline)} | | | reported |`,
    `| 50 MB upload on ${label}: resident memory growth (after a 12 MB warm-up upload) | ${mb(growth)} (baseline ${mb(baseline)}, peak ${mb(peak)}) | | | < 64 MB ${verdict(growth < 64 * 1024 * 1024)} |`,
    `| Range first byte in the middle of 50 MB on ${label} (25 requests after 5 warm-ups) | p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms | | | < 20 ms ${verdict(p50 < 20)} |`,
  ];
}

async function main(): Promise<void> {
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-assets-'));
  const database = await createTestDatabase();
  const s3 = await startLocalS3();
  const children: Server[] = [];
  const stopAll = async () => {
    for (const c of children) await c.stop();
    await s3.close();
    await database.close();
    await teardownTestDatabases();
    await fs.rm(work, { recursive: true, force: true });
  };
  process.once('SIGINT', () => void stopAll().finally(() => process.exit(130)));
  try {
    const common = { BENCH_DATABASE_URL: database.url, BENCH_DATA_DIR: path.join(work, 'data') };
    // One load generator is one caller: it may use both image slots here, so the transform figures
    // measure the pipeline (the product's default gives one caller half the slots, see scenario 5).
    const disk = await startChild<Server['info']>('assets-server.ts', { ...common, ASSET_IMAGE_JOBS_PER_CALLER: '2' });
    children.push(disk as Server);
    const onS3 = await startChild<Server['info']>('assets-server.ts', {
      ...common,
      BENCH_DATA_DIR: path.join(work, 'data-s3'),
      ...s3.env('bench'),
    });
    children.push(onS3 as Server);
    const jpeg = await sharp({
      create: {
        width: 4000,
        height: 3000,
        channels: 3,
        background: { r: 120, g: 100, b: 80 },
        noise: { type: 'gaussian', mean: 110, sigma: 20 },
      },
    })
      .jpeg({ quality: 85 })
      .toBuffer();
    const bigFile = path.join(work, 'big.bin');
    await fs.writeFile(bigFile, randomBytes(BIG));
    const staticDir = path.join(work, 'static');
    await fs.mkdir(staticDir);

    // Scenario 5 runs on a process with the default image limits.
    const defaultsServer = async () => {
      const server = await startChild<Server['info']>('assets-server.ts', {
        ...common,
        BENCH_DATA_DIR: path.join(work, 'data-flood'),
      });
      children.push(server as Server);
      return server as Server;
    };
    const only = process.env.BENCH_ONLY;
    const want = (name: string) => !only || only.split(',').includes(name);
    const rows = [
      ...(want('process') ? await processBench(disk as Server, jpeg) : []),
      ...(want('flood') ? await floodBench(await defaultsServer(), jpeg) : []),
      ...(want('preset') ? await presetBench(disk as Server, staticDir) : []),
      ...(want('upload') ? await memoryAndRange(disk as Server, 'disk', bigFile) : []),
      ...(want('upload') ? await memoryAndRange(onS3 as Server, 'S3 (s3rver)', bigFile) : []),
    ];
    console.log(
      `\n# bench:assets (${new Date().toISOString()}, ${os.cpus().length} cores, ${SECONDS} s per load, ${loadToolName()})\n`,
    );
    console.log('| Scenario | Product | Baseline | Ratio | Target |');
    console.log('|---|---|---|---|---|');
    for (const row of rows) console.log(row);
  } finally {
    await stopAll();
  }
}

await main();
