/**
 * Public read throughput with 1 and with 3 core-api replicas behind the generated nginx
 * (`npm run bench:replicas`), against a bare baseline measured in the same run.
 *
 * Product: three `cms start --service core-api` processes on one database holding 50 published objects
 * of one class; nginx (from the edge table, one worker) lists one of them, then all three, in its
 * `core_api` upstream; wrk (one thread) reads `GET /public/data-objects?className=...&limit=20`
 * through it. Baseline: three bare Node HTTP servers answering those same bytes, behind the same nginx
 * with one and with three servers: the ceiling of the machine, nginx and the loopback, with no product.
 * On two cores three replicas do not add CPU, so the figures are expected flat (each replica adds
 * throughput only where it adds cores); what the run shows is that spreading over replicas costs
 * nothing either.
 *
 * The four scenarios take turns for BENCH_ROUNDS rounds; each figure is the median of its rounds.
 *
 * Environment: BENCH_SECONDS (each measured load, default 5), BENCH_ROUNDS (default 3),
 * BENCH_CONNECTIONS (default 32),
 * TEST_DATABASE_URL (else an embedded cluster is started).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, teardownTestDatabases } from '../test/helpers/database.ts';
import { freePort, startNginx, startStub, type RunningNginx, type StubUpstream } from '../test/helpers/nginx.ts';
import { Browser, killGroup, startReplica, type Replica } from '../test/helpers/replica-set.ts';
import { loadToolName, runLoad, type LoadResult } from './lib/load.ts';
import { stopWrk } from './lib/wrk.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const OBJECTS = 50;
const CLASS = 'BenchReplicaNote';
const READ = `/public/data-objects?className=${CLASS}&limit=20`;
const ADMIN = { email: 'bench.replicas@example.com', password: 'bench-replicas-password-1' };
const log = (...args: unknown[]) => console.error('[bench:replicas]', ...args);
const load = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

/** A bare HTTP server in a process of its own, answering `body` as JSON to every request. */
async function startBare(body: string, spawned: ChildProcess[]): Promise<string> {
  const port = await freePort();
  const code = `require('node:http').createServer((q, s) => { s.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(process.env.BODY) }); s.end(process.env.BODY); }).listen(${port}, '127.0.0.1', () => console.log('ready'));`;
  const child = spawn(process.execPath, ['-e', code], {
    env: { BODY: body },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  spawned.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (c) => reject(new Error(`bare server exited ${c}`)));
  });
  return `127.0.0.1:${port}`;
}

