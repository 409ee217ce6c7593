/**
 * Object events end to end: 1,000 object writes (POST /data-objects) with 5 subscriptions to a local
 * receiver, and the time until all 5,000 signed deliveries are delivered (target < 10 s); plus the write
 * path's cost: create p50 with 5 subscriptions against none. Every subscription signs with a secret and
 * the receiver checks each `X-Cms-Signature`: a delivery counts only when it verifies.
 *
 * This process plays core-api (kernel with data, object-events and the test gateway routes fixture; writes
 * through `inject`) and holds the receiver; deliveries are sent where they are in production, by a
 * gateway process (`cms start --service gateway`, the test gateway routes fixture on CMS_PLUGIN_PATH).
 * Figures on a shared machine move by tens of percent: read the ratio first, and compare before and after
 * a change back to back. Run with `npm run bench:events`; cleans up after itself.
 *
 * Settings: BENCH_WRITES (1000), BENCH_SUBSCRIPTIONS (5), BENCH_CONCURRENCY (8 concurrent writers),
 * BENCH_POOL (10, database pool of each process).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadKernelConfig } from '../kernel/config.ts';
import { createKnex } from '../kernel/database.ts';
import { migrationSets, resolvePluginSet } from '../kernel/kernel.ts';
import { discoverPlugins, PROJECT_ROOT } from '../kernel/loader.ts';
import { addEndpoint } from '../test/fixtures/test-gateway-routes/endpoints.ts';
import gatewayRoutesFixture from '../test/fixtures/test-gateway-routes/index.ts';
import { createTestDatabase, teardownTestDatabases } from '../test/helpers/database.ts';
import { startTestKernel, type TestKernel } from '../test/helpers/kernel.ts';
import { freePort } from '../test/helpers/ports.ts';

const WRITES = Number(process.env.BENCH_WRITES ?? 1000);
const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const POOL = Number(process.env.BENCH_POOL ?? 10);
const SECRET_VAR = 'OBJECT_EVENTS_SECRET_BENCH';
const SECRET = 'bench-signing-secret';
const WARMUP = 100;
const FIXTURE_DIR = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  'test',
  'fixtures',
  'test-gateway-routes',
);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** `count` creates, `CONCURRENCY` at a time; returns each one's latency in ms. */
async function createObjects(t: TestKernel, cookie: string, classId: string, count: number): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const started = performance.now();
      const res = await t.inject({
        method: 'POST',
        url: '/data-objects',
        headers: { cookie },
        payload: { classId, attributes: { title: `t${i}`, price: i } },
      });
      latencies.push(performance.now() - started);
      if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return latencies.sort((a, b) => a - b);
}

