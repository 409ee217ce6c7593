/**
 * `npm run bench:start`: how long the product takes from `node bin/cms.js start` to its first healthy
 * answer (GET /health 200, database included), from source (tsx) and built (`npm run build`, `bin/cms-built.js`).
 *
 * One start that is not counted initialises the data folder (the embedded cluster and the migrations, or
 * the database of DATABASE_URL); then each figure is the median of BENCH_START_RUNS (5) starts of the
 * all-in-one process, each stopped with SIGTERM before the next. Without DATABASE_URL the embedded
 * PostgreSQL of the data folder is started and stopped by each run, as a real start does.
 *
 * Settings: BENCH_START_RUNS (5), BENCH_START_DATA_DIR (default: a temporary folder, removed at the end),
 * BENCH_START_SKIP_BUILD=1 (use the existing dist/), BENCH_CHILD_NODE_ARGS (e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` profiles every start), DATABASE_URL.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BENCH_START_RUNS ?? 5);
const DEADLINE_MS = 120_000;
const ownDataDir = !process.env.BENCH_START_DATA_DIR;
const dataDir = process.env.BENCH_START_DATA_DIR ?? mkdtempSync(path.join(tmpdir(), 'cms-bench-start-'));
// A temporary folder is private (0700); as root the embedded cluster runs as `postgres`, which must enter it.
if (ownDataDir) chmodSync(dataDir, 0o755);
const running = new Set<ChildProcess>();

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const force = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', () => {
      clearTimeout(force);
      running.delete(child);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * CPU time (user + system, ms) a process used so far, from /proc (Linux; undefined elsewhere): on a
 * shared machine it moves far less with other load than the wall-clock figure.
 */
function cpuMsOf(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

interface StartFigures {
  ms: number;
  /** CPU time of the node process until that answer (the PostgreSQL it starts is not counted). */
  cpuMs?: number;
}

/** Starts one process and resolves with the milliseconds until GET /health answered 200. */
async function timeOneStart(entry: string): Promise<StartFigures> {
  const port = await freePort();
  const output: string[] = [];
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [...(process.env.BENCH_CHILD_NODE_ARGS?.split(' ').filter(Boolean) ?? []), entry, 'start'],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
        PORT: String(port),
        CMS_DATA_DIR: dataDir,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  running.add(child);
  child.stdout!.on('data', (chunk) => output.push(String(chunk)));
  child.stderr!.on('data', (chunk) => output.push(String(chunk)));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${output.join('')}`);
      if (performance.now() - started > DEADLINE_MS) throw new Error(`no healthy answer within ${DEADLINE_MS} ms`);
      const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
        (res) => res.status === 200,
        () => false,
      );
      if (ok) return { ms: performance.now() - started, cpuMs: cpuMsOf(child.pid) };
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    await stop(child);
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

async function measure(label: string, entry: string): Promise<number> {
  const runs: StartFigures[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await timeOneStart(entry));
  const figure = median(runs.map((r) => r.ms));
  const cpu = runs.every((r) => r.cpuMs !== undefined) ? median(runs.map((r) => r.cpuMs ?? 0)) : undefined;
  console.log(
    `${label.padEnd(8)} median ${Math.round(figure)} ms` +
      (cpu === undefined ? '' : ` (CPU ${Math.round(cpu)} ms)`) +
      `   runs: ${runs.map((r) => Math.round(r.ms)).join(', ')}`,
  );
  return figure;
}

async function cleanUp() {
  await Promise.all([...running].map(stop));
  if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
}

process.once('SIGINT', () => void cleanUp().then(() => process.exit(130)));
try {
  if (process.env.BENCH_START_SKIP_BUILD !== '1') {
    console.log('building (npm run build)...');
    const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('npm run build failed');
  }
  const source = path.join(ROOT, 'bin', 'cms.js');
  const built = path.join(ROOT, 'bin', 'cms-built.js');
  console.log(`initialising ${dataDir} (${process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded PostgreSQL'})...`);
  await timeOneStart(source);
  console.log(
    `start to first healthy answer (GET /health), median of ${RUNS}; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  await measure('source', source);
  await measure('built', built);
  console.log(
    `load after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
} finally {
  await cleanUp();
}
