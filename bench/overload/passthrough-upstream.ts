import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Child process of the passthrough overload scenario: a bare node:http upstream answering
 * `GET /file` with OVERLOAD_UPSTREAM_BYTES bytes (default 50 MB, one buffer made once, with its
 * Content-Length), in a process of its own so its memory is not the product's.
 */
if (!process.send) throw new Error('passthrough-upstream runs as a child of bench/overload.ts');
const bytes = Number(process.env.OVERLOAD_UPSTREAM_BYTES ?? 50 * 1024 * 1024);
const file = Buffer.alloc(bytes, 'x');

const server = http.createServer((req, res) => {
  if (req.url !== '/file') {
    res.statusCode = 404;
    return res.end();
  }
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.length });
  res.end(file);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);
