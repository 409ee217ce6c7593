/**
 * What the AI plugin adds to a generate call, and whether streaming holds under load.
 * - A local OpenAI wire-format server (test/helpers/openai-stand-in.ts) with a fixed latency
 *   (BENCH_AI_LATENCY_MS, default 200 ms) before each answer.
 * - The product: the real kernel with the identity, content and ai plugins, production mode, listening on
 *   127.0.0.1; an administrator's session cookie; text settings pointing at the stand-in.
 * - Bare: the same chat completion body POSTed straight to the stand-in with undici (keep-alive).
 * - Product: `POST /ai/generate` over HTTP (session, permission, body check, settings read, slot,
 *   provider call through the guard, answer, `/ai/generated` row written).
 * Both are asked BENCH_REQUESTS times (default 200), BENCH_CONCURRENCY at a time (default 4), in the
 * same run; the p50 difference is the product's overhead per call. `GET /ai/settings` (session lookup
 * and one read, no provider) is measured too: the floor of any signed-in route on the machine.
 * - Then BENCH_STREAMS (default 100) streamed generations at once (`stream: true`, ~300 deltas
 *   each), twice: every one must end with its `done` event; RSS and heap are sampled every 20 ms.
 * Run with `npm run bench:ai`.
 */
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { Agent, request } from 'undici';
import { createKernel } from '../kernel/kernel.ts';
import { discoverPlugins } from '../kernel/loader.ts';
import { SESSION_COOKIE } from '../kernel/sessions.ts';
import { createTestDatabase, teardownTestDatabases } from '../test/helpers/database.ts';
import { startOpenAiStandIn } from '../test/helpers/openai-stand-in.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 100);
const LATENCY_MS = Number(process.env.BENCH_AI_LATENCY_MS ?? 200);
const WARMUP = Math.min(20, REQUESTS);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** Latencies in milliseconds of `count` calls, `concurrency` at a time. */
async function timed(count: number, concurrency: number, call: () => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < count) {
        const t0 = performance.now();
        await call();
        out.push(performance.now() - t0);
      }
    }),
  );
  return out.sort((a, b) => a - b);
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

