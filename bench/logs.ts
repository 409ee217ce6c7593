/**
 * The system logs: what file logging costs per line, and how fast the tail answers over full files.
 *
 * 1. Writing: the product's process logger with LOG_DIR (pino, redaction, the rotating file of
 *    pino-roll, written synchronously) against the natural bare implementation, pino writing the same
 *    lines to one file synchronously (`pino.destination({ sync: true })`), no redaction, no rotation.
 * 2. Reading: `GET /api/v1/system/logs` through the real route (a kernel with the system-logs plugin)
 *    over LOG_FILE_COUNT + 1 files of LOG_FILE_MAX_MB each (110 MB by default): the newest 100 and
 *    1000 lines, and a level filter matching one line in 10,000 (the tail reads up to 64 MB).
 *
 * Run with `npm run bench:logs` (BENCH_LINES, BENCH_RUNS to change the sizes). Prints the figures.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { destination, pino } from 'pino';
import { openProcessLog } from '../kernel/log-files.ts';
import { startTestKernel } from '../test/helpers/kernel.ts';
import { teardownTestDatabases } from '../test/helpers/database.ts';

const LINES = Number(process.env.BENCH_LINES ?? 300_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);

const line = (i: number) => ({
  reqId: `req-${i}`,
  route: '/data-objects/:id',
  userId: '6f1c2d7e-4b1a-4f5e-9c1d-2a3b4c5d6e7f',
  ms: i % 250,
});

function perLine(write: (i: number) => void, n: number): number {
  const started = performance.now();
  for (let i = 0; i < n; i++) write(i);
  return ((performance.now() - started) * 1e6) / n;
}

const p = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.floor(q * (values.length - 1))];

async function writing(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cms-bench-logs-'));
  try {
    const bare = pino({ level: 'info' }, destination({ dest: path.join(dir, 'bare.log'), sync: true }));
    const { logger, files } = await openProcessLog(
      { LOG_LEVEL: 'info', LOG_DIR: path.join(dir, 'product'), LOG_FILE_MAX_MB: 10, LOG_FILE_COUNT: 10 },
      'core-api',
      { stdout: false },
    );
    // Alternating rounds, so a busy moment of the machine hits both.
    const rounds = 5;
    const bareNs: number[] = [];
    const productNs: number[] = [];
    for (let r = 0; r < rounds; r++) {
      bareNs.push(perLine((i) => bare.info(line(i), 'request done'), LINES / rounds));
      productNs.push(perLine((i) => logger.info(line(i), 'request done'), LINES / rounds));
      await files.flush();
    }
    const b = p(bareNs, 0.5);
    const pr = p(productNs, 0.5);
    const written = readdirSync(path.join(dir, 'product')).map((f) => statSync(path.join(dir, 'product', f)).size);
    console.log(`\nWriting ${LINES} lines (median of ${rounds} rounds):`);
    console.log(`  bare pino, one file, sync:           ${(b / 1000).toFixed(2)} µs/line`);
    console.log(
      `  product (redaction, pino-roll, sync): ${(pr / 1000).toFixed(2)} µs/line  (${(pr / b).toFixed(2)}x bare; ${written.length} files, ${(written.reduce((a, s) => a + s, 0) / 1e6).toFixed(1)} MB)`,
    );
    await files.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function reading(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cms-bench-tail-'));
  const t = await startTestKernel({
    plugins: ['system-logs'],
    env: { LOG_DIR: dir, LOG_LEVEL: 'info', LOG_FILE_MAX_MB: '10', LOG_FILE_COUNT: '10' },
  });
  try {
    const logger = t.kernel.resolve('logger');
    const files = t.kernel.resolve('logFiles');
    const filler = 'x'.repeat(120);
    let i = 0;
    // Full: LOG_FILE_COUNT closed files beside the current one.
    const full = async () => (await files.list()).length >= 11;
    while (!(await full())) {
      for (let k = 0; k < 10_000; k++, i++) {
        if (i % 10_000 === 5_000) logger.error({ i }, 'rare failure');
        else logger.info({ ...line(i), filler }, 'request done');
      }
      await files.flush();
    }
    const listed = await files.list();
    console.log(
      `\nTail over ${listed.length} files, ${(listed.reduce((a, f) => a + f.size, 0) / 1e6).toFixed(0)} MB, ${i} lines (p50 / p95 of ${RUNS} requests):`,
    );
    const admin = await t.admin();
    for (const [label, query] of [
      ['newest 100 lines', 'lines=100'],
      ['newest 1000 lines', 'lines=1000'],
      ['level=error, 100 lines (1 in 10,000 matches)', 'level=error&lines=100'],
    ] as const) {
      const times: number[] = [];
      let count = 0;
      for (let r = 0; r < RUNS + 2; r++) {
        const started = performance.now();
        const res = await t.call('GET', `/api/v1/system/logs?${query}`, admin);
        if (res.statusCode !== 200) throw new Error(`${query}: ${res.statusCode} ${res.body}`);
        if (r >= 2) times.push(performance.now() - started);
        count = res.json().lines.length;
      }
      console.log(
        `  ${label.padEnd(46)} p50 ${p(times, 0.5).toFixed(1)} ms, p95 ${p(times, 0.95).toFixed(1)} ms (${count} lines)`,
      );
    }
  } finally {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`load average before the run: ${os.loadavg()[0].toFixed(2)}`);
await writing();
await reading();
await teardownTestDatabases();
