import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The file keys the stand-in knows (Figma keys are letters and digits). */
export const FIGMA_KEYS = {
  landing: 'LandingPage0000000001',
  /** A node tree 10,000 levels deep. */
  deep: 'DeepTree00000000000001',
  /** An answer of 200 MB. */
  huge: 'HugeFile00000000000001',
  /** Always 429 with Retry-After. */
  limited: 'RateLimited0000000001',
  /** Always 500. */
  broken: 'BrokenFile00000000001',
  /** An image fill whose download URL points at a private (metadata) address. */
  privateImage: 'PrivateImage000000001',
  /** An image fill whose URL is on the API's host and redirects to a metadata address. */
  redirectImage: 'RedirectImage00000001',
  /** An image fill whose URL is not http(s) (`file:///etc/passwd`). */
  badImageUrl: 'BadImageUrl0000000001',
  /** `GET /v1/files/:key` answers a redirect to the stand-in's token sink. */
  redirect: 'RedirectFile000000001',
  /** A page of 12,000 text layers side by side (more than a page may hold). */
  wide: 'WideTree0000000000001',
} as const;

const HUGE_BYTES = 200 * 1024 * 1024;

interface Node {
  id: string;
  name?: string;
  type: string;
  children?: Node[];
  fills?: Array<{ type: string; imageRef?: string }>;
}

export interface FigmaStandIn {
  url: string;
  token: string;
  /** Requests seen, `GET /v1/files/...` with their query. */
  requests: string[];
  /** Bytes of the 200 MB answer actually written before the reader hung up. */
  hugeBytesSent(): number;
  /** The `X-Figma-Token` of each request that reached `/token-sink` (where the redirecting file points). */
  sinkTokens: Array<string | undefined>;
  /** Holds every API answer until the returned function is called (a screen's loading state). */
  hold(): () => void;
  close(): Promise<void>;
}

/** Every node of a tree by id, walked iteratively. */
function indexNodes(root: Node): Map<string, Node> {
  const out = new Map<string, Node>();
  const stack = [root];
  while (stack.length) {
    const n = stack.pop()!;
    out.set(n.id, n);
    for (const c of n.children ?? []) stack.push(c);
  }
  return out;
}

/** A copy of `node` cut `depth` levels below it (the `depth` query of `GET /v1/files/:key`). */
function cut(node: Node, depth: number | undefined): Node {
  if (depth === undefined) return node;
  const copy = structuredClone(node);
  const stack: Array<{ n: Node; d: number }> = [{ n: copy, d: 0 }];
  while (stack.length) {
    const { n, d } = stack.pop()!;
    if (d >= depth) delete n.children;
    else for (const c of n.children ?? []) stack.push({ n: c, d: d + 1 });
  }
  return copy;
}

/** The JSON text of a file whose one frame nests `levels` frames (built as text: no recursion). */
function deepFileText(levels: number): string {
  const open: string[] = [];
  for (let i = 0; i < levels; i++)
    open.push(`{"id":"9:${i}","name":"Level ${i}","type":"FRAME","layoutMode":"VERTICAL","children":[`);
  const inner = '{"id":"9:x","name":"Bottom","type":"TEXT","characters":"Deep down","style":{"fontSize":16}}';
  const doc = `{"id":"0:0","name":"Document","type":"DOCUMENT","children":[{"id":"0:1","name":"Page 1","type":"CANVAS","children":[${open.join('')}${inner}${']}'.repeat(levels)}]}]}`;
  return `{"name":"Deep","document":${doc},"styles":{}}`;
}

/** The JSON text of a file whose page holds `count` text layers side by side. */
function wideFileText(count: number): string {
  const texts: string[] = [];
  for (let i = 0; i < count; i++)
    texts.push(`{"id":"8:${i}","name":"T${i}","type":"TEXT","characters":"x","style":{"fontSize":16}}`);
  return `{"name":"Wide","document":{"id":"0:0","name":"Document","type":"DOCUMENT","children":[{"id":"0:1","name":"Page 1","type":"CANVAS","children":[${texts.join(',')}]}]},"styles":{}}`;
}

/**
 * A local stand-in for the Figma REST API, answering in the shapes of the public REST API reference:
 * `GET /v1/files/:key` (with `ids` and `depth`), `GET /v1/files/:key/nodes?ids=`,
 * `GET /v1/files/:key/images` (image fills), `GET /v1/images/:key?ids=&format=` (renders), and the
 * image files those hand out (`/images/...`). Every API call needs `X-Figma-Token`; Figma's error
 * bodies are `{ status, err }`. Used by the tests and by `npm run figma:fixture-server`.
 */
