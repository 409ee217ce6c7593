import { expect } from 'chai';
import { Type } from '@sinclair/typebox';
import { requestContext } from '../../kernel/http.ts';
import { definePlugin, type PluginManifest } from '../../kernel/plugin.ts';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';
import { ANY_JSON_ANSWER } from '../helpers/any-answer.ts';

const SECRET_ERROR =
  'select * from secret_table where token = $1 failed at /work/main/plugins/test/secret-file.ts:12:3';

const httpPlugin = definePlugin({
  id: 'test-http',
  processes: ['core-api'],
  needs: ['audit'],
  routes(app, deps) {
    app.post(
      '/t/widgets',
      {
        config: { public: true },
        schema: {
          response: ANY_JSON_ANSWER,
          tags: ['test'],
          body: Type.Object(
            { name: Type.String({ minLength: 1 }), size: Type.Object({ width: Type.Integer({ minimum: 1 }) }) },
            { additionalProperties: false },
          ),
        },
      },
      async (request) => {
        await deps.audit.record(requestContext(request), {
          action: 'widget.create',
          targetType: 'widget',
          targetLabel: request.body.name,
        });
        return { ok: true };
      },
    );
    app.get('/t/boom', { config: { public: true }, schema: { response: ANY_JSON_ANSWER } }, async () => {
      throw new Error(SECRET_ERROR);
    });
  },
}) as PluginManifest;

describe('HTTP: errors, request ids, client address, OpenAPI', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ plugins: ['health', 'audit'], extraPlugins: [httpPlugin] });
  });
  after(() => t.close());

  const post = (payload: string | object, headers: Record<string, string> = {}) =>
    t.inject({
      method: 'POST',
      url: '/t/widgets',
      payload,
      headers: { 'content-type': 'application/json', ...headers },
    });
  const lastAudit = () => t.db('audit_log').orderBy('id', 'desc').first();

  it('answers 400 INVALID_JSON for a malformed body', async () => {
    const res = await post('{"name": "x",');
    expect(res.statusCode).to.equal(400);
    expect(res.json()).to.include({ statusCode: 400, error: 'Bad Request', code: 'INVALID_JSON' });
    expect(res.json().requestId).to.be.a('string');
  });

  it('answers 413 for a JSON body over 25 MB', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(25 * 1024 * 1024 + 10), size: { width: 1 } });
    const res = await post(big);
    expect(res.statusCode).to.equal(413);
    expect(res.json()).to.include({ statusCode: 413, code: 'BODY_TOO_LARGE' });
  });

  it('accepts a JSON body just under 25 MB', async () => {
    const payload = JSON.stringify({ name: 'x'.repeat(25 * 1024 * 1024 - 100), size: { width: 1 } });
    expect((await post(payload)).statusCode).to.equal(200);
  });

  it('answers 400 naming the field for a schema violation', async () => {
    const missing = await post({ size: { width: 1 } });
    expect(missing.statusCode).to.equal(400);
    expect(missing.json()).to.include({ code: 'VALIDATION_FAILED', field: 'name' });
    const nested = await post({ name: 'w', size: { width: 0 } });
    expect(nested.json()).to.include({ statusCode: 400, field: 'size.width' });
    const extra = await post({ name: 'w', size: { width: 1 }, admin: true });
    expect(extra.statusCode).to.equal(400);
  });

  it('answers 404 in the error shape for an unknown route', async () => {
    const res = await t.inject({ method: 'GET', url: '/t/nothing-here?x=1' });
    expect(res.statusCode).to.equal(404);
    expect(res.json()).to.include({ statusCode: 404, error: 'Not Found', code: 'ROUTE_NOT_FOUND' });
  });

  it('echoes X-Request-Id into the error body and into audit rows', async () => {
    const failed = await post('{', { 'x-request-id': 'edge-req-0001' });
    expect(failed.json().requestId).to.equal('edge-req-0001');
    const ok = await post({ name: 'traced', size: { width: 2 } }, { 'x-request-id': 'edge-req-0002' });
    expect(ok.statusCode).to.equal(200);
    expect(await lastAudit()).to.include({
      action: 'widget.create',
      target_label: 'traced',
      request_id: 'edge-req-0002',
    });
    const generated = await post({ name: 'untraced', size: { width: 2 } });
    expect((await lastAudit()).request_id).to.match(/^[0-9a-f-]{36}$/);
    expect(generated.statusCode).to.equal(200);
  });

  it('writes no audit row for a refused request', async () => {
    expect((await post({ name: 'accepted', size: { width: 1 } })).statusCode).to.equal(200);
    const before = await lastAudit();
    expect(before).to.include({ action: 'widget.create', target_label: 'accepted' });
    expect((await post({ name: '', size: { width: 1 } })).statusCode).to.equal(400);
    expect((await lastAudit()).id).to.equal(before.id);
  });

  it('takes the audit ip from the socket without TRUST_PROXY, ignoring X-Forwarded-For', async () => {
    await t.inject({
      method: 'POST',
      url: '/t/widgets',
      remoteAddress: '192.0.2.10',
      headers: { 'x-forwarded-for': '203.0.113.7' },
      payload: { name: 'direct', size: { width: 1 } },
    });
    expect(await lastAudit()).to.include({ target_label: 'direct', ip: '192.0.2.10' });
  });

  it('answers a thrown error with a 500 naming the detail outside production', async () => {
    const res = await t.inject({ method: 'GET', url: '/t/boom' });
    expect(res.statusCode).to.equal(500);
    expect(res.json()).to.include({ code: 'INTERNAL', message: SECRET_ERROR });
  });

  it('publishes an OpenAPI 3 document of the routes without a session', async () => {
    const res = await t.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).to.equal(200);
    const doc = res.json();
    expect(doc.openapi).to.match(/^3\./);
    expect(doc.info.version).to.be.a('string');
    expect(doc.paths).to.include.keys('/health', '/audit-log', '/t/widgets');
    expect(doc.paths['/audit-log'].get.parameters.map((p: { name: string }) => p.name)).to.include.members([
      'action',
      'actor',
      'limit',
      'format',
    ]);
    expect(doc.paths).not.to.have.property('/openapi.json');
  });
});

