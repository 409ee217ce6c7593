import { randomBytes } from 'node:crypto';
import { reportReady, requireParent } from '../lib/child-server.ts';
import { startBenchKernel } from '../lib/kernel-server.ts';

/**
 * Child process of the passthrough overload scenario: the product with the data, client-api, gateway
 * and health plugins in production mode (pool of 10, the in-flight limits at their defaults), a
 * gateway endpoint `big` on the upstream child with the route `GET /file`, and OVERLOAD_CLIENTS key
 * clients allowed to call it. Every answer's status (and whether a 429/503 carried Retry-After) is
 * counted at the socket, so the parent sees what the server sent, and asks for the counts over IPC
 * (`stats`). Reports `{ port, keys, pid }`.
 */
const upstream = process.env.BENCH_UPSTREAM_URL;
requireParent('passthrough-server', 'bench/overload.ts', upstream);
const clients = Number(process.env.OVERLOAD_CLIENTS ?? 10);

const server = await startBenchKernel({
  file: 'passthrough-server',
  parent: 'bench/overload.ts',
  plugins: ['data', 'client-api', 'gateway', 'health'],
  env: {
    CLIENT_DEFAULT_REQUESTS_PER_MINUTE: '1000000',
    OUTBOUND_ALLOW_HOSTS: new URL(upstream!).hostname,
    OUTBOUND_MAX_RESPONSE_BYTES: String(64 * 1024 * 1024),
    GATEWAY_SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  },
});
const { kernel } = server;
const cookie = await server.adminCookie();
const call = async (path: string, payload: object) => {
  const res = await kernel.app.inject({ method: 'POST', url: path, payload, headers: { cookie } });
  if (res.statusCode >= 300) throw new Error(`POST ${path}: ${res.statusCode} ${res.body}`);
  return res.json();
};
const endpoint = await call('/api/v1/gateway/endpoints', { name: 'big', baseUrl: upstream, timeoutMs: 60_000 });
await call(`/api/v1/gateway/endpoints/${endpoint.id}/routes`, { method: 'GET', path: '/file' });
const keys: string[] = [];
for (let i = 0; i < clients; i++)
  keys.push(
    (await call('/api/v1/gateway/clients', { name: `load-${i}`, authMode: 'key', scopes: ['gateway:call:big'] })).key,
  );

const statuses = new Map<string, number>();
kernel.app.server.on('request', (req, res) => {
  res.once('close', () => {
    const status = res.writableFinished ? String(res.statusCode) : `${res.statusCode} cut`;
    // Fastify hands its headers to writeHead, so they are read from the head as sent.
    const head = (res as unknown as { _header?: string })._header ?? '';
    const retry = /\r\nretry-after:/i.test(head) ? ' +Retry-After' : '';
    const key = `${req.url?.startsWith('/health') ? 'health ' : ''}${status}${retry}`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
  });
});
process.on('message', (message: { type?: string }) => {
  if (message?.type === 'stats') process.send!({ type: 'stats:done', statuses: Object.fromEntries(statuses) });
});
reportReady({ port: server.port, keys, pid: process.pid }, server.stop);
