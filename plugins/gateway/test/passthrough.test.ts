import { expect } from 'chai';
import { startGatewayKernel } from './helpers.ts';
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