describe('HTTP: production and proxy behaviour', () => {
  it('in production answers 500 with a generic message: no SQL, stack or path, and the request id', async () => {
    const t = await startTestKernel({ plugins: [], extraPlugins: [httpPlugin], env: { NODE_ENV: 'production' } });
    try {
      const res = await t.inject({ method: 'GET', url: '/t/boom', headers: { 'x-request-id': 'prod-req-1' } });
      expect(res.statusCode).to.equal(500);
      expect(res.json()).to.deep.equal({
        statusCode: 500,
        error: 'Internal Server Error',
        code: 'INTERNAL',
        message: 'Internal server error',
        requestId: 'prod-req-1',
      });
      expect(res.body).not.to.match(/secret_table|select|\.ts|\/work\/|at /i);
    } finally {
      await t.close();
    }
  });

  it('with TRUST_PROXY=1 takes the audit ip from X-Forwarded-For', async () => {
    const t = await startTestKernel({ plugins: [], extraPlugins: [httpPlugin], env: { TRUST_PROXY: '1' } });
    try {
      const res = await t.inject({
        method: 'POST',
        url: '/t/widgets',
        remoteAddress: '10.0.0.2',
        headers: { 'x-forwarded-for': '203.0.113.7', 'x-request-id': 'proxied-1' },
        payload: { name: 'proxied', size: { width: 1 } },
      });
      expect(res.statusCode).to.equal(200);
      expect(await t.db('audit_log').where({ request_id: 'proxied-1' }).first()).to.include({ ip: '203.0.113.7' });
    } finally {
      await t.close();
    }
  });
});
