import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { createKnex } from '../../kernel/database.ts';
import { createKernel } from '../../kernel/kernel.ts';
import { discoverPlugins } from '../../kernel/loader.ts';
import { SESSION_COOKIE } from '../../kernel/sessions.ts';
import { fixtureCatalog } from '../../plugins/client-api/test/fixture-catalog.ts';

/**
 * Child process of the gateway benchmark: the product kernel with the data, client-api and gateway
 * plugins (the gateway's real catalog: endpoint `bench` on the upstream child with an API key header,
 * route `GET /items/{id}`, outbound policy with the upstream's host allowed), production mode, rate
 * limits out of the way. Without the gateway plugin installed, the client-api test fixture's catalog
 * stands in. Seeds one class with published objects and one key client allowed to read it and call
 * the route, then reports `{ port, key, className, catalog }` over IPC.
 */
const url = process.env.BENCH_DATABASE_URL;
const upstream = process.env.BENCH_UPSTREAM_URL;
if (!url || !upstream || !process.send) throw new Error('server runs as a child of bench/gateway.ts');
const objects = Number(process.env.BENCH_OBJECTS ?? 200);

const env = {
  NODE_ENV: 'production',
  LOG_LEVEL: 'silent',
  HOST: '127.0.0.1',
  CMS_DATA_DIR: process.env.BENCH_DATA_DIR ?? '.bench-data',
  PUBLIC_DATA_RATE_LIMIT_PER_MINUTE: '1000000',
  CLIENT_DEFAULT_REQUESTS_PER_MINUTE: '1000000',
  DATABASE_POOL_MAX: '10',
  OUTBOUND_ALLOW_HOSTS: new URL(upstream).hostname,
  GATEWAY_SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  // For comparing the kernel's heap setting with V8's own (HEAP_GROWING_PERCENT=0).
  ...(process.env.HEAP_GROWING_PERCENT ? { HEAP_GROWING_PERCENT: process.env.HEAP_GROWING_PERCENT } : {}),
  ...(process.env.BENCH_REDIS_URL
    ? { REDIS_URL: process.env.BENCH_REDIS_URL, CLIENT_RATE_LIMIT_PREFIX: `bench:${process.pid}:` }
    : {}),
};
const db = createKnex(url, 10);
const installed = await discoverPlugins();
const realGateway = installed.some((p) => p.id === 'gateway');
const plugins = installed.filter((p) => ['data', 'client-api', ...(realGateway ? ['gateway'] : [])].includes(p.id));
const extraPlugins = realGateway
  ? []
  : [
      fixtureCatalog([
        {
          id: 'ep-bench',
          name: 'bench',
          baseUrl: upstream,
          credential: ['x-api-token', 'bench-secret'],
          routes: [{ id: 'r-item', method: 'GET', pathTemplate: '/items/{id}' }],
        },
      ]).plugin,
    ];
const kernel = await createKernel({
  service: 'all',
  env,
  plugins,
  extraPlugins,
  database: { db, url, close: () => db.destroy() },
  logger: pino({ level: 'silent' }),
  jobs: false,
});
await kernel.listen(0);
const address = kernel.app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;

const { id } = await kernel
  .resolve('users')
  .create({ email: `bench-${process.pid}@example.test`, password: `bench-${process.pid}-pw-long`, roles: ['admin'] });
const cookie = `${SESSION_COOKIE}=${(await kernel.resolve('sessions').create(id, {})).token}`;
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
if (realGateway) {
  const endpoint = await call('POST', '/api/v1/gateway/endpoints', {
    name: 'bench',
    baseUrl: upstream,
    auth: { type: 'apiKeyHeader', headerName: 'X-Api-Token', key: 'bench-secret' },
  });
  await call('POST', `/api/v1/gateway/endpoints/${endpoint.id}/routes`, { method: 'GET', path: '/items/{id}' });
}
const client = await call('POST', '/api/v1/gateway/clients', {
  name: 'bench',
  authMode: 'key',
  scopes: [`data:read:${className}`, 'gateway:call:bench'],
});
process.send({ port, key: client.key, className, catalog: realGateway ? 'gateway' : 'fixture' });

const stop = async () => {
  await kernel.close();
  await db.destroy();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);
