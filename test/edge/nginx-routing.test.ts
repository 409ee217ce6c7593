import { expect } from 'chai';
import http from 'node:http';
import net from 'node:net';
import { EDGE_TABLE, UPSTREAMS, type Upstream } from '../../edge/routes.ts';
import { startNginx, startStub, type RunningNginx, type StubUpstream } from '../helpers/nginx.ts';
import { climbingTargets, confinedTargets, rawRequest, reEncodedTargets } from '../helpers/raw-http.ts';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The stub's JSON echo, when an upstream answered. */
  echo?: { upstream: Upstream; method: string; url: string; headers: http.IncomingHttpHeaders; bodyBytes: number };
}

/** One request with a raw path (no URL normalisation on the client side). */
function send(
  base: string,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: Buffer } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(base);
    const req = http.request({ hostname, port, path, method, headers: opts.headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        const echo = res.headers['x-upstream'] ? JSON.parse(text) : undefined;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, echo });
      });
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/**
 * A GET written on a plain socket, for request targets an HTTP client would rewrite or refuse
 * (`//metrics`) and for HTTP/1.0 without Host; answers the status and whether a stub answered.
 */
function rawGet(
  port: number,
  target: string,
  head = 'HTTP/1.1\r\nHost: edge.test\r\nConnection: close',
): Promise<{ status: number; fromUpstream: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`GET ${target} ${head}\r\n\r\n`));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (c) => (text += c));
    socket.on('error', reject);
    socket.on('end', () =>
      resolve({ status: Number(text.split(' ')[1]), fromUpstream: /\r\nx-upstream:/i.test(text) }),
    );
  });
}

const WEBSITE_ROOTS = new Map([
  ['shop', 204],
  ['gone', 404],
  ['broken', 500],
]);
const CAP_BYTES = 64 * 1024;