export async function startFigmaStandIn(
  opts: { token?: string; port?: number; host?: string } = {},
): Promise<FigmaStandIn> {
  const token = opts.token ?? 'figd_local-stand-in-token';
  const landing = JSON.parse(readFileSync(path.join(here, '../fixtures/figma/landing-page.json'), 'utf8'));
  const landingNodes = indexNodes(landing.document);
  const privateFile = structuredClone(landing);
  const png = (background: string, width: number, height: number) =>
    sharp({ create: { width, height, channels: 3, background } })
      .png()
      .toBuffer();
  const files = new Map<string, Buffer>([
    ['hero.png', await png('#2663eb', 64, 40)],
    ['render-1-20.png', await png('#111827', 24, 8)],
  ]);
  const requests: string[] = [];
  const sinkTokens: Array<string | undefined> = [];
  let hugeSent = 0;
  let base = '';

  const json = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  };
  const fail = (res: ServerResponse, status: number, err: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ status, err }));
  };
  // The files built on the landing page whose image fill URL is hostile.
  const hostileImage: Record<string, () => string> = {
    [FIGMA_KEYS.privateImage]: () => 'http://169.254.169.254/latest/meta-data/hero.png',
    [FIGMA_KEYS.redirectImage]: () => `${base}/moved/hero.png`,
    [FIGMA_KEYS.badImageUrl]: () => 'file:///etc/passwd',
  };
  const fileOf = (key: string) =>
    key === FIGMA_KEYS.landing ? landing : Object.hasOwn(hostileImage, key) ? privateFile : undefined;

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    if (req.method !== 'GET') return fail(res, 405, 'Method not allowed');
    if (url.pathname === '/token-sink') {
      sinkTokens.push(req.headers['x-figma-token'] as string | undefined);
      return json(res, 200, { name: 'Sink', document: { id: '0:0', type: 'DOCUMENT', children: [] } });
    }
    if (url.pathname.startsWith('/moved/')) {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/iam' });
      return res.end();
    }
    const image = /^\/images\/([a-z0-9.-]+)$/.exec(url.pathname);
    if (image) {
      const bytes = files.get(image[1]);
      if (!bytes) return fail(res, 404, 'Not found');
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': bytes.length });
      return res.end(bytes);
    }
    requests.push(`${url.pathname}${url.search}`);
    if (req.headers['x-figma-token'] !== token) return fail(res, 403, 'Invalid token');
    const m = /^\/v1\/(files|images)\/([A-Za-z0-9]+)(\/nodes|\/images)?$/.exec(url.pathname);
    if (!m) return fail(res, 404, 'Not found');
    const [, area, key, sub] = m;
    if (key === FIGMA_KEYS.limited) return fail(res, 429, 'Rate limit exceeded', { 'retry-after': '30' });
    if (key === FIGMA_KEYS.broken) return fail(res, 500, 'Internal server error');
    if (key === FIGMA_KEYS.deep && area === 'files' && !sub) {
      const text = deepFileText(10_000);
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(text);
    }
    if (key === FIGMA_KEYS.redirect) {
      // Another origin (a name for the same server): a redirect that carried the token would hand it over.
      res.writeHead(302, { location: `${base.replace('127.0.0.1', 'localhost')}/token-sink` });
      return res.end();
    }
    if (key === FIGMA_KEYS.wide && area === 'files' && !sub) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(wideFileText(12_000));
    }
    if (key === FIGMA_KEYS.huge && area === 'files') {
      // 200 MB of a valid file's JSON, written as the reader takes it; stops when it hangs up.
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': HUGE_BYTES });
      const head = Buffer.from('{"name":"Huge","document":{"id":"0:0","type":"DOCUMENT","children":[]},"pad":"');
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const pump = () => {
        while (sent < HUGE_BYTES - 2) {
          const piece = sent === 0 ? head : chunk.subarray(0, Math.min(chunk.length, HUGE_BYTES - 2 - sent));
          sent += piece.length;
          hugeSent = sent;
          if (!res.write(piece)) return void res.once('drain', pump);
        }
        res.end('"}');
      };
      res.on('close', () => undefined);
      return pump();
    }
    const file = fileOf(key);
    if (!file) return fail(res, 404, 'Not found');
    if (area === 'files' && !sub) {
      const depth = url.searchParams.has('depth') ? Number(url.searchParams.get('depth')) : undefined;
      const ids = url.searchParams.get('ids')?.split(',');
      const document = cut(file.document, depth);
      if (ids) document.children = document.children?.filter((p: Node) => ids.includes(p.id));
      return json(res, 200, { ...file, document });
    }
    if (area === 'files' && sub === '/nodes') {
      const ids = (url.searchParams.get('ids') ?? '').split(',').filter(Boolean);
      if (ids.length === 0) return fail(res, 400, 'ids is required');
      const nodes: Record<string, unknown> = {};
      for (const id of ids) {
        const node = landingNodes.get(id);
        nodes[id] = node
          ? { document: node, components: file.components, componentSets: {}, styles: file.styles, schemaVersion: 0 }
          : null;
      }
      return json(res, 200, { name: file.name, lastModified: file.lastModified, version: file.version, nodes });
    }
    if (area === 'files' && sub === '/images') {
      const images: Record<string, string> = {
        a1b2c3d4e5f60718293a4b5c6d7e8f9012345678: Object.hasOwn(hostileImage, key)
          ? hostileImage[key]!()
          : `${base}/images/hero.png`,
      };
      return json(res, 200, { error: false, status: 200, meta: { images } });
    }
    if (area === 'images' && !sub) {
      const ids = (url.searchParams.get('ids') ?? '').split(',').filter(Boolean);
      const format = url.searchParams.get('format') ?? 'png';
      if (ids.length === 0) return fail(res, 400, 'ids is required');
      const images: Record<string, string | null> = {};
      for (const id of ids) {
        const name = `render-${id.replace(/[^0-9]+/g, '-')}.${format}`;
        images[id] = files.has(name) ? `${base}/images/${name}` : null;
      }
      return json(res, 200, { err: null, images });
    }
    return fail(res, 404, 'Not found');
  };

  let gate: Promise<void> | undefined;
  const server: Server = createServer((req, res) => {
    if (!gate || !req.url?.startsWith('/v1/')) return handle(req, res);
    void gate.then(() => handle(req, res));
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  base = `http://${opts.host ?? '127.0.0.1'}:${address.port}`;
  return {
    url: base,
    token,
    requests,
    hugeBytesSent: () => hugeSent,
    sinkTokens,
    hold() {
      let release = () => {};
      gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      return () => {
        gate = undefined;
        release();
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
