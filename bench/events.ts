/**
 * Object events end to end: 1,000 object writes (POST /data-objects) with 5 subscriptions to a local
 * receiver, and the time until all 5,000 deliveries are delivered (target < 10 s); plus the write
 * path's cost: create p50 with 5 subscriptions against none. One process holds the kernel (data,
 * object-events, event-delivery and the test gateway catalog), the receiver and the load: figures on a
 * shared machine move by tens of percent, read the ratio first. Run with `npm run bench:events`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createKnex } from '../kernel/database.ts';
import { addEndpoint } from '../plugins/object-events/test/events-kernel.ts';
import catalogFixture from '../plugins/object-events/test/fixtures/test-gateway-catalog/index.ts';
import { loadKernelConfig } from '../kernel/config.ts';
import { migrationSets, resolvePluginSet } from '../kernel/kernel.ts';
import { discoverPlugins } from '../kernel/loader.ts';
import { createTestDatabase, teardownTestDatabases } from '../test/helpers/database.ts';
import { startTestKernel, type TestKernel } from '../test/helpers/kernel.ts';

const WRITES = Number(process.env.BENCH_WRITES ?? 1000);
const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const WARMUP = 100;
const POOL = Number(process.env.BENCH_POOL ?? 10);

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
      const res = await t.inject({ method: 'POST', url: '/data-objects', headers: { cookie }, payload: { classId, attributes: { title: `t${i}`, price: i } } });
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
    const [{ left }] = await t.db('object_event_deliveries').whereNot({ status: 'delivered' }).count<{ left: number }[]>({ left: '*' });
    if (received() >= expected && left === 0) return;
    if (Date.now() > deadline) throw new Error(`only ${received()} of ${expected} deliveries arrived in 180 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function main(): Promise<void> {
  let received = 0;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  // A database of the test helpers, migrated for this plugin set, with the production pool size.
  const plugins = ['data', 'object-events', 'event-delivery'];
  const all = await discoverPlugins();
  const manifests = plugins.map((id) => all.find((p) => p.id === id)!);
  const migrations = migrationSets(await resolvePluginSet({ service: 'all', plugins: manifests, extraPlugins: [catalogFixture] }, loadKernelConfig({})));
  const prepared = await createTestDatabase({ migrations });
  await prepared.close();
  const pool = createKnex(prepared.url, POOL);
  const t = await startTestKernel({
    plugins,
    database: { db: pool, url: prepared.url, close: () => pool.destroy() },
    extraPlugins: [catalogFixture],
    env: { LOG_LEVEL: 'warn', OBJECT_EVENTS_POLL_MS: '250' },
  });
  try {
    const admin = await t.admin();
    const cls = await t.inject({
      method: 'POST', url: '/data-classes', headers: { cookie: admin.cookie },
      payload: { name: 'bench_articles', label: 'Articles', fields: [{ name: 'title', type: 'text' }, { name: 'price', type: 'number' }] },
    });
    const classId = cls.json().id as string;

    await createObjects(t, admin.cookie, classId, WARMUP);

    const { endpointId, routeIds } = await addEndpoint(t.db, receiverUrl, Array.from({ length: SUBSCRIPTIONS }, (_, i) => ({ method: 'POST', path: `/hook/${i}` })));
    const subscriptionIds: string[] = [];
    for (const [i, routeId] of routeIds.entries()) {
      const res = await t.inject({
        method: 'POST', url: '/object-event-subscriptions', headers: { cookie: admin.cookie },
        payload: { name: `bench-${i}`, events: ['object.created'], endpointId, routeId },
      });
      if (res.statusCode !== 201) throw new Error(`subscription failed: ${res.body}`);
      subscriptionIds.push(res.json().id);
    }
    const setEnabled = async (enabled: boolean) => {
      for (const id of subscriptionIds) {
        await t.inject({ method: 'PATCH', url: `/object-event-subscriptions/${id}`, headers: { cookie: admin.cookie }, payload: { enabled } });
      }
    };
    const expected = WRITES * SUBSCRIPTIONS;
    const worker = (t.kernel.pluginDeps('event-delivery').services as { worker: { start(): void; stop(): Promise<void> } }).worker;

    // The write path alone (worker paused), without and with the subscriptions in alternating rounds,
    // so a machine whose load drifts weighs on both sides alike.
    await worker.stop();
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
    const drainStarted = performance.now();
    worker.start();
    await waitForDeliveries(t, () => received, expected);
    const drainOnly = performance.now() - drainStarted;

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
    console.log(`\n## bench:events (${WRITES} writes, ${SUBSCRIPTIONS} subscriptions, ${CONCURRENCY} concurrent writers)\n`);
    console.log('| Figure | Value |\n|---|---|');
    line(`create p50 / p99, ${SUBSCRIPTIONS} subscriptions, worker sending meanwhile (same process)`, `${percentile(endToEndWrites, 50).toFixed(2)} ms / ${percentile(endToEndWrites, 99).toFixed(2)} ms`);
    line(`${expected} queued deliveries sent (worker alone) in`, `${(drainOnly / 1000).toFixed(2)} s (${Math.round(expected / (drainOnly / 1000))} /s)`);
    line('create p50 / p99, no subscription (the 5 paused)', `${p50Without.toFixed(2)} ms / ${percentile(without, 99).toFixed(2)} ms`);
    line(`create p50 / p99, ${SUBSCRIPTIONS} subscriptions (worker paused, rounds alternating with the line above)`, `${p50With.toFixed(2)} ms / ${percentile(withSubs, 99).toFixed(2)} ms`);
    line('write path overhead (ratio of create p50)', `${(p50With / p50Without).toFixed(2)}x`);
    line(`${WRITES} writes done after`, `${(writesDone / 1000).toFixed(2)} s`);
    line(`end to end: all ${expected} deliveries delivered after`, `${(allDelivered / 1000).toFixed(2)} s (target < 10 s: ${allDelivered < 10_000 ? 'PASS' : 'MISS'})`);
    line('delivery rate', `${Math.round(expected / (allDelivered / 1000))} /s`);
  } finally {
    await t.close();
    receiver.close();
    await teardownTestDatabases();
  }
}

process.on('SIGINT', () => void teardownTestDatabases().finally(() => process.exit(130)));
await main();
