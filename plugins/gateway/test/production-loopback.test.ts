import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { classifyAddress } from '../outbound/address-policy.ts';
import { startGatewayKernel } from './helpers.ts';

/**
 * This host's own addresses that production may call (not loopback, link-local or reserved), in URL
 * host form: the first hop of a redirect to loopback must itself be allowed.
 */
function allowedOwnAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((a) => a && !a.internal && ['public', 'private'].includes(classifyAddress(a.address)))
    .map((a) => (a!.family === 'IPv6' ? `[${a!.address}]` : a!.address));
}

/**
 * The spec's rule as the gateway process runs in production: NODE_ENV=production and
 * OUTBOUND_ALLOW_HOSTS unset refuse loopback in every spelling, also behind a host name and behind a
 * redirect, on every outbound path (route calls, OAuth2 token requests, the outboundFetch port). A
 * server listening on every address of this host records each connection it sees: nothing reaches it
 * over loopback.
 */
describe('gateway in production (NODE_ENV=production, OUTBOUND_ALLOW_HOSTS unset): loopback refused', () => {
  let g: Awaited<ReturnType<typeof startGatewayKernel>>;
  let server: http.Server;
  let port: number;
  /** Local address of every connection the server accepted. */
  const connections: string[] = [];
  const loopbackConnections = () => connections.filter((a) => classifyAddress(a) === 'loopback');

  before(async () => {
    server = http.createServer((req, res) => {
      if (req.url?.startsWith('/hop')) {
        res.writeHead(302, { location: new URL(req.url, 'http://x').searchParams.get('to') ?? '/' });
        return void res.end();
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    server.on('connection', (socket) => connections.push(socket.localAddress ?? ''));
    // `::` takes IPv4 too (as ::ffff:a.b.c.d): one port for every address of the host.
    await new Promise<void>((resolve) => server.listen(0, '::', resolve));
    port = (server.address() as AddressInfo).port;
    g = await startGatewayKernel({
      env: {
        NODE_ENV: 'production',
        GATEWAY_SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        TOTP_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      },
    });
  });
  after(async () => {
    await g?.t.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const execute = async (baseUrl: string, path = '/x', auth?: Record<string, unknown>) => {
    const ep = await g.createEndpoint({ baseUrl, ...(auth ? { auth } : {}) });
    const route = await g.createRoute(ep.id, 'GET', path);
    return g.call('POST', `/api/v1/gateway/routes/${route.id}/execute`, g.manager, {});
  };

  it('route calls: every spelling of loopback, and host names that resolve to it, answer 403 OUTBOUND_REFUSED', async () => {
    const hosts = [
      '127.0.0.1',
      '127.0.0.2',
      '0.0.0.0',
      '[::1]',
      '[::]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[0:0:0:0:0:ffff:7f00:1]',
      '[::ffff:0:127.0.0.1]',
      '[::127.0.0.1]',
      '[2002:7f00:1::1]',
      '[64:ff9b::127.0.0.1]',
      'localhost',
      'LocalHost',
      'localhost.',
    ];
    const wrong: string[] = [];
    for (const host of hosts) {
      const res = await execute(`http://${host}:${port}`);
      if (res.statusCode !== 403 || res.json().code !== 'OUTBOUND_REFUSED') wrong.push(`${host}: ${res.statusCode}`);
    }
    expect(wrong).to.deep.equal([]);
    expect(loopbackConnections()).to.deep.equal([]);
  });

  it('an OAuth2 token URL on loopback is refused before the route is called', async () => {
    const res = await execute(`http://localhost:${port}`, '/x', {
      type: 'oauth2ClientCredentials',
      tokenUrl: `http://127.0.0.1:${port}/token`,
      clientId: 'client',
      clientSecret: 'secret',
    });
    expect(res.statusCode).to.equal(403);
    expect(res.json().code).to.equal('OUTBOUND_REFUSED');
    expect(loopbackConnections()).to.deep.equal([]);
  });

  it('a redirect to loopback: outboundFetch refuses the hop, a route call hands the 3xx back unfollowed', async function () {
    const own = allowedOwnAddresses()[0];
    // Every container and CI runner has one; a machine with loopback only cannot serve a first hop.
    if (!own) return this.skip();
    const outbound = g.t.kernel.resolve('outboundFetch');
    const before = connections.length;
    for (const to of [
      `http://127.0.0.1:${port}/target`,
      `http://localhost:${port}/target`,
      `http://[::1]:${port}/target`,
      `http://[::ffff:127.0.0.1]:${port}/target`,
    ]) {
      const first = `http://${own}:${port}/hop?to=${encodeURIComponent(to)}`;
      let refusal: { statusCode?: number; code?: string } | undefined;
      await outbound.fetch(first).catch((err) => (refusal = err));
      expect(refusal, to).to.include({ statusCode: 403, code: 'OUTBOUND_REFUSED' });
      // Route calls never follow redirects: the caller gets the 302 as the upstream sent it.
      const res = await execute(`http://${own}:${port}`, `/hop`);
      expect(res.statusCode, to).to.equal(200);
      expect(res.json().status, to).to.equal(302);
    }
    // The first hops connected (over the host's own address), the loopback hops never did.
    expect(connections.length).to.be.greaterThan(before);
    expect(loopbackConnections()).to.deep.equal([]);
  });
});
