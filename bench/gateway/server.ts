import { randomBytes } from 'node:crypto';
import { reportReady, requireParent } from '../lib/child-server.ts';
import { startBenchKernel } from '../lib/kernel-server.ts';

/**
 * Child process of the gateway benchmark: the product kernel with the data, client-api and gateway
 * plugins (the gateway's real catalog: endpoint `bench` on the upstream child with an API key header,
 * route `GET /items/{id}`, outbound policy with the upstream's host allowed), production mode, rate
 * limits out of the way. Seeds one class with published objects and one key client allowed to read it
 * and call the route, then reports `{ port, key, className, pid }` over IPC.
 */
const upstream = process.env.BENCH_UPSTREAM_URL;
requireParent('server', 'bench/gateway.ts', upstream);
const objects = Number(process.env.BENCH_OBJECTS ?? 200);

const server = await startBenchKernel({
  file: 'server',
  parent: 'bench/gateway.ts',
  plugins: ['data', 'client-api', 'gateway'],
  env: {
    PUBLIC_DATA_RATE_LIMIT_PER_MINUTE: '1000000',
    CLIENT_DEFAULT_REQUESTS_PER_MINUTE: '1000000',
    OUTBOUND_ALLOW_HOSTS: new URL(upstream!).hostname,
    GATEWAY_SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    // For comparing the kernel's heap setting with V8's own (HEAP_GROWING_PERCENT=0).
    ...(process.env.HEAP_GROWING_PERCENT ? { HEAP_GROWING_PERCENT: process.env.HEAP_GROWING_PERCENT } : {}),
    ...(process.env.BENCH_REDIS_URL
      ? { REDIS_URL: process.env.BENCH_REDIS_URL, REDIS_KEY_PREFIX: `bench:${process.pid}:` }
      : {}),
  },
});
const { kernel } = server;
const cookie = await server.adminCookie();
const call = async (method: 'POST', path: string, payload: object) => {
  const res = await kernel.app.inject({ method, url: path, payload, headers: { cookie } });
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${res.body}`);
  return res.json();
};
const className = `BenchItem${process.pid}`;
await call('POST', '/data-classes', {
  name: className,
  label: className,
  fields: [
    { name: 'title', type: 'text' },
    { name: 'price', type: 'number' },
    { name: 'body', type: 'markdown' },
  ],
});
for (let i = 0; i < objects; i++) {
  await call('POST', '/data-objects', {
    className,
    key: `item-${i}`,
    published: true,
    attributes: { title: `Item ${i}`, price: i % 50, body: 'Lorem ipsum dolor sit amet. '.repeat(10) },
  });
}
const endpoint = await call('POST', '/api/v1/gateway/endpoints', {
  name: 'bench',
  baseUrl: upstream,
  auth: { type: 'apiKeyHeader', headerName: 'X-Api-Token', key: 'bench-secret' },
});
await call('POST', `/api/v1/gateway/endpoints/${endpoint.id}/routes`, { method: 'GET', path: '/items/{id}' });
const client = await call('POST', '/api/v1/gateway/clients', {
  name: 'bench',
  authMode: 'key',
  scopes: [`data:read:${className}`, 'gateway:call:bench'],
});
reportReady({ port: server.port, key: client.key, className, pid: process.pid }, server.stop);
