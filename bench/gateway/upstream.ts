import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Child process of the gateway benchmark: a bare node:http upstream answering a small JSON document
 * for `GET /items/<id>`, in its own process so neither side of the comparison shares its event loop.
 */
if (!process.send) throw new Error('upstream runs as a child of bench/gateway.ts');

const server = http.createServer((req, res) => {
  const id = /^\/items\/([^/?]+)/.exec(req.url ?? '')?.[1];
  if (!id) {
    res.statusCode = 404;
    return res.end();
  }
  const body = JSON.stringify({ id, name: `Item ${id}`, price: 12.5, tags: ['a', 'b'] });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('disconnect', stop);