/** The generated nginx.conf, run by the real nginx in front of stub upstreams. */
describe('edge: nginx routing (real nginx, stub upstreams)', () => {
  let nginx: RunningNginx;
  const stubs = new Map<Upstream, StubUpstream>();
  const totalSeen = () => [...stubs.values()].reduce((n, s) => n + s.seen.length, 0);
  const get = (path: string, headers?: Record<string, string>) => send(nginx.url, 'GET', path, { headers });

  before(async () => {
    for (const name of UPSTREAMS) {
      stubs.set(
        name,
        await startStub(name, (req) => {
          if (name === 'core-api' && req.url === '/site-root') {
            const segment = String(req.headers['x-original-uri'] ?? '').split(/[/?]/)[1] ?? '';
            return { status: WEBSITE_ROOTS.get(segment) ?? 403 };
          }
          if (name === 'asset-processor' && req.url?.startsWith('/dam-asset/')) {
            // What asset-processor decides per file.
            const cache = req.url.startsWith('/dam-asset/private/')
              ? 'private, no-store'
              : 'public, max-age=31536000, immutable';
            return { status: 200, headers: { 'cache-control': cache } };
          }
          return undefined;
        }),
      );
    }
    const upstreams = Object.fromEntries([...stubs].map(([name, stub]) => [name, stub.address])) as Record<
      Upstream,
      string
    >;
    nginx = await startNginx({ upstreams, maxBody: '64k' });
  });

  after(async () => {
    await nginx?.stop();
    await Promise.all([...stubs.values()].map((s) => s.close()));
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed') console.error(nginx?.errorLog());
  });

  it('routes a sample path of every row of the edge table to its upstream, URI unchanged', async () => {
    for (const row of EDGE_TABLE) {
      for (const p of row.paths) {
        const samples =
          p === '/'
            ? ['/some-dashboard-page']
            : p.endsWith('*')
              ? [`${p.slice(0, -1)}sample`]
              : p.endsWith('/')
                ? [`${p}sample`]
                : [p, `${p}/sample?q=1`];
        for (const sample of samples) {
          const before = totalSeen();
          const answer = await get(sample);
          if (row.upstream === null) {
            expect(answer.status, sample).to.equal(404);
            expect(totalSeen(), `${sample} reached an upstream`).to.equal(before);
          } else {
            expect(answer.echo?.upstream, sample).to.equal(row.upstream);
            expect(answer.echo?.url, sample).to.equal(sample);
          }
        }
      }
    }
  });

  // Written out independently of the table, from the spec's endpoint tables and the known traps.
  const expected: Array<[string, Upstream]> = [
    ['/public/upload-data/x', 'asset-processor'],
    ['/public/upload-data/abc.def?sig=1', 'asset-processor'],
    ['/public/pages/en/x', 'core-api'],
    ['/public/page/shop/about', 'core-api'],
    ['/public/data-objects?className=Article', 'core-api'],
    ['/public/uploads/intent', 'core-api'],
    ['/public/upload-datax', 'core-api'],
    ['/cms-one/website-paths', 'core-api'],
    ['/cms-one/website-paths/7', 'core-api'],
    ['/cms-one/search', 'core-api'],
    ['/cms-one/search?q=hello', 'core-api'],
    ['/cms-one/search/reindex', 'core-api'],
    ['/cms-one/websites', 'core-api'],
    ['/cms-one/websites/1/themes/2', 'core-api'],
    ['/cms-one/themes/all', 'core-api'],
    ['/cms-one/pages/staged/promote', 'core-api'],
    ['/cms-one/snippets/1/versions/2', 'core-api'],
    ['/cms-one/templates', 'core-api'],
    ['/cms-one/kits/1/templates', 'core-api'],
    ['/cms-one/settings/alpine-presets', 'core-api'],
    ['/cms-one/some-editor-page', 'editor'],
    ['/cms-one/', 'editor'],
    ['/cms-one', 'editor'],
    ['/cms-one/pages-overview', 'editor'],
    ['/cms-one/searching', 'editor'],
    ['/auth/login', 'core-api'],
    ['/documents/1', 'core-api'],
    ['/snippets', 'core-api'],
    ['/data-classes/1/workflow', 'core-api'],
    ['/data-objects?classId=1', 'core-api'],
    ['/data-components/1/usage', 'core-api'],
    ['/data-subject/search', 'core-api'],
    ['/mail-settings?websiteId=1', 'core-api'],
    ['/mail-log/1/resend', 'core-api'],
    ['/mail-templates', 'core-api'],
    ['/mail-providers', 'core-api'],
    ['/ai/settings', 'core-api'],
    ['/settings', 'core-api'],
    ['/users', 'core-api'],
    ['/roles/1', 'core-api'],
    ['/preview/objects/tok', 'core-api'],
    ['/health', 'core-api'],
    ['/health/live', 'core-api'],
    ['/audit-log?format=csv', 'core-api'],
    ['/security-settings', 'core-api'],
    ['/oidc-settings', 'core-api'],
    ['/docs-sites/1/tree', 'core-api'],
    ['/object-event-subscriptions/1/deliveries', 'core-api'],
    ['/object-event-deliveries/1/retry', 'core-api'],
    ['/pwa/subscribe', 'core-api'],
    ['/publish/jobs', 'core-api'],
    ['/publish/jobs/1', 'core-api'],
    ['/migration-sources/1/import-classes', 'core-api'],
    ['/figma/settings', 'core-api'],
    ['/api/v1/system/logs', 'core-api'],
    ['/api/v1/system/logs/download', 'core-api'],
    ['/api/v1/gateway/x', 'gateway'],
    ['/api/v1/gateway/routes/1/execute', 'gateway'],
    ['/api/remote/x', 'gateway'],
    ['/client/v1/x', 'gateway'],
    ['/client/v1/data/Article?limit=5', 'gateway'],
    ['/api/v1/process', 'asset-processor'],
    ['/api/v1/process?mode=variants', 'asset-processor'],
    ['/api/v1/dam/assets/1', 'asset-processor'],
    ['/api/v1/metadata', 'asset-processor'],
    ['/assets/app.js', 'admin-dashboard'],
    ['/', 'admin-dashboard'],
    ['/login', 'admin-dashboard'],
    ['/authors', 'admin-dashboard'],
    ['/publications', 'admin-dashboard'],
    ['/healthz', 'admin-dashboard'],
    ['/site-root', 'admin-dashboard'],
  ];

  it('routes the spec paths and the known traps to the right upstream', async () => {
    const wrong: string[] = [];
    for (const [path, upstream] of expected) {
      const answer = await get(path);
      if (answer.echo?.upstream !== upstream || answer.echo.url !== path) {
        wrong.push(
          `${path}: expected ${upstream}, got ${answer.echo?.upstream ?? answer.status} ${answer.echo?.url ?? ''}`,
        );
      }
    }
    expect(wrong).to.deep.equal([]);
  });

  it('does not route /metrics: 404 from the proxy, in any spelling, no upstream reached', async () => {
    const before = totalSeen();
    for (const path of ['/metrics', '/metrics?token=x', '/metrics/', '/%6Detrics', '//metrics']) {
      const answer = await rawGet(nginx.port, path);
      expect(answer, path).to.deep.equal({ status: 404, fromUpstream: false });
    }
    // Spelled with a dot segment, it is refused before routing.
    for (const path of ['/health/../metrics', '/public/..%2Fmetrics']) {
      expect(await rawGet(nginx.port, path), path).to.deep.equal({ status: 400, fromUpstream: false });
    }
    expect(totalSeen()).to.equal(before);
  });

  // A sample prefix of every row (and a website preview), with where its paths land.
  const rowPrefixes: Array<[string, Upstream, string]> = [
    ['/public', 'core-api', ''],
    ['/public/upload-data', 'asset-processor', ''],
    ['/api/v1/gateway', 'gateway', ''],
    ['/client/v1', 'gateway', ''],
    ['/api/remote', 'gateway', ''],
    ['/api/v1', 'asset-processor', ''],
    ['/dam-asset', 'asset-processor', ''],
    ['/assets', 'admin-dashboard', ''],
    ['/cms-one/pages', 'core-api', ''],
    ['/cms-one', 'editor', ''],
    ['/auth', 'core-api', ''],
    ['/data-objects', 'core-api', ''],
    ['/dashboard', 'admin-dashboard', ''],
    ['/shop', 'core-api', '/public/page'],
  ];

  it('refuses a dot segment in any spelling one decoding reveals (raw, encoded, backslash, ;, NUL, overlong) with 400; no upstream sees it', async () => {
    const before = totalSeen();
    const wrong: string[] = [];
    for (const [prefix] of rowPrefixes) {
      for (const goal of ['metrics', 'auth/users', 'client/v1/me']) {
        for (const target of climbingTargets(prefix, goal)) {
          const answer = await rawRequest(nginx.port, target);
          if (answer.status !== 400 || answer.headers['x-upstream'])
            wrong.push(`${target}: ${answer.status} ${answer.headers['x-upstream'] ?? ''}`);
        }
      }
    }
    expect(wrong).to.deep.equal([]);
    expect(totalSeen(), 'requests (or site-root checks) that reached an upstream').to.equal(before);
  });

  it("passes paths that only look alike, and re-encoded dots, to the row's upstream exactly as sent", async () => {
    const wrong: string[] = [];
    for (const [prefix, upstream, pathPrefix] of rowPrefixes) {
      for (const target of [...confinedTargets(prefix), ...reEncodedTargets(prefix, 'metrics')]) {
        const answer = await rawRequest(nginx.port, target);
        const echo = answer.headers['x-upstream'] ? JSON.parse(answer.body) : undefined;
        if (echo?.upstream !== upstream || echo.url !== pathPrefix + target)
          wrong.push(`${target}: ${answer.status} ${echo?.upstream ?? ''} ${echo?.url ?? ''}`);
      }
    }
    expect(wrong).to.deep.equal([]);
  });

  it('sends / to the admin dashboard unless core-api GET /site-root answers 204 for the first segment', async () => {
    const core = stubs.get('core-api')!;
    const preview = await get('/shop/about?x=1', { cookie: 'cms_session=abc' });
    expect(preview.echo?.upstream).to.equal('core-api');
    expect(preview.echo?.url).to.equal('/public/page/shop/about?x=1');
    const check = core.seen.filter((s) => s.url === '/site-root').at(-1)!;
    expect(check.method).to.equal('GET');
    expect(check.headers['x-original-uri']).to.equal('/shop/about?x=1');
    expect(check.headers['x-request-id']).to.match(/^[0-9a-f]{32}$/);
    expect(check.headers.cookie).to.equal('cms_session=abc');
    expect((await get('/shop')).echo?.url).to.equal('/public/page/shop');

    // 403 (not a website), 404 (core-api without the route), 500 (core-api failing): the dashboard.
    for (const path of ['/', '/dashboard/users?page=2', '/gone/x', '/broken/x']) {
      const answer = await get(path);
      expect(answer.echo?.upstream, path).to.equal('admin-dashboard');
      expect(answer.echo?.url, path).to.equal(path);
    }
    // A POST to a non-website path keeps its method and body on the way to the dashboard.
    const post = await send(nginx.url, 'POST', '/login', {
      body: Buffer.from('a=1'),
      headers: { 'content-type': 'text/plain' },
    });
    expect(post.echo).to.include({ upstream: 'admin-dashboard', method: 'POST', bodyBytes: 3 });
    // The check location is internal: a client cannot call it.
    expect((await get('/_edge/site-root')).echo?.upstream).to.not.equal('core-api');
  });

  it("passes asset-processor's Cache-Control through unchanged: nothing added for a private file", async () => {
    const privateFile = await get('/dam-asset/private/contract.pdf');
    expect(privateFile.status).to.equal(200);
    expect(privateFile.headers['cache-control']).to.equal('private, no-store');
    const publicFile = await get('/dam-asset/public/logo.png');
    expect(publicFile.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
    expect(stubs.get('asset-processor')!.seen.at(-1)!.url).to.equal('/dam-asset/public/logo.png');
  });

  it('sets X-Forwarded-For, X-Forwarded-Proto and X-Request-Id (a well-formed client id is kept)', async () => {
    const kept = await get('/auth/me', { 'x-request-id': 'client-id.1:2', 'x-forwarded-for': '203.0.113.9' });
    expect(kept.echo?.headers['x-request-id']).to.equal('client-id.1:2');
    // The proxy's view of the client replaces whatever the client claimed.
    expect(kept.echo?.headers['x-forwarded-for']).to.equal('127.0.0.1');
    expect(kept.echo?.headers['x-forwarded-proto']).to.equal('http');
    expect(kept.echo?.headers.host).to.equal(`127.0.0.1:${nginx.port}`);
    expect(kept.echo?.headers['x-forwarded-host']).to.equal(`127.0.0.1:${nginx.port}`);

    const fresh = await get('/api/v1/gateway/x');
    expect(fresh.echo?.headers['x-request-id']).to.match(/^[0-9a-f]{32}$/);
    expect(fresh.echo?.headers['x-forwarded-for']).to.equal('127.0.0.1');
    const replaced = await get('/dam-asset/x', { 'x-request-id': 'not a token!' });
    expect(stubs.get('asset-processor')!.seen.at(-1)!.headers['x-request-id']).to.match(/^[0-9a-f]{32}$/);
    expect(replaced.status).to.equal(200);
    const tooLong = await get('/client/v1/me', { 'x-request-id': 'a'.repeat(129) });
    expect(tooLong.echo?.headers['x-request-id']).to.match(/^[0-9a-f]{32}$/);
    // An HTTP/1.0 client without Host still reaches the upstream (which refuses a request without one).
    expect(await rawGet(nginx.port, '/auth/me', 'HTTP/1.0')).to.deep.equal({ status: 200, fromUpstream: true });
  });

  it('answers 413 over the body cap (WS_MAX_BODY) without reaching an upstream, on every route', async () => {
    const before = totalSeen();
    for (const [method, path] of [
      ['POST', '/data-objects'],
      ['PUT', '/public/upload-data/t1'],
      ['POST', '/api/v1/process'],
      ['POST', '/client/v1/x'],
    ]) {
      const answer = await send(nginx.url, method, path, { body: Buffer.alloc(CAP_BYTES + 1) });
      expect(answer.status, path).to.equal(413);
    }
    expect(totalSeen()).to.equal(before);
    const atCap = await send(nginx.url, 'POST', '/data-objects', { body: Buffer.alloc(CAP_BYTES) });
    expect(atCap.echo).to.include({ upstream: 'core-api', bodyBytes: CAP_BYTES });
  });

  it('streams /public/upload-data/ bodies to asset-processor as they arrive; other bodies are buffered', async () => {
    // Sends the first KB, then waits (up to `waitMs`) for the upstream to see the request before
    // sending the rest: true when it arrived while most of the body was still with the client.
    const arrivesBeforeBodyEnds = async (upstream: Upstream, path: string, waitMs: number) => {
      const stub = stubs.get(upstream)!;
      let signal = () => {};
      const started = new Promise<boolean>((resolve) => {
        signal = () => resolve(true);
        setTimeout(() => resolve(false), waitMs);
      });
      stub.onRequestStart = (req) => {
        if (req.url === path) signal();
      };
      const total = 32 * 1024;
      const { hostname, port } = new URL(nginx.url);
      let finish = () => {};
      const answer = new Promise<number>((resolve, reject) => {
        const req = http.request(
          { hostname, port, path, method: 'PUT', headers: { 'content-length': String(total) }, agent: false },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.write(Buffer.alloc(1024));
        finish = () => req.end(Buffer.alloc(total - 1024));
      });
      const early = await started;
      finish();
      expect(await answer).to.equal(200);
      expect(stub.seen.at(-1)).to.include({ url: path, bodyBytes: total });
      stub.onRequestStart = undefined;
      return early;
    };
    expect(
      await arrivesBeforeBodyEnds('asset-processor', '/public/upload-data/ticket-1', 5_000),
      'upload streamed',
    ).to.equal(true);
    expect(await arrivesBeforeBodyEnds('core-api', '/public/forms/1/submit', 300), 'form body buffered').to.equal(
      false,
    );
  });
});
