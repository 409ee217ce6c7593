import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Upstream {
  url: string;
  port: number;
  requests: SeenRequest[];
  /** Replaces what the server answers. */
  handle(handler: (req: SeenRequest, res: http.ServerResponse) => void): void;
  close(): Promise<void>;
}

/**
 * A real HTTP server on loopback that records every request, for code that calls out (a gateway
 * endpoint, a webhook). It answers with `handler`, by default `{ ok: true, path }` as JSON.
 */
export async function startUpstream(
  handler: (req: SeenRequest, res: http.ServerResponse) => void = (req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ ok: true, path: req.url }));
  },
): Promise<Upstream> {
  const host = '127.0.0.1';
  let answer = handler;
  const requests: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(seen);
      answer(seen, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    requests,
    handle(h) {
      answer = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
