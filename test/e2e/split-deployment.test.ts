import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { DatabaseHandle } from '../../kernel/database.ts';
import { PROJECT_ROOT } from '../../kernel/loader.ts';
import type { Upstream } from '../../edge/routes.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { findNginx, freePort, startNginx, startStub, type RunningNginx, type StubUpstream } from '../helpers/nginx.ts';

const CMS = path.join(PROJECT_ROOT, 'bin', 'cms.js');
type Service = 'core-api' | 'asset-processor' | 'gateway';

interface RunningService {
  port: number;
  child: ChildProcess;
  exited: Promise<number | null>;
  output: () => string;
}

/**
 * `cms start --service <name>` as an operator runs it; resolves once its /health answers 200.
 * `spawned` gets the process at once, so a failing start elsewhere still lets `after` stop it.
 */
async function startService(
  service: Service,
  env: NodeJS.ProcessEnv,
  spawned: ChildProcess[],
  port?: number,
): Promise<RunningService> {
  port ??= await freePort();
  const child = spawn('node', [CMS, 'start', '--service', service], {
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned.push(child);
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  let code: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (c) => {
      code = c;
      resolve(c);
    }),
  );
  // A cold start on a loaded machine (the suite's other workers, the checks beside them) can take
  // well over the few seconds it takes alone.
  const deadline = Date.now() + 90_000;
  for (;;) {
    const health = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
    if (health?.status === 200) break;
    if (code !== undefined || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${service} did not become healthy (exit ${code}):\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { port, child, exited, output: () => output };
}

/**
 * The split deployment as the spec draws it: core-api, asset-processor and gateway as separate
 * processes on one database, behind the real nginx generated from the edge table.
 */
describe('split deployment: three services behind the edge proxy (real processes, real nginx)', function () {
  this.timeout(240_000);
  const adminEmail = 'edge.admin@example.com';
  const adminPassword = 'edge-admin-password-1';
  let database: DatabaseHandle;
  let dataDir: string;
  let nginx: RunningNginx;
  const services = new Map<Service, RunningService>();
  const spawned: ChildProcess[] = [];
  const statics: StubUpstream[] = [];
  let cookie: string;
  let thirdParty: Server;
  let thirdPartyUrl: string;
  const received: Array<{ url: string; body: string; headers: import('node:http').IncomingHttpHeaders }> = [];

  before(async () => {
    findNginx();
    database = await createTestDatabase({ fresh: true });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'cms-split-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: database.url,
      CMS_DATA_DIR: dataDir,
      CMS_ADMIN_EMAIL: adminEmail,
      CMS_ADMIN_PASSWORD: adminPassword,
      // Each service writes its log files; core-api and the gateway ship theirs to the asset-processor.
      LOG_LEVEL: 'info',
      NODE_ENV: 'test',
      TRUST_PROXY: '1',
      UPLOAD_TOKEN_SECRET: 'split-upload-ticket-secret-0123456789',
      DAM_SERVICE_TOKEN: 'split-dam-service-token-0123456789',
      METRICS_TOKEN: 'split-metrics-token-0123456789',
      OBJECT_EVENTS_SECRET_EDGE: 'edge-signing-secret',
    };
    const assetsPort = await freePort();
    // core-api ships to the asset-processor, the gateway through core-api.
    const withLogs = (service: Service): NodeJS.ProcessEnv => ({
      ...env,
      LOG_DIR: path.join(dataDir, 'logs', service),
      LOG_STORE_URL:
        service === 'gateway' ? `http://127.0.0.1:${services.get('core-api')!.port}` : `http://127.0.0.1:${assetsPort}`,
    });
    // core-api applies the migrations; the others start on the migrated schema.
    services.set('core-api', await startService('core-api', withLogs('core-api'), spawned));
    const [assets, gateway] = await Promise.all([
      startService('asset-processor', withLogs('asset-processor'), spawned, assetsPort),
      startService('gateway', withLogs('gateway'), spawned),
    ]);
    services.set('asset-processor', assets).set('gateway', gateway);
    for (const name of ['admin-dashboard', 'editor']) statics.push(await startStub(name));
    const at = (s: Service) => `127.0.0.1:${services.get(s)!.port}`;
    const upstreams: Record<Upstream, string> = {
      'core-api': at('core-api'),
      'asset-processor': at('asset-processor'),
      gateway: at('gateway'),
      'admin-dashboard': statics[0].address,
      editor: statics[1].address,
    };
    nginx = await startNginx({ upstreams });
    // The third-party API the gateway process calls for a page binding.
    thirdParty = createServer((req, res) => {
      let body = '';
      req
        .setEncoding('utf8')
        .on('data', (c) => (body += c))
        .on('end', () => {
          if (req.method === 'POST') {
            received.push({ url: req.url!, body, headers: req.headers });
            return res.writeHead(204).end();
          }
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ city: 'Berlin', temp: 8, secret: 'x' }));
        });
    });
    await new Promise<void>((r) => thirdParty.listen(0, '127.0.0.1', r));
    thirdPartyUrl = `http://127.0.0.1:${(thirdParty.address() as AddressInfo).port}`;
  });

  after(async () => {
    for (const child of spawned) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await nginx?.stop();
    thirdParty?.close();
    await Promise.all(statics.map((s) => s.close()));
    await database?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const call = async (
    pathname: string,
    opts: { method?: string; cookie?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const res = await fetch(nginx.url + pathname, {
      method: opts.method ?? 'GET',
      headers: {
        ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(opts.cookie ? { cookie: opts.cookie } : {}),
        ...opts.headers,
      },
      body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      json: text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : undefined,
    };
  };

  it('answers /health: core-api through the proxy, asset-processor and gateway on their own ports', async () => {
    const proxied = await call('/health');
    expect(proxied.status).to.equal(200);
    expect(proxied.json.status).to.be.a('string');
    for (const service of ['asset-processor', 'gateway'] as const) {
      const direct = await fetch(`http://127.0.0.1:${services.get(service)!.port}/health`);
      expect(direct.status, service).to.equal(200);
    }
  });

  it('signs in, creates a class and a published object, and reads it from the public API, all through the proxy', async () => {
    const login = await call('/auth/login', { method: 'POST', body: { email: adminEmail, password: adminPassword } });
    expect(login.status).to.equal(200);
    const session = login.headers.getSetCookie().find((c) => c.startsWith('cms_session='));
    expect(session, 'session cookie').to.be.a('string');
    cookie = session!.split(';')[0];

    const created = await call('/data-classes', {
      method: 'POST',
      cookie,
      body: { name: 'EdgeArticle', fields: [{ name: 'title', type: 'text', required: true }] },
      // As a browser on the proxy's address sends it: the services see the same host in Host.
      headers: { 'x-request-id': 'edge-e2e-class-1', 'x-forwarded-for': '203.0.113.7', origin: nginx.url },
    });
    expect(created.status, JSON.stringify(created.json)).to.equal(201);
    const object = await call('/data-objects', {
      method: 'POST',
      cookie,
      body: {
        className: 'EdgeArticle',
        key: 'hello',
        published: true,
        attributes: { title: 'Hello through the proxy' },
      },
    });
    expect(object.status).to.equal(201);

    const read = await call('/public/data-objects?className=EdgeArticle');
    expect(read.status, JSON.stringify(read.json)).to.equal(200);
    expect(read.json.objects).to.have.length(1);
    expect(read.json.objects[0]).to.include({ id: object.json.id });
    expect(read.json.objects[0].attributes).to.deep.equal({ title: 'Hello through the proxy' });

    // The audit row carries the client's request id and the address the proxy saw, not the one the
    // client claimed.
    const audit = await database.db('audit_log').where({ action: 'data_class.create' }).first();
    expect(audit).to.include({ request_id: 'edge-e2e-class-1', ip: '127.0.0.1' });
  });

  it("serves a website's page and its 404 document at /<root>/<path> with core-api's document policy", async () => {
    const write = { method: 'POST', cookie, headers: { origin: nginx.url } };
    const site = await call('/cms-one/websites', { ...write, body: { name: 'Edge site', rootPath: '/edge-site' } });
    expect(site.status, JSON.stringify(site.json)).to.equal(201);
    const page = await call('/cms-one/pages', {
      ...write,
      body: {
        websiteId: site.json.id,
        locale: 'en',
        path: '/about',
        title: 'About',
        published: true,
        content: { type: 'p', text: 'Hi' },
      },
    });
    expect(page.status, JSON.stringify(page.json)).to.equal(201);
    const browser = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
    for (const [url, status] of [
      ['/edge-site/about', 200],
      ['/edge-site/nowhere', 404],
    ] as const) {
      const res = await call(url, { headers: browser });
      expect(res.status, url).to.equal(status);
      expect(res.headers.get('content-type'), url).to.match(/^text\/html/);
      const csp = res.headers.get('content-security-policy') ?? '';
      for (const directive of ["script-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'self'"])
        expect(csp, url).to.contain(directive);
      expect(res.headers.get('x-frame-options'), url).to.equal('SAMEORIGIN');
      expect(res.headers.get('x-content-type-options'), url).to.equal('nosniff');
    }
  });

  it('serves the client API and page-binding resolve from the gateway process on the same database', async () => {
    // Administration and client calls go through the proxy's /api/v1/gateway and /client/v1 rows to
    // the gateway process; the class and object were written by core-api above.
    const created = await call('/api/v1/gateway/clients', {
      method: 'POST',
      cookie,
      body: { name: 'edge-app', authMode: 'key', scopes: ['data:read:EdgeArticle'] },
    });
    expect(created.status, JSON.stringify(created.json)).to.equal(201);
    const read = await call('/client/v1/data/EdgeArticle', { headers: { 'x-cms-key': created.json.key } });
    expect(read.status, JSON.stringify(read.json)).to.equal(200);
    expect(JSON.stringify(read.json)).to.contain('Hello through the proxy');

    const endpoint = await call('/api/v1/gateway/endpoints', {
      method: 'POST',
      cookie,
      body: { name: 'edge-weather', baseUrl: thirdPartyUrl },
    });
    expect(endpoint.status, JSON.stringify(endpoint.json)).to.equal(201);
    const route = await call(`/api/v1/gateway/endpoints/${endpoint.json.id}/routes`, {
      method: 'POST',
      cookie,
      body: { method: 'GET', path: '/now' },
    });
    expect(route.status, JSON.stringify(route.json)).to.equal(201);
    // The page (and its binding) is saved by core-api, which checks the route through its own catalog.
    const site = await call('/cms-one/websites', {
      method: 'POST',
      cookie,
      body: { name: 'Edge', rootPath: '/edge', locales: ['en'] },
    });
    expect(site.status, JSON.stringify(site.json)).to.equal(201);
    const binding = { endpointId: endpoint.json.id, routeId: route.json.id, resultFilter: { pick: ['city', 'temp'] } };
    const page = await call('/cms-one/pages', {
      method: 'POST',
      cookie,
      body: {
        websiteId: site.json.id,
        locale: 'en',
        path: '/now',
        title: 'Now',
        // Only a published page's bindings answer published sites.
        published: true,
        content: { type: 'div', props: { binding } },
      },
    });
    expect(page.status, JSON.stringify(page.json)).to.equal(201);
    const gatewayBindingId = JSON.stringify(page.json).match(/"gatewayBindingId":"([^"]+)"/)?.[1];
    const resolved = await call('/api/v1/gateway/resolve', { method: 'POST', body: { gatewayBindingId } });
    expect(resolved.status, JSON.stringify(resolved.json)).to.equal(200);
    expect(resolved.json.data).to.deep.equal({ city: 'Berlin', temp: 8 });
  });

  it('records an event in core-api and the gateway process delivers it, signed, through its catalog', async () => {
    const endpoint = await call('/api/v1/gateway/endpoints', {
      method: 'POST',
      cookie,
      body: { name: 'edge-hooks', baseUrl: thirdPartyUrl },
    });
    expect(endpoint.status, JSON.stringify(endpoint.json)).to.equal(201);
    const route = await call(`/api/v1/gateway/endpoints/${endpoint.json.id}/routes`, {
      method: 'POST',
      cookie,
      body: { method: 'POST', path: '/events' },
    });
    expect(route.status, JSON.stringify(route.json)).to.equal(201);
    const sub = await call('/object-event-subscriptions', {
      method: 'POST',
      cookie,
      body: {
        name: 'edge',
        events: ['object.created'],
        endpointId: endpoint.json.id,
        routeId: route.json.id,
        signingSecretRef: 'OBJECT_EVENTS_SECRET_EDGE',
      },
    });
    expect(sub.status, JSON.stringify(sub.json)).to.equal(201);
    const object = await call('/data-objects', {
      method: 'POST',
      cookie,
      body: { className: 'EdgeArticle', key: 'evented', attributes: { title: 'Evented' } },
    });
    expect(object.status).to.equal(201);
    const deadline = Date.now() + 15_000;
    while (!received.some((r) => r.body.includes(object.json.id)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    const delivery = received.find((r) => r.body.includes(object.json.id));
    expect(delivery, 'delivery from the gateway process').to.not.equal(undefined);
    const ts = String(delivery!.headers['x-cms-timestamp']);
    const wanted =
      'sha256=' + createHmac('sha256', 'edge-signing-secret').update(`${ts}.${delivery!.body}`).digest('hex');
    expect(delivery!.headers['x-cms-signature']).to.equal(wanted);
  });

  it('sends the request id through to the error body and keeps /metrics and the dashboard where the table says', async () => {
    const denied = await call('/auth/me', { headers: { 'x-request-id': 'edge-e2e-2' } });
    expect(denied.status).to.equal(401);
    expect(denied.json.requestId).to.equal('edge-e2e-2');
    expect((await call('/metrics')).status).to.equal(404);
    // No website owns the first segment, so / is the admin dashboard.
    const root = await fetch(`${nginx.url}/`);
    expect(root.headers.get('x-upstream')).to.equal('admin-dashboard');
    const editor = await fetch(`${nginx.url}/cms-one/page-editor`);
    expect(editor.headers.get('x-upstream')).to.equal('editor');
    // /cms-one data routes reach core-api (its own error body: the search needs a session).
    const search = await call('/cms-one/search?q=x');
    expect(search.status).to.equal(401);
    expect(search.json?.code).to.equal('UNAUTHENTICATED');
  });

  /** The routes a process answered, from its own request counter (`/metrics` on its port). */
  const routesServed = async (service: Service) => {
    const res = await fetch(`http://127.0.0.1:${services.get(service)!.port}/metrics`, {
      headers: { authorization: 'Bearer split-metrics-token-0123456789' },
    });
    return new Set(
      [...(await res.text()).matchAll(/^http_requests_total\{route="([^"]+)",method="([A-Z]+)"/gm)].map(
        (m) => `${m[2]} ${m[1]}`,
      ),
    );
  };

  it('assets: asset-processor stores an upload and delivers it; core-api takes the intent and the form submit; all through the proxy', async () => {
    const login = await call('/auth/login', { method: 'POST', body: { email: adminEmail, password: adminPassword } });
    const cookie = login.headers
      .getSetCookie()
      .find((c) => c.startsWith('cms_session='))!
      .split(';')[0];
    const image = await sharp({
      create: { width: 300, height: 200, channels: 3, background: { r: 9, g: 120, b: 200 } },
    })
      .png()
      .toBuffer();

    const form = new FormData();
    form.set('folder', 'split');
    form.set('file', new Blob([image], { type: 'image/png' }), 'split.png');
    const upload = await fetch(`${nginx.url}/api/v1/dam/upload`, {
      method: 'POST',
      body: form,
      headers: { cookie, 'x-request-id': 'split-asset-upload' },
    });
    expect(upload.status, await upload.clone().text()).to.equal(201);
    const asset = (await upload.json()) as { path: string; thumbnailUrl: string };
    const delivered = await fetch(`${nginx.url}/dam-asset/split/split.png`, {
      headers: { 'x-request-id': 'split-asset-delivery' },
    });
    expect(delivered.status).to.equal(200);
    expect(Buffer.from(await delivered.arrayBuffer()).equals(image)).to.equal(true);
    expect((await fetch(nginx.url + asset.thumbnailUrl)).headers.get('content-type')).to.equal('image/webp');
    // A name with spaces, unicode, "#" and "%" is delivered through the proxy at the URL the API answered.
    const odd = new FormData();
    odd.set('folder', 'split/dir #1 50% ☃');
    odd.set('file', new Blob([Buffer.from('odd name\n')], { type: 'text/plain' }), 'ünï cødé #2 100%.txt');
    const oddUpload = await fetch(`${nginx.url}/api/v1/dam/upload`, { method: 'POST', body: odd, headers: { cookie } });
    expect(oddUpload.status, await oddUpload.clone().text()).to.equal(201);
    const oddDelivered = await fetch(nginx.url + ((await oddUpload.json()) as { url: string }).url);
    expect(oddDelivered.status).to.equal(200);
    expect(await oddDelivered.text()).to.equal('odd name\n');

    const site = await call('/cms-one/websites', {
      method: 'POST',
      cookie,
      body: { name: 'Split shop', rootPath: '/splitshop', domains: ['split.example'] },
    });
    expect(site.status).to.equal(201);
    expect(
      (
        await call(`/cms-one/websites/${site.json.id}/upload-settings`, {
          method: 'PUT',
          cookie,
          body: { enabled: true, allowedTypes: ['image/png'] },
        })
      ).status,
    ).to.equal(200);
    const cls = await call('/data-classes', {
      method: 'POST',
      cookie,
      body: {
        name: 'SplitContact',
        fields: [
          { name: 'email', type: 'text', required: true },
          { name: 'photo', type: 'asset' },
        ],
      },
    });
    expect(cls.status).to.equal(201);
    // A class takes public submits only while a published page shows a form for it.
    const formPage = await call('/cms-one/pages', {
      method: 'POST',
      cookie,
      body: {
        websiteId: site.json.id,
        locale: 'en',
        path: '/contact',
        title: 'Contact',
        published: true,
        content: { type: 'form', props: { classId: cls.json.id } },
      },
    });
    expect(formPage.status, JSON.stringify(formPage.json)).to.equal(201);

    const intent = await call('/public/uploads/intent', {
      method: 'POST',
      body: { fieldId: 'photo', filename: 'me.png', size: image.length },
      headers: { origin: 'https://split.example', 'x-request-id': 'split-form-intent' },
    });
    expect(intent.status).to.equal(201);
    const put = await fetch(nginx.url + intent.json.uploadUrl, {
      method: 'PUT',
      body: image,
      headers: { 'content-type': 'image/png', 'x-request-id': 'split-form-bytes' },
    });
    expect(put.status, await put.clone().text()).to.equal(201);
    const submitted = await call(`/public/forms/${cls.json.id}/submit`, {
      method: 'POST',
      body: { attributes: { email: 'split@example.test', photo: { uploadId: intent.json.uploadId } } },
      headers: { 'x-request-id': 'split-form-submit' },
    });
    expect(submitted.status, JSON.stringify(submitted.json)).to.equal(201);
    const object = await call(`/data-objects/${submitted.json.id}`, { cookie });
    const attached = await call(`/api/v1/dam/assets/${object.json.attributes.photo}`, { cookie });
    expect(attached.json).to.include({ folder: `form-uploads/${site.json.id}`, visibility: 'private' });
    // The file core-api attached is in the store asset-processor delivers from.
    expect((await fetch(nginx.url + attached.json.url)).status, 'private to anonymous callers').to.equal(404);
    expect((await fetch(nginx.url + attached.json.url, { headers: { cookie } })).status).to.equal(200);

    // Each part was answered where the edge table sends it.
    const assetRoutes = ['POST /api/v1/dam/upload', 'GET /dam-asset/*', 'PUT /public/upload-data/:ticket'];
    const coreRoutes = ['POST /public/uploads/intent', 'POST /public/forms/:classId/submit'];
    const [onAssets, onCore] = [await routesServed('asset-processor'), await routesServed('core-api')];
    for (const route of assetRoutes) expect(onAssets.has(route) && !onCore.has(route), route).to.equal(true);
    for (const route of coreRoutes) expect(onCore.has(route) && !onAssets.has(route), route).to.equal(true);
  });

  it('system logs: core-api answers the tail of all three services through the proxy, from the asset-processor', async function () {
    this.timeout(60_000);
    // Each service logged `listening`; the gateway's line reaches the store with its first shipment
    // through core-api (5 s after its start), core-api's when it is asked.
    let lines: Array<{ service: string; msg: string }> = [];
    for (let i = 0; i < 100; i++) {
      const res = await call('/api/v1/system/logs?lines=1000', { cookie });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      lines = res.json.lines;
      if (lines.some((l) => l.service === 'gateway' && l.msg === 'listening')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const listening = new Set(lines.filter((l) => l.msg === 'listening').map((l) => l.service));
    expect([...listening].sort()).to.deep.equal(['asset-processor', 'core-api', 'gateway']);
    const download = await fetch(`${nginx.url}/api/v1/system/logs/download?service=gateway`, { headers: { cookie } });
    expect(download.status).to.equal(200);
    expect(await download.text()).to.contain('"msg":"listening"');
    // The store's routes answer the service token only; reading the store back is not routed at all
    // (/api/v1/system goes to core-api, which only passes the gateway's shipments on).
    expect((await call('/api/v1/system/log-store/segments/gateway')).status).to.equal(401);
    const tail = await call('/api/v1/system/log-store/tail', {
      headers: { authorization: 'Bearer split-dam-service-token-0123456789' },
    });
    expect(tail.status).to.equal(404);
  });

  it('stops every service on SIGTERM with exit code 0', async () => {
    for (const [name, s] of services) {
      s.child.kill('SIGTERM');
      expect(await s.exited, `${name}:\n${s.output()}`).to.equal(0);
    }
  });
});
