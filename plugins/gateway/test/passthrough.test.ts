import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import { startGatewayKernel } from './helpers.ts';
import { climbingTargets, confinedTargets, rawRequest, reEncodedTargets } from '../../../test/helpers/raw-http.ts';
import { startUpstream, type Upstream } from '../../../test/helpers/upstream.ts';

describe('gateway passthroughs /api/internal/*, /dam/*, /public/*', () => {
  let core: Upstream;
  let assets: Upstream;
  let g: Awaited<ReturnType<typeof startGatewayKernel>>;
  before(async () => {
    core = await startUpstream();
    assets = await startUpstream();
    for (const up of [core, assets]) {
      up.handle((req, res) => {
        res.statusCode = req.url.includes('missing') ? 404 : 200;
        res.setHeader('set-cookie', ['a=1; Path=/', 'b=2; Path=/']);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ method: req.method, url: req.url, body: req.body }));
      });
    }
    g = await startGatewayKernel({
      env: { GATEWAY_CORE_API_URL: core.url, GATEWAY_ASSET_PROCESSOR_URL: `${assets.url}/api/v1` },
    });
  });
  after(async () => {
    await g.t.close();
    await core.close();
    await assets.close();
  });

  it('/api/internal/* needs a session and reaches core-api without the prefix, cookie, body and status passed through', async () => {
    expect((await g.call('GET', '/api/internal/pages', null)).statusCode).to.equal(401);
    const res = await g.call('POST', '/api/internal/pages/42?draft=1', g.stranger, '<xml/>', {
      'content-type': 'application/xml',
    });
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.deep.equal({ method: 'POST', url: '/pages/42?draft=1', body: '<xml/>' });
    expect(core.requests.at(-1)!.headers.cookie).to.equal(g.stranger.cookie);
    expect(res.headers['set-cookie']).to.deep.equal(['a=1; Path=/', 'b=2; Path=/']);
    expect((await g.call('GET', '/api/internal/missing', g.stranger)).statusCode).to.equal(404);
  });

  it('/dam/* needs a session and reaches the asset-processor base URL', async () => {
    expect((await g.call('GET', '/dam/assets', null)).statusCode).to.equal(401);
    const res = await g.call('GET', '/dam/assets/folders?limit=5', g.stranger);
    expect(res.json().url).to.equal('/api/v1/assets/folders?limit=5');
  });

  it('/public/* is open and keeps its prefix; no visitor credential travels', async () => {
    const res = await g.call('GET', '/public/data-objects?class=news', null, undefined, {
      cookie: 'cms_session=x',
      authorization: 'Bearer y',
    });
    expect(res.statusCode).to.equal(200);
    expect(res.json().url).to.equal('/public/data-objects?class=news');
    expect(core.requests.at(-1)!.headers.cookie).to.equal(undefined);
    expect(core.requests.at(-1)!.headers.authorization).to.equal(undefined);
  });

  describe('the forwarded path stays under its prefix however it is spelled (raw request lines)', () => {
    let port: number;
    before(async () => {
      await g.t.kernel.app.listen({ port: 0, host: '127.0.0.1' });
      port = (g.t.kernel.app.server.address() as AddressInfo).port;
    });
    // Each passthrough, whether it needs a session, and where its paths land upstream.
    const passthroughs = () =>
      [
        { from: '/public', cookie: undefined, upstream: core, to: (rest: string) => `/public${rest}` },
        { from: '/api/internal', cookie: g.stranger.cookie, upstream: core, to: (rest: string) => rest },
        { from: '/dam', cookie: g.stranger.cookie, upstream: assets, to: (rest: string) => `/api/v1${rest}` },
      ] as const;

    // INVALID_URL: the router could not decode the path at all (overlong UTF-8), before INVALID_PATH's check.
    it('refuses a dot segment in every spelling, also re-encoded, with 400 INVALID_PATH or INVALID_URL; no upstream sees it', async () => {
      const seen = () => core.requests.length + assets.requests.length;
      const before = seen();
      const wrong: string[] = [];
      for (const p of passthroughs()) {
        for (const goal of ['metrics', 'auth/users']) {
          for (const target of [...climbingTargets(p.from, goal), ...reEncodedTargets(p.from, goal)]) {
            const answer = await rawRequest(port, target, { headers: p.cookie ? { cookie: p.cookie } : {} });
            const code = answer.status === 400 ? JSON.parse(answer.body).code : '';
            if (answer.status !== 400 || !['INVALID_PATH', 'INVALID_URL'].includes(code))
              wrong.push(`${target}: ${answer.status} ${code}`);
          }
        }
      }
      expect(wrong).to.deep.equal([]);
      expect(seen(), 'requests that reached an upstream').to.equal(before);
    });

    it('passes paths that only look alike, exactly as sent, below the base URL', async () => {
      for (const p of passthroughs()) {
        for (const target of confinedTargets(p.from)) {
          const answer = await rawRequest(port, target, { headers: p.cookie ? { cookie: p.cookie } : {} });
          expect(answer.status, target).to.equal(200);
          expect(p.upstream.requests.at(-1)!.url, target).to.equal(p.to(target.slice(p.from.length)));
        }
      }
    });
  });

  it('is not mounted where the base URLs are not configured (the all-in-one process serves those paths itself)', async () => {
    const bare = await startGatewayKernel();
    try {
      expect((await bare.call('GET', '/api/internal/pages', bare.manager)).statusCode).to.equal(404);
      expect((await bare.call('GET', '/dam/assets', bare.manager)).statusCode).to.equal(404);
    } finally {
      await bare.t.close();
    }
  });
});
