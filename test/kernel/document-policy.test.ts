import { expect } from 'chai';
import { nonJsonAnswer } from '../../kernel/answer-schemas.ts';
import { documentHeaders } from '../../kernel/document-policy.ts';
import { definePlugin, type PluginManifest } from '../../kernel/plugin.ts';
import { ANY_JSON_ANSWER } from '../helpers/any-answer.ts';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';

const HTML = '<!doctype html><title>t</title><p>hello</p>';
const html = { 200: nonJsonAnswer('text/html', 'A page') };

/** Routes answering HTML the ways a plugin can: no policy, its own policy, an answer relayed with one. */
const documents = definePlugin({
  id: 'test-documents',
  processes: ['core-api'],
  needs: [],
  routes(app) {
    app.get('/t/plain-page', { config: { public: true }, schema: { response: html } }, async (_r, reply) =>
      reply.type('text/html; charset=utf-8').send(HTML),
    );
    app.get(
      '/t/own-page',
      {
        config: {
          public: true,
          documentPolicy: { sandbox: '', 'default-src': "'self'", 'frame-ancestors': "'self'", 'base-uri': "'self'" },
        },
        schema: { response: html },
      },
      async (_r, reply) => reply.type('text/html').send(Buffer.from(HTML)),
    );
    app.get('/t/relayed-page', { config: { public: true }, schema: { response: html } }, async (_r, reply) =>
      reply.type('text/html').header('content-security-policy', 'sandbox').send(HTML),
    );
    app.get('/t/json', { config: { public: true }, schema: { response: ANY_JSON_ANSWER } }, () => ({ ok: true }));
  },
}) as PluginManifest;

/** The policy's directives by name. */
const directives = (csp: unknown) =>
  new Map(
    String(csp)
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...sources]) => [name, sources.join(' ')]),
  );

describe('kernel: the document policy of every HTML answer (Content-Security-Policy, framing, nosniff)', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ plugins: [], extraPlugins: [documents] });
  });
  after(() => t.close());

  it('an HTML answer whose route declares no policy gets the strict one: nothing runs, nothing frames it', async () => {
    const res = await t.inject({ method: 'GET', url: '/t/plain-page' });
    expect(res.statusCode).to.equal(200);
    const csp = directives(res.headers['content-security-policy']);
    expect(csp.get('default-src')).to.equal("'none'");
    expect(csp.has('script-src')).to.equal(false);
    expect(csp.get('object-src')).to.equal("'none'");
    expect(csp.get('base-uri')).to.equal("'none'");
    expect(csp.get('frame-ancestors')).to.equal("'none'");
    expect(res.headers['x-frame-options']).to.equal('DENY');
    expect(res.headers['x-content-type-options']).to.equal('nosniff');
  });

  it("a route's own policy is sent in its order, the kernel filling only what it leaves out", async () => {
    const res = await t.inject({ method: 'GET', url: '/t/own-page' });
    expect(res.headers['content-security-policy']).to.equal(
      "sandbox; default-src 'self'; frame-ancestors 'self'; base-uri 'self'; object-src 'none'; form-action 'self'",
    );
    expect(res.headers['x-frame-options']).to.equal('SAMEORIGIN');
    expect(res.headers['x-content-type-options']).to.equal('nosniff');
  });

  it('an answer that already carries a policy (relayed) keeps it; every answer, JSON too, gets nosniff', async () => {
    const relayed = await t.inject({ method: 'GET', url: '/t/relayed-page' });
    expect(relayed.headers['content-security-policy']).to.equal('sandbox');
    expect(relayed.headers['x-content-type-options']).to.equal('nosniff');
    const json = await t.inject({ method: 'GET', url: '/t/json' });
    expect(json.headers['content-security-policy']).to.equal(undefined);
    expect(json.headers['x-content-type-options']).to.equal('nosniff');
    const missing = await t.inject({ method: 'GET', url: '/t/nowhere' });
    expect(missing.statusCode).to.equal(404);
    expect(missing.headers['x-content-type-options']).to.equal('nosniff');
  });

  it('a policy that would end its directive or the header stops start-up, naming the route', async () => {
    for (const [policy, reason] of [
      [{ 'script-src': "'self'; script-src *" }, /script-src: the sources must be one line/],
      [{ 'Script Src': "'self'" }, /"Script Src" is not a directive name/],
      [{ 'img-src': 'a.test\r\nset-cookie: x=1' }, /img-src: the sources must be one line/],
    ] as const) {
      const bad = definePlugin({
        id: 'test-bad-document',
        processes: ['core-api'],
        needs: [],
        routes(app) {
          app.get(
            '/t/bad',
            { config: { public: true, documentPolicy: policy }, schema: { response: html } },
            () => HTML,
          );
        },
      }) as PluginManifest;
      let failure: Error | undefined;
      await startTestKernel({ plugins: [], extraPlugins: [bad] }).then(
        (k) => k.close(),
        (err: Error) => {
          failure = err;
        },
      );
      expect(failure?.message).to.match(/GET \/t\/bad: config\.documentPolicy/);
      expect(failure?.message).to.match(reason);
    }
    expect(() => documentHeaders({ 'img-src': 'a;b' })).to.throw(/img-src/);
  });
});
