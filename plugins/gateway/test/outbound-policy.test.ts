import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { AddressPolicy, classifyAddress } from '../outbound/address-policy.ts';
import { OutboundHttp, type Resolver } from '../outbound/outbound-http.ts';
import { startGatewayKernel } from './helpers.ts';
import { startUpstream, type Upstream } from '../../../test/helpers/upstream.ts';

const made: OutboundHttp[] = [];

function outbound(policy: Partial<ConstructorParameters<typeof AddressPolicy>[0]>, resolve?: Resolver) {
  const http = new OutboundHttp({
    policy: new AddressPolicy({ refuseLoopback: true, allowPrivate: true, allowHosts: [], ...policy }),
    resolve,
    connectTimeoutMs: 2000,
    timeoutMs: 5000,
    maxResponseBytes: 1024,
    maxRedirects: 3,
  });
  made.push(http);
  return http;
}

async function refusal(p: Promise<unknown>): Promise<{ statusCode: number; code: string; message: string }> {
  try {
    await p;
  } catch (err) {
    return err as { statusCode: number; code: string; message: string };
  }
  throw new Error('the call was not refused');
}

describe('outbound HTTP policy', () => {
  let up: Upstream;
  before(async () => {
    up = await startUpstream();
  });
  after(async () => {
    await Promise.all(made.splice(0).map((h) => h.close()));
    await up.close();
  });

  it('classifies loopback, link-local, private, reserved and IPv4-mapped addresses', () => {
    const cases: [string, string][] = [
      ['127.0.0.1', 'loopback'],
      ['127.8.9.10', 'loopback'],
      ['0.0.0.0', 'loopback'],
      ['::1', 'loopback'],
      ['::', 'loopback'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['169.254.169.254', 'link-local'],
      ['fe80::1', 'link-local'],
      ['::ffff:169.254.169.254', 'link-local'],
      ['10.1.2.3', 'private'],
      ['172.20.0.1', 'private'],
      ['192.168.1.1', 'private'],
      ['100.64.0.1', 'private'],
      ['fd00::1', 'private'],
      ['::ffff:10.0.0.1', 'private'],
      ['224.0.0.1', 'reserved'],
      ['ff02::1', 'reserved'],
      ['93.184.216.34', 'public'],
      ['2606:4700::1111', 'public'],
    ];
    for (const [address, kind] of cases) expect(classifyAddress(address), address).to.equal(kind);
  });

  it('judges an IPv6 address by the IPv4 it carries, in every translation form and spelling', () => {
    const cases: [string, string][] = [
      // Loopback and unspecified: SIIT, IPv4-compatible, mapped (every spelling), 6to4, NAT64, ISATAP, Teredo.
      ['::ffff:0:127.0.0.1', 'loopback'],
      ['::ffff:0:7f00:1', 'loopback'],
      ['0:0:0:0:ffff:0:7f00:1', 'loopback'],
      ['::127.0.0.1', 'loopback'],
      ['::7f00:1', 'loopback'],
      ['::FFFF:127.0.0.1', 'loopback'],
      ['0000:0000:0000:0000:0000:ffff:127.0.0.1', 'loopback'],
      ['0:0:0:0:0:ffff:7f00:0001', 'loopback'],
      ['::ffff:0.0.0.0', 'loopback'],
      ['::0.0.0.0', 'loopback'],
      ['0:0:0:0:0:0:0:0', 'loopback'],
      ['0::1', 'loopback'],
      ['2002:7f00:1::', 'loopback'],
      ['2002:7f00:0001:0:0:0:0:1', 'loopback'],
      ['2002::1', 'loopback'],
      ['64:ff9b::127.0.0.1', 'loopback'],
      ['64:ff9b::7f00:1', 'loopback'],
      ['64:ff9b:1::7f00:1', 'loopback'],
      ['fe80::5efe:127.0.0.1', 'link-local'],
      ['2001:db9::5efe:7f00:1', 'loopback'],
      ['2001:0:7f00:1:0:0:a2bc:7b7a', 'loopback'],
      ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'],
      // Link-local and the metadata addresses.
      ['::ffff:0:169.254.169.254', 'link-local'],
      ['::169.254.169.254', 'link-local'],
      ['::a9fe:a9fe', 'link-local'],
      ['::ffff:a9fe:a9fe', 'link-local'],
      ['2002:a9fe:a9fe::1', 'link-local'],
      ['64:ff9b::169.254.169.254', 'link-local'],
      ['64:ff9b::a9fe:a9fe', 'link-local'],
      ['100.100.100.200', 'metadata'],
      ['::ffff:100.100.100.200', 'metadata'],
      ['64:ff9b::6464:64c8', 'metadata'],
      ['fd00:ec2::254', 'metadata'],
      ['fd00:0ec2:0:0:0:0:0:0254', 'metadata'],
      // Private.
      ['::ffff:0:10.0.0.1', 'private'],
      ['::10.0.0.1', 'private'],
      ['2002:c0a8:101::1', 'private'],
      ['64:ff9b::192.168.1.1', 'private'],
      ['64:ff9b:1:a::5db8:d822', 'private'],
      ['fec0::1', 'private'],
      // Reserved, and not an address at all.
      ['::ffff:224.0.0.1', 'reserved'],
      ['2002:e000:1::', 'reserved'],
      ['::ffff:255.255.255.255', 'reserved'],
      ['2001:db8::1', 'reserved'],
      ['3fff::1', 'reserved'],
      ['100::1', 'reserved'],
      ['not-an-address', 'reserved'],
      // Public, also inside the translation forms.
      ['2002:5db8:d822::1', 'public'],
      ['64:ff9b::5db8:d822', 'public'],
      ['::ffff:93.184.216.34', 'public'],
      ['2001:4860:4860::8888', 'public'],
    ];
    const wrong = cases.filter(([address, kind]) => classifyAddress(address) !== kind);
    expect(wrong.map(([address, kind]) => `${address}: ${classifyAddress(address)}, not ${kind}`)).to.deep.equal([]);
  });

  it('in production refuses a host name that resolves to loopback (localhost) unless OUTBOUND_ALLOW_HOSTS names it', async () => {
    const refused = await refusal(outbound({}).request(`http://localhost:${up.port}/x`));
    expect(refused).to.include({ statusCode: 403, code: 'OUTBOUND_REFUSED' });
    expect(refused.message).to.contain('loopback');
    const allowed = await outbound({ allowHosts: ['localhost'] }).request(`http://localhost:${up.port}/x`);
    expect(allowed.status).to.equal(200);
  });

  it('checks the address after resolution and connects to that very address (no second lookup)', async () => {
    let lookups = 0;
    // A name whose first answer is a refused address: the connection goes to the address that passed.
    const resolve: Resolver = async (host) => {
      lookups++;
      return host === 'rebind.test' ? ['10.9.9.9', '127.0.0.1'] : [];
    };
    const dev = outbound({ refuseLoopback: false, allowPrivate: false }, resolve);
    const answer = await dev.request(`http://rebind.test:${up.port}/pinned`);
    expect(answer.status).to.equal(200);
    expect(up.requests.at(-1)!.headers.host).to.equal(`rebind.test:${up.port}`);
    expect(lookups).to.equal(1);
    const prod = outbound({}, async () => ['127.0.0.1']);
    expect(await refusal(prod.request(`http://rebind.test:${up.port}/`))).to.include({ code: 'OUTBOUND_REFUSED' });
    const privateOff = outbound({ refuseLoopback: false, allowPrivate: false }, async () => ['192.168.0.10']);
    expect((await refusal(privateOff.request('http://intranet.test/'))).message).to.contain(
      'OUTBOUND_ALLOW_PRIVATE=false',
    );
  });

  it('refuses IPv6 loopback, IPv4-mapped loopback, link-local and the metadata address', async () => {
    const prod = outbound({});
    for (const url of [
      `http://[::1]:${up.port}/`,
      `http://[::ffff:127.0.0.1]:${up.port}/`,
      `http://0.0.0.0:${up.port}/`,
      `http://[::ffff:0:7f00:1]:${up.port}/`,
      `http://[::127.0.0.1]:${up.port}/`,
      `http://[2002:7f00:1::1]:${up.port}/`,
      `http://[64:ff9b::127.0.0.1]:${up.port}/`,
    ]) {
      expect(await refusal(prod.request(url)), url).to.include({ code: 'OUTBOUND_REFUSED' });
    }
    // Link-local and metadata stay closed outside production too, and with private ranges open.
    const dev = outbound({ refuseLoopback: false });
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://[fe80::1]/',
      'http://[::ffff:169.254.169.254]/',
      'http://[::ffff:0:a9fe:a9fe]/',
      'http://[::169.254.169.254]/',
      'http://[2002:a9fe:a9fe::1]/',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'http://100.100.100.200/latest/meta-data/',
    ]) {
      expect(await refusal(dev.request(url)), url).to.include({ code: 'OUTBOUND_REFUSED' });
    }
    expect(
      await refusal(
        outbound({ refuseLoopback: false }, async () => ['169.254.169.254']).request(
          'http://metadata.google.internal/',
        ),
      ),
    ).to.include({ code: 'OUTBOUND_REFUSED' });
  });

  it('re-checks every redirect hop of a plain fetch; the body is capped', async () => {
    up.handle((req, res) => {
      if (req.url === '/hop') {
        res.statusCode = 302;
        res.setHeader('location', `http://localhost:${up.port}/target`);
        return void res.end();
      }
      res.end('y'.repeat(5000));
    });
    const prod = outbound({ allowHosts: ['127.0.0.1'] });
    expect(await refusal(prod.fetch(`http://127.0.0.1:${up.port}/hop`))).to.include({ code: 'OUTBOUND_REFUSED' });
    const both = outbound({ allowHosts: ['127.0.0.1', 'localhost'] });
    const followed = await both.fetch(`http://127.0.0.1:${up.port}/hop`);
    expect(followed.status).to.equal(200);
    expect(followed.body.length).to.equal(1024);
    expect(followed.truncated).to.equal(true);
    // request() does not follow.
    expect((await both.request(`http://127.0.0.1:${up.port}/hop`)).status).to.equal(302);
  });

  describe('through the administration in production (NODE_ENV=production)', () => {
    const env = (extra: Record<string, string> = {}) => ({
      NODE_ENV: 'production',
      GATEWAY_SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      TOTP_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      ...extra,
    });

    it('refuses a route on a loopback upstream with 403 OUTBOUND_REFUSED, and calls it once the host is allowed', async () => {
      up.handle((_req, res) => res.end('{"ok":true}'));
      for (const [extra, expected] of [
        [{}, 403],
        [{ OUTBOUND_ALLOW_HOSTS: 'localhost' }, 200],
      ] as const) {
        const g = await startGatewayKernel({ env: env(extra) });
        try {
          const ep = await g.createEndpoint({ baseUrl: `http://localhost:${up.port}` });
          const route = await g.createRoute(ep.id, 'GET', '/x');
          const res = await g.call('POST', `/api/v1/gateway/routes/${route.id}/execute`, g.manager, {});
          expect(res.statusCode, JSON.stringify(extra)).to.equal(expected);
          if (expected === 403) expect(res.json().code).to.equal('OUTBOUND_REFUSED');
        } finally {
          await g.t.close();
        }
      }
    });
  });
});
