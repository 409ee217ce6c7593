/**
 * What `gatewayRoutes.callRoute` adds to a call: the same local upstream (node:http on 127.0.0.1,
 * a small JSON answer) asked N times in a row directly with undici and N times through callRoute
 * (endpoint and route read from PostgreSQL, bearer credential unsealed and added, outbound policy
 * with address pinning, body read with the cap). Prints p50/p90/p99 of both and the p50 difference.
 * Run with `npm run bench:gateway-call` (BENCH_REQUESTS, default 3000; BENCH_CONCURRENCY, default 1).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { Agent, request } from 'undici';
import { createKernel } from '../kernel/kernel.ts';
import { createTestDatabase, teardownTestDatabases } from '../test/helpers/database.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 1);
const WARMUP = Math.min(200, REQUESTS);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** Latencies in microseconds of `count` calls, `concurrency` at a time. */
async function timed(count: number, concurrency: number, call: () => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < count) {
        const t0 = process.hrtime.bigint();
        await call();
        out.push(Number(process.hrtime.bigint() - t0) / 1000);
      }
    }),
  );
  return out.sort((a, b) => a - b);
}

async function main(): Promise<void> {
  const payload = JSON.stringify({ id: 42, name: 'Ada', tags: ['a', 'b', 'c'] });
  const upstream = http.createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(payload);
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const database = await createTestDatabase();
  const kernel = await createKernel({
    service: 'gateway',
    database,
    env: { NODE_ENV: 'development', LOG_LEVEL: 'silent', CMS_DATA_DIR: path.join(os.tmpdir(), 'cms-bench-gateway') },
    logger: pino({ level: 'silent' }),
    jobs: false,
  });
  try {
    const gatewayRoutes = kernel.resolve('gatewayRoutes');
    const db = database.db;
    const secretBox = kernel.resolve('secretBox');
    const [endpoint] = await db('gateway_endpoints')
      .insert({
        name: 'bench',
        base_url: base,
        auth_type: 'bearer',
        auth_secret: secretBox.encrypt('GATEWAY_SECRETS_ENCRYPTION_KEY', 'bench-token'),
        timeout_ms: 10_000,
      })
      .returning('id');
    const [route] = await db('gateway_routes')
      .insert({ endpoint_id: endpoint.id, method: 'GET', path: '/users/{id}' })
      .returning('id');

    const agent = new Agent({ keepAliveTimeout: 10_000 });
    const direct = async () => {
      const res = await request(`${base}/users/42`, {
        dispatcher: agent,
        headers: { authorization: 'Bearer bench-token' },
      });
      await res.body.arrayBuffer();
    };
    const viaGateway = async () => {
      await gatewayRoutes.callRoute(endpoint.id, route.id, { params: { id: '42' } });
    };
    await timed(WARMUP, CONCURRENCY, direct);
    await timed(WARMUP, CONCURRENCY, viaGateway);
    const d = await timed(REQUESTS, CONCURRENCY, direct);
    const g = await timed(REQUESTS, CONCURRENCY, viaGateway);
    const row = (name: string, s: number[]) =>
      `${name.padEnd(22)} p50 ${percentile(s, 50).toFixed(0).padStart(6)} µs   p90 ${percentile(s, 90).toFixed(0).padStart(6)} µs   p99 ${percentile(s, 99).toFixed(0).padStart(6)} µs`;
    console.log(`GET ${base}/users/42, ${REQUESTS} calls each, concurrency ${CONCURRENCY}`);
    console.log(row('direct undici', d));
    console.log(row('gatewayRoutes.callRoute', g));
    console.log(`added latency (p50): ${(percentile(g, 50) - percentile(d, 50)).toFixed(0)} µs`);
    await agent.close();
  } finally {
    await kernel.close();
    await database.close();
    await teardownTestDatabases();
    upstream.close();
  }
}

await main();