async function main(): Promise<void> {
  const spawned: ChildProcess[] = [];
  const proxies: RunningNginx[] = [];
  const stubs: StubUpstream[] = [];
  // Ctrl-C: the replicas and bare servers are in process groups of their own, so they go too.
  process.once('SIGINT', () => {
    stopWrk();
    for (const child of spawned) killGroup(child);
    process.exit(130);
  });
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-replicas-'));
  try {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATABASE_URL: database.url,
      CMS_DATA_DIR: dataDir,
      CMS_ADMIN_EMAIL: ADMIN.email,
      CMS_ADMIN_PASSWORD: ADMIN.password,
      TRUST_PROXY: '1',
      TOTP_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      // wrk comes from one address: the per-address limit would measure 429s.
      PUBLIC_DATA_RATE_LIMIT_PER_MINUTE: '1000000',
    };
    log(`load before start: ${load()}`);
    const core: Replica[] = await Promise.all([0, 1, 2].map(() => startReplica('core-api', env, spawned)));
    const admin = new Browser();
    const ok = (status: number, want: number, body: string) => {
      if (status !== want) throw new Error(`expected ${want}, got ${status}: ${body}`);
    };
    const signIn = await admin.request(core[0].url, 'POST', '/auth/login', ADMIN);
    ok(signIn.status, 200, signIn.body);
    const cls = await admin.request(core[0].url, 'POST', '/data-classes', {
      name: CLASS,
      fields: [
        { name: 'title', type: 'text', required: true },
        { name: 'body', type: 'text' },
      ],
    });
    ok(cls.status, 201, cls.body);
    for (let i = 0; i < OBJECTS; i++) {
      const res = await admin.request(core[i % 3].url, 'POST', '/data-objects', {
        className: CLASS,
        key: `note-${i}`,
        published: true,
        attributes: { title: `Note ${i}`, body: 'x'.repeat(200) },
      });
      ok(res.status, 201, res.body);
    }
    admin.close();
    const sample = await fetch(core[1].url + READ);
    const body = await sample.text();
    ok(sample.status, 200, body);

    const bare = await Promise.all([0, 1, 2].map(() => startBare(body, spawned)));
    for (const name of ['asset-processor', 'gateway', 'admin-dashboard', 'editor']) stubs.push(await startStub(name));
    const behind = async (coreApi: string[]) => {
      const nginx = await startNginx({
        upstreams: {
          'core-api': coreApi.join(','),
          'asset-processor': stubs[0].address,
          gateway: stubs[1].address,
          'admin-dashboard': stubs[2].address,
          editor: stubs[3].address,
        },
      });
      proxies.push(nginx);
      return nginx.url;
    };
    const address = (r: Replica) => `127.0.0.1:${r.port}`;
    const scenarios: Array<{ name: string; url: string }> = [
      { name: 'bare, 1 server', url: await behind(bare.slice(0, 1)) },
      { name: 'bare, 3 servers', url: await behind(bare) },
      { name: 'core-api, 1 replica', url: await behind([address(core[0])]) },
      { name: 'core-api, 3 replicas', url: await behind(core.map(address)) },
    ];
    for (const s of scenarios) {
      // Every replica behind this proxy answers the same bytes (the read is what is measured).
      for (let i = 0; i < 3; i++) {
        const through = await fetch(s.url + READ);
        const text = await through.text();
        if (through.status !== 200 || JSON.parse(text).objects.length !== 20)
          throw new Error(`${s.name}: ${through.status} ${text.slice(0, 200)}`);
      }
      // A short warm-up through this proxy (its keepalive connections, each replica's read cache).
      await runLoad(s.url, [{ method: 'GET', path: READ }], { connections: CONNECTIONS, seconds: 2 });
    }
    // The scenarios take turns, round after round: the other work on the machine comes and goes, and
    // a scenario measured in one stretch would carry whatever load that stretch had.
    const runs = new Map<string, Array<{ result: LoadResult; loadBefore: string }>>(scenarios.map((s) => [s.name, []]));
    for (let round = 1; round <= ROUNDS; round++)
      for (const s of scenarios) {
        const loadBefore = load();
        const result = await runLoad(s.url, [{ method: 'GET', path: READ }], {
          connections: CONNECTIONS,
          seconds: SECONDS,
        });
        runs.get(s.name)!.push({ result, loadBefore });
        log(`round ${round}, ${s.name}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50} ms (load ${loadBefore})`);
      }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const rps = (name: string) => median(runs.get(name)!.map((r) => r.result.rps));
    console.log(`\nbench:replicas: GET ${READ} (${body.length} bytes) through nginx, ${loadToolName()},`);
    console.log(
      `${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s each, ${os.cpus().length} cores; load average at the end: ${load()}\n`,
    );
    console.log(
      '| behind nginx | req/s (median) | each round | p50 ms (median) | non-2xx | load (1 min) before each |',
    );
    console.log('| --- | ---: | --- | ---: | ---: | --- |');
    for (const s of scenarios) {
      const list = runs.get(s.name)!;
      console.log(
        `| ${s.name} | ${rps(s.name).toFixed(0)} | ${list.map((r) => r.result.rps.toFixed(0)).join(', ')} | ${median(list.map((r) => r.result.p50))} | ${list.reduce((n, r) => n + r.result.non2xx + r.result.errors, 0)} | ${list.map((r) => r.loadBefore.split(' ')[0]).join(', ')} |`,
      );
    }
    console.log(
      `\n3 replicas / 1 replica: ${(rps('core-api, 3 replicas') / rps('core-api, 1 replica')).toFixed(2)}x` +
        ` (bare: ${(rps('bare, 3 servers') / rps('bare, 1 server')).toFixed(2)}x);` +
        ` core-api / bare: ${(rps('core-api, 1 replica') / rps('bare, 1 server')).toFixed(2)}x with 1,` +
        ` ${(rps('core-api, 3 replicas') / rps('bare, 3 servers')).toFixed(2)}x with 3`,
    );
  } finally {
    stopWrk();
    for (const child of spawned) killGroup(child);
    await Promise.all(proxies.map((p) => p.stop()));
    await Promise.all(stubs.map((s) => s.close()));
    await database.close();
    await teardownTestDatabases();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
