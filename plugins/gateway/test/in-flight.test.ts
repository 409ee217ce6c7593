import type http from 'node:http';
import { expect } from 'chai';
import { eventually } from '../../../test/helpers/kernel.ts';
import { startUpstream, type Upstream } from '../../../test/helpers/upstream.ts';
import { startGatewayKernel } from './helpers.ts';

/**
 * Every call to an endpoint (execute, resolve, submit, `callRoute` of object events and remote
 * plugins, `streamRoute` of the client passthrough) takes one of the endpoint's in-flight slots, and
 * a kept answer holds no more bytes than asked for.
 */
describe('gateway: calls in flight per endpoint, and answer bytes kept', () => {
  let g: Awaited<ReturnType<typeof startGatewayKernel>>;
  let up: Upstream;
  const held: http.ServerResponse[] = [];
  let endpoint: { id: string; name: string };
  const routes: Record<string, string> = {};

  before(async () => {
    up = await startUpstream((req, res) => {
      if (req.url === '/hold') return void held.push(res);
      res.setHeader('content-type', 'text/plain');
      // Without a Content-Length: passed on as a stream (a small declared answer is read whole).
      if (req.url === '/chunked') return void res.write('o', () => res.end('k'));
      res.end(req.url === '/big' ? 'x'.repeat(4096) : 'ok');
    });
    g = await startGatewayKernel({
      env: { GATEWAY_ENDPOINT_MAX_IN_FLIGHT: '1', OUTBOUND_MAX_RESPONSE_BYTES: '2048' },
    });
    endpoint = await g.createEndpoint({ baseUrl: up.url });
    for (const path of ['/hold', '/big', '/ok', '/chunked'])
      routes[path] = (await g.createRoute(endpoint.id, 'GET', path)).id;
  });
  afterEach(() => {
    for (const res of held.splice(0)) res.end('done');
  });
  after(async () => {
    await g.t.close();
    await up.close();
  });

  const execute = (path: string) => g.call('POST', `/api/v1/gateway/routes/${routes[path]}/execute`, g.manager, {});
  const catalog = () => g.t.kernel.resolve('gatewayRoutes');

  it('refuses a call beyond GATEWAY_ENDPOINT_MAX_IN_FLIGHT with 429 ENDPOINT_BUSY and Retry-After', async () => {
    const first = execute('/hold');
    await eventually(() => expect(held).to.have.length(1));
    const refused = await execute('/ok');
    expect(refused.statusCode).to.equal(429);
    expect(refused.json().code).to.equal('ENDPOINT_BUSY');
    expect(Number(refused.headers['retry-after'])).to.be.within(1, 5);
    for (const res of held.splice(0)) res.end('done');
    expect((await first).statusCode).to.equal(200);
    expect((await execute('/ok')).statusCode).to.equal(200);
  });

  it('keeps a streamed answer in flight until its body is over', async () => {
    const answer = await catalog().streamRoute(endpoint.id, routes['/chunked'], {});
    expect(answer.status).to.equal(200);
    if (Buffer.isBuffer(answer.body)) throw new Error('expected a stream');
    expect((await execute('/ok')).statusCode, 'the unread answer holds the slot').to.equal(429);
    let body = '';
    for await (const chunk of answer.body) body += String(chunk);
    expect(body).to.equal('ok');
    const small = await catalog().streamRoute(endpoint.id, routes['/ok'], {});
    expect(small.body, 'a small declared answer arrives whole').to.deep.equal(Buffer.from('ok'));
    await eventually(async () => expect((await execute('/ok')).statusCode).to.equal(200));
  });

  it('keeps at most the bytes a caller asks for, and never more than the cap', async () => {
    const small = await catalog().callRoute(endpoint.id, routes['/big'], { maxBytes: 100 });
    expect(small.body.length).to.equal(100);
    expect(small.truncated).to.equal(true);
    const capped = await catalog().callRoute(endpoint.id, routes['/big'], { maxBytes: 1_000_000 });
    expect(capped.body.length).to.equal(2048);
    expect(capped.truncated).to.equal(true);
  });
});