/** Until the receiver has `expected` calls and no delivery row is left unsent. */
async function waitForDeliveries(t: TestKernel, received: () => number, expected: number): Promise<void> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    // The database is asked only once every call has arrived, so the wait adds no load while sending.
    if (received() >= expected) {
      const [{ left }] = await t
        .db('object_event_deliveries')
        .whereNot({ status: 'delivered' })
        .count<{ left: number }[]>({ left: '*' });
      if (left === 0) return;
    }
    if (Date.now() > deadline) {
      const left = await t
        .db('object_event_deliveries')
        .whereNot({ status: 'delivered' })
        .select('status', 'last_problem')
        .count({ n: '*' })
        .groupBy('status', 'last_problem');
      throw new Error(`only ${received()} of ${expected} deliveries arrived in 180 s; left: ${JSON.stringify(left)}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A gateway process that sends the deliveries, on the bench's database. */
function startGateway(url: string, dataDir: string, port: number): ChildProcess {
  const child = spawn('node', [path.join(PROJECT_ROOT, 'bin', 'cms.js'), 'start', '--service', 'gateway'], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATABASE_URL: url,
      DATABASE_POOL_MAX: String(POOL),
      CMS_DATA_DIR: dataDir,
      CMS_PLUGIN_PATH: FIXTURE_DIR,
      PORT: String(port),
      HOST: '127.0.0.1',
      // The fixture stands in for the gateway plugin (both provide gatewayRoutes).
      CMS_DISABLED_PLUGINS: 'gateway',
      [SECRET_VAR]: SECRET,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return child;
}

async function main(): Promise<void> {
  let received = 0;
  let firstAt = 0;
  let lastAt = 0;
  let unsigned = 0;
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const expected =
        'sha256=' + createHmac('sha256', SECRET).update(`${req.headers['x-cms-timestamp']}.${body}`).digest('hex');
      if (req.headers['x-cms-signature'] !== expected) {
        unsigned += 1;
        res.writeHead(400).end();
        return;
      }
      received += 1;
      lastAt = performance.now();
      if (received === 1) firstAt = lastAt;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  // A database with every plugin's tables (the gateway process loads its whole set), production pool size.
  const all = await discoverPlugins();
  const corePlugins = ['data', 'object-events'];
  const migrations = migrationSets(
    await resolvePluginSet(
      { service: 'all', extraPlugins: [gatewayRoutesFixture] },
      loadKernelConfig({ CMS_DISABLED_PLUGINS: 'gateway' }),
    ),
  );
  const prepared = await createTestDatabase({ migrations });
  await prepared.close();
  const pool = createKnex(prepared.url, POOL);
  const t = await startTestKernel({
    plugins: corePlugins.filter((id) => all.some((p) => p.id === id)),
    database: { db: pool, url: prepared.url, close: () => pool.destroy() },
    extraPlugins: [gatewayRoutesFixture],
    env: { LOG_LEVEL: 'warn' },
  });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cms-bench-events-'));
  let gateway: ChildProcess | undefined;
  const stopGateway = () => {
    if (gateway && gateway.exitCode === null) gateway.kill('SIGTERM');
  };
  process.on('exit', stopGateway);
  try {
    const admin = await t.admin();
    const cls = await t.inject({
      method: 'POST',
      url: '/data-classes',
      headers: { cookie: admin.cookie },
      payload: {
        name: 'bench_articles',
        label: 'Articles',
        fields: [
          { name: 'title', type: 'text' },
          { name: 'price', type: 'number' },
        ],
      },
    });
    const classId = cls.json().id as string;
    await createObjects(t, admin.cookie, classId, WARMUP);

    const { endpointId, routeIds } = await addEndpoint(
      t.db,
      receiverUrl,
      Array.from({ length: SUBSCRIPTIONS }, (_, i) => ({ method: 'POST', path: `/hook/${i}` })),
    );
    const subscriptionIds: string[] = [];
    for (const [i, routeId] of routeIds.entries()) {
      const res = await t.inject({
        method: 'POST',
        url: '/object-event-subscriptions',
        headers: { cookie: admin.cookie },
        payload: { name: `bench-${i}`, events: ['object.created'], endpointId, routeId, signingSecretRef: SECRET_VAR },
      });
      if (res.statusCode !== 201) throw new Error(`subscription failed: ${res.body}`);
      subscriptionIds.push(res.json().id);
    }
    const setEnabled = async (enabled: boolean) => {
      for (const id of subscriptionIds) {
        await t.inject({
          method: 'PATCH',
          url: `/object-event-subscriptions/${id}`,
          headers: { cookie: admin.cookie },
          payload: { enabled },
        });
      }
    };
    const expected = WRITES * SUBSCRIPTIONS;
    // The write path alone (no gateway process sending yet), without and with the subscriptions in
    // alternating rounds, so a machine whose load drifts weighs on both sides alike.
    const without: number[] = [];
    const withSubs: number[] = [];
    const rounds = 10;
    for (let round = 0; round < rounds; round++) {
      await setEnabled(false);
      without.push(...(await createObjects(t, admin.cookie, classId, WRITES / rounds)));
      await setEnabled(true);
      withSubs.push(...(await createObjects(t, admin.cookie, classId, WRITES / rounds)));
    }
    without.sort((a, b) => a - b);
    withSubs.sort((a, b) => a - b);

    // The gateway process alone on the queued deliveries: from the first arrival to the last.
    gateway = startGateway(prepared.url, dataDir, await freePort());
    await waitForDeliveries(t, () => received, expected);
    const drainOnly = lastAt - firstAt;

    // End to end: writes and deliveries at the same time.
    received = 0;
    const started = performance.now();
    const endToEndWrites = await createObjects(t, admin.cookie, classId, WRITES);
    const writesDone = performance.now() - started;
    await waitForDeliveries(t, () => received, expected);
    const allDelivered = performance.now() - started;

    const p50Without = percentile(without, 50);
    const p50With = percentile(withSubs, 50);
    const line = (label: string, value: string) => console.log(`| ${label} | ${value} |`);
    const where = 'sent by a gateway process';
    console.log(
      `\n## bench:events (${WRITES} writes, ${SUBSCRIPTIONS} subscriptions, ${CONCURRENCY} concurrent writers, ${where})\n`,
    );
    console.log('| Figure | Value |\n|---|---|');
    line(
      'create p50 / p99, no subscription (the 5 paused)',
      `${p50Without.toFixed(2)} ms / ${percentile(without, 99).toFixed(2)} ms`,
    );
    line(
      `create p50 / p99, ${SUBSCRIPTIONS} subscriptions (nothing sending; rounds alternating with the line above)`,
      `${p50With.toFixed(2)} ms / ${percentile(withSubs, 99).toFixed(2)} ms`,
    );
    line('write path overhead (ratio of create p50)', `${(p50With / p50Without).toFixed(2)}x`);
    line(
      `${expected} queued deliveries sent by the gateway alone in`,
      `${(drainOnly / 1000).toFixed(2)} s (${Math.round(expected / (drainOnly / 1000))} /s)`,
    );
    line(
      `create p50 / p99, ${SUBSCRIPTIONS} subscriptions, gateway sending meanwhile`,
      `${percentile(endToEndWrites, 50).toFixed(2)} ms / ${percentile(endToEndWrites, 99).toFixed(2)} ms`,
    );
    line(`${WRITES} writes done after`, `${(writesDone / 1000).toFixed(2)} s`);
    line(
      `end to end: all ${expected} deliveries delivered after`,
      `${(allDelivered / 1000).toFixed(2)} s (target < 10 s: ${allDelivered < 10_000 ? 'PASS' : 'MISS'})`,
    );
    if (unsigned > 0) throw new Error(`${unsigned} deliveries arrived without a valid signature`);
  } finally {
    stopGateway();
    await t.close();
    receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
    await teardownTestDatabases();
  }
}

process.on('SIGINT', () => void teardownTestDatabases().finally(() => process.exit(130)));
await main();
