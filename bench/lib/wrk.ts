import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadOptions, LoadResult, PreparedRequest } from './load.ts';

const SCRIPT = fileURLToPath(new URL('wrk-requests.lua', import.meta.url));
const POST_FILE_SCRIPT = fileURLToPath(new URL('wrk-post-file.lua', import.meta.url));
const running = new Set<ChildProcess>();
let available: boolean | undefined;

/** Whether the `wrk` binary is on PATH (Debian package `wrk`); BENCH_LOAD_TOOL=autocannon says no. */
export function wrkAvailable(): boolean {
  available ??=
    process.env.BENCH_LOAD_TOOL !== 'autocannon' &&
    spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;
  return available;
}

/** Kills every wrk still running (Ctrl-C of the benchmark). */
export function stopWrk(): void {
  for (const child of running) child.kill('SIGKILL');
}

/**
 * One wrk run: one thread (the machine has two cores, shared with both servers and PostgreSQL),
 * `connections` connections, `--latency` for the distribution. The requests are written to a file the
 * Lua script replays in order. `until` interrupts it early with SIGINT, after which wrk still prints
 * what it measured.
 */
export async function runWrk(
  baseUrl: string,
  requests: readonly PreparedRequest[],
  opts: LoadOptions,
): Promise<LoadResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-wrk-'));
  try {
    const file = path.join(dir, 'requests.tsv');
    writeFileSync(file, requests.map(requestLine).join('\n') + '\n');
    return await wrkRun(['-s', SCRIPT, baseUrl, '--', file], opts);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Closed-loop POSTs of one binary body (an image) to `url`, `opts.connections` at once; the body is
 * written to a file the Lua script reads once.
 */
export async function runWrkPostFile(
  url: string,
  body: Buffer,
  contentType: string,
  headers: Record<string, string>,
  opts: LoadOptions,
): Promise<LoadResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-wrk-'));
  try {
    const file = path.join(dir, 'body.bin');
    writeFileSync(file, body);
    return await wrkRun(
      ['-s', POST_FILE_SCRIPT, url, '--', file, contentType, ...Object.entries(headers).flat()],
      opts,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function wrkRun(scriptArgs: string[], opts: LoadOptions): Promise<LoadResult> {
  const args = [
    '-t1',
    `-c${opts.connections}`,
    `-d${opts.seconds}s`,
    '--latency',
    '--timeout',
    `${opts.timeoutSeconds ?? 10}s`,
    ...scriptArgs,
  ];
  const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  void opts.until?.then(() => child.kill('SIGINT'));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (c) => resolve(c));
  });
  running.delete(child);
  if (code !== 0 && !/Requests\/sec/.test(out)) throw new Error(`wrk exited with ${code}:\n${out}`);
  return parseWrkOutput(out);
}

function requestLine(r: PreparedRequest): string {
  const cells = [r.method, r.path, r.body ?? '', ...Object.entries(r.headers ?? {}).flat()];
  if (cells.some((c) => /[\t\r\n]/.test(c)))
    throw new Error(`request cannot hold tabs or line breaks: ${r.method} ${r.path}`);
  return cells.join('\t');
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

function durationMs(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m|h)$/.exec(text);
  if (!m) throw new Error(`unreadable wrk duration "${text}"`);
  return Number(m[1]) * UNIT_MS[m[2]];
}

/** Reads requests/sec, the 50% and 99% lines of `--latency`, non-2xx/3xx answers and socket errors. */
export function parseWrkOutput(out: string): LoadResult {
  const need = (re: RegExp, what: string) => {
    const m = re.exec(out);
    if (!m) throw new Error(`wrk output has no ${what}:\n${out}`);
    return m;
  };
  const rps = Number(need(/^Requests\/sec:\s+([\d.]+)/m, 'Requests/sec')[1]);
  const requests = Number(need(/^\s*(\d+) requests in /m, 'request count')[1]);
  const p50 = durationMs(need(/^\s+50%\s+(\S+)/m, '50% latency')[1]);
  const p99 = durationMs(need(/^\s+99%\s+(\S+)/m, '99% latency')[1]);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  return { rps, p50, p99, requests, non2xx, errors, tool: 'wrk' };
}