async function main(): Promise<void> {
  const ai = await startOpenAiStandIn();
  ai.latencyMs = LATENCY_MS;
  const database = await createTestDatabase();
  const kernel = await createKernel({
    service: 'all',
    database,
    env: {
      NODE_ENV: 'production',
      LOG_LEVEL: 'silent',
      HOST: '127.0.0.1',
      CMS_DATA_DIR: path.join(os.tmpdir(), 'cms-bench-ai'),
      // The bench's one user runs every call: the per-user bound must not be what is measured.
      AI_MAX_IN_FLIGHT: String(Math.max(STREAMS, CONCURRENCY) + 8),
      AI_MAX_IN_FLIGHT_PER_USER: String(Math.max(STREAMS, CONCURRENCY) + 8),
      INTEGRATION_SECRETS_ENCRYPTION_KEY: 'be'.repeat(32),
    },
    plugins: (await discoverPlugins()).filter((p) => ['identity', 'content', 'ai'].includes(p.id)),
    logger: pino({ level: 'silent' }),
    jobs: false,
  });
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 256 });
  try {
    await kernel.listen(0);
    const address = kernel.app.server.address();
    const product = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const { id } = await kernel.resolve('users').create({
      email: 'bench-ai@example.test',
      password: 'bench-ai-password-long',
      roles: ['admin'],
    });
    const cookie = `${SESSION_COOKIE}=${(await kernel.resolve('sessions').create(id, {})).token}`;
    const headers = { cookie, 'content-type': 'application/json' };
    const put = await request(`${product}/ai/settings`, {
      dispatcher: agent,
      method: 'PUT',
      headers,
      body: JSON.stringify({
        provider: 'openai-compatible',
        baseUrl: ai.baseUrl,
        model: 'bench-model',
        apiKey: 'sk-bench-key',
        timeoutSeconds: 30,
      }),
    });
    if (put.statusCode !== 200) throw new Error(`PUT /ai/settings: ${put.statusCode} ${await put.body.text()}`);
    await put.body.dump();

    const prompt = 'Write a short introduction for a bakery in Basel that opens at six.';
    const direct = async () => {
      const res = await request(`${ai.baseUrl}/chat/completions`, {
        dispatcher: agent,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench-key' },
        body: JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: prompt }] }),
      });
      if (res.statusCode !== 200) throw new Error(`direct: ${res.statusCode}`);
      (await res.body.json()) as unknown;
    };
    const viaRoute = async () => {
      const res = await request(`${product}/ai/generate`, {
        dispatcher: agent,
        method: 'POST',
        headers,
        body: JSON.stringify({ prompt }),
      });
      if (res.statusCode !== 200) throw new Error(`route: ${res.statusCode} ${await res.body.text()}`);
      (await res.body.json()) as unknown;
    };
    // The floor of any signed-in route on this machine: session lookup and one settings read.
    const settingsRead = async () => {
      const res = await request(`${product}/ai/settings`, { dispatcher: agent, headers: { cookie } });
      if (res.statusCode !== 200) throw new Error(`settings: ${res.statusCode}`);
      await res.body.dump();
    };
    await timed(WARMUP, CONCURRENCY, direct);
    await timed(WARMUP, CONCURRENCY, viaRoute);
    await timed(WARMUP, CONCURRENCY, settingsRead);
    ai.requests.length = 0;
    const d = await timed(REQUESTS, CONCURRENCY, direct);
    const r = await timed(REQUESTS, CONCURRENCY, viaRoute);
    const f = await timed(REQUESTS, CONCURRENCY, settingsRead);
    ai.requests.length = 0;
    const row = (name: string, s: number[]) =>
      `${name.padEnd(30)} p50 ${percentile(s, 50).toFixed(1).padStart(7)} ms   p90 ${percentile(s, 90).toFixed(1).padStart(7)} ms   p99 ${percentile(s, 99).toFixed(1).padStart(7)} ms`;
    console.log(
      `chat completion, stand-in latency ${LATENCY_MS} ms, ${REQUESTS} calls each, concurrency ${CONCURRENCY}`,
    );
    console.log(row('bare: undici -> stand-in', d));
    console.log(row('product: POST /ai/generate', r));
    console.log(row('reference: GET /ai/settings', f));
    console.log(
      `overhead per call: p50 ${(percentile(r, 50) - percentile(d, 50)).toFixed(1)} ms, p90 ${(percentile(r, 90) - percentile(d, 90)).toFixed(1)} ms`,
    );

    // Streaming: STREAMS at once, each ~300 deltas.
    const long = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
    const stream = async (): Promise<number> => {
      const res = await request(`${product}/ai/generate`, {
        dispatcher: agent,
        method: 'POST',
        headers,
        body: JSON.stringify({ prompt: long, stream: true }),
      });
      if (res.statusCode !== 200) throw new Error(`stream: ${res.statusCode} ${await res.body.text()}`);
      let deltas = 0;
      let tail = '';
      for await (const chunk of res.body) {
        const text = tail + chunk.toString('utf8');
        deltas += text.split('event: delta').length - 1;
        tail = text.slice(-64);
        if (text.includes('event: error')) throw new Error('stream ended with an error event');
      }
      if (!tail.includes('event: done') && !tail.includes('}')) throw new Error('stream without its done event');
      return deltas;
    };
    global.gc?.();
    const base = process.memoryUsage();
    console.log(
      `${STREAMS} streamed generations at once, 2 rounds (rss before ${mb(base.rss)} MiB, heap ${mb(base.heapUsed)} MiB)`,
    );
    for (let round = 1; round <= 2; round++) {
      let peakRss = 0;
      let peakHeap = 0;
      const sampler = setInterval(() => {
        const m = process.memoryUsage();
        peakRss = Math.max(peakRss, m.rss);
        peakHeap = Math.max(peakHeap, m.heapUsed);
      }, 20);
      const t0 = performance.now();
      const results = await Promise.allSettled(Array.from({ length: STREAMS }, stream));
      const ms = performance.now() - t0;
      clearInterval(sampler);
      ai.requests.length = 0;
      const failed = results.filter((x) => x.status === 'rejected');
      const deltas = results.reduce((n, x) => n + (x.status === 'fulfilled' ? x.value : 0), 0);
      global.gc?.();
      const after = process.memoryUsage();
      console.log(
        `  round ${round}: ${STREAMS - failed.length}/${STREAMS} complete, ${deltas} deltas, ${ms.toFixed(0)} ms; ` +
          `peak rss ${mb(peakRss)} MiB, peak heap ${mb(peakHeap)} MiB; after: rss ${mb(after.rss)} MiB, heap ${mb(after.heapUsed)} MiB`,
      );
      if (failed.length) console.log(`  first failure: ${(failed[0] as PromiseRejectedResult).reason}`);
    }
    console.log('(stand-in, product and client share this one process: the memory figures hold all three)');
  } finally {
    await agent.close();
    await kernel.close();
    await database.close();
    await teardownTestDatabases();
    await ai.close();
  }
}

await main();
