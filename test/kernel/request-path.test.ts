import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import { definePlugin, type PluginManifest } from '../../kernel/index.ts';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';
import { climbingTargets, confinedTargets, rawRequest, reEncodedTargets } from '../helpers/raw-http.ts';
import { ANY_JSON_ANSWER } from '../helpers/any-answer.ts';

/** A wildcard route that answers the path it was given, and counts the calls that reached it. */
let handled = 0;
const echo = definePlugin({
  id: 'test-request-path',
  processes: ['core-api'],
  needs: [],
  routes(app) {
    app.get('/zz-files/*', { config: { public: true }, schema: { response: ANY_JSON_ANSWER } }, async (request) => {
      handled++;
      return { url: request.url };
    });
    app.get('/zz-session/*', { config: { session: true }, schema: { response: ANY_JSON_ANSWER } }, async () => ({
      ok: true,
    }));
  },
}) as PluginManifest;

/**
 * Every process refuses, before any handler, a request path that another hop could read as leaving
 * its prefix (kernel/request-path.ts): the all-in-one process has no proxy in front, and the split
 * services must not read a path differently from the proxy that routed it. Raw request lines, so no
 * client resolves the path first.
 */
describe('kernel: request paths with a dot segment in any spelling are refused (raw request lines)', () => {
  let t: TestKernel;
  let port: number;
  before(async () => {
    t = await startTestKernel({ plugins: [], extraPlugins: [echo] });
    await t.kernel.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.kernel.app.server.address() as AddressInfo).port;
  });
  after(() => t?.close());

  it('answers 400 naming the problem on a route, on a session route before authentication, and where no route matches', async () => {
    const before = handled;
    const wrong: string[] = [];
    for (const prefix of ['/zz-files', '/zz-session', '/zz-nowhere']) {
      for (const target of climbingTargets(prefix, 'metrics')) {
        const answer = await rawRequest(port, target);
        const body = answer.status === 400 ? JSON.parse(answer.body) : {};
        // INVALID_URL: the router itself could not decode the path (overlong UTF-8).
        if (!['INVALID_PATH', 'INVALID_URL'].includes(body.code))
          wrong.push(`${target}: ${answer.status} ${body.code}`);
        else if (body.code === 'INVALID_PATH' && body.field !== 'path') wrong.push(`${target}: field ${body.field}`);
      }
    }
    expect(wrong).to.deep.equal([]);
    expect(handled, 'requests that reached the handler').to.equal(before);
    const answer = JSON.parse((await rawRequest(port, '/zz-files/%2e%2e/metrics')).body);
    expect(answer.message).to.contain('".."');
  });

  it('lets through paths that only look alike, and re-encoded dots (data to a route that decodes once), unchanged', async () => {
    for (const target of [...confinedTargets('/zz-files'), ...reEncodedTargets('/zz-files', 'metrics')]) {
      const answer = await rawRequest(port, target);
      expect(answer.status, target).to.equal(200);
      expect(JSON.parse(answer.body).url, target).to.equal(target);
    }
  });
});
