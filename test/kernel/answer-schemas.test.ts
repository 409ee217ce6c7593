import { Type } from '@sinclair/typebox';
import { expect } from 'chai';
import { badRequest, emptyAnswer, nonJsonAnswer, tooManyRequests } from '../../kernel/index.ts';
import { definePlugin, type PluginManifest } from '../../kernel/plugin.ts';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';
import { startFailure } from './boot.ts';

/** A plugin with one route declared by `schema` (or none). */
const onePlugin = (id: string, schema: object | undefined) =>
  definePlugin({
    id,
    processes: ['core-api'],
    needs: [],
    routes(app) {
      app.get('/t/answerless', { config: { public: true }, ...(schema ? { schema } : {}) }, async () => ({ ok: true }));
    },
  }) as PluginManifest;

describe('kernel: every route declares its answer schema', () => {
  it('refuses to start a route without a response schema, naming the plugin, method and URL', async () => {
    const message = await startFailure({ service: 'all', plugins: [onePlugin('test-answerless', undefined)] });
    expect(message)
      .to.include('plugin "test-answerless"')
      .and.include('GET /t/answerless')
      .and.include('answer schema');
  });

  it('refuses a route that declares only error answers', async () => {
    const message = await startFailure({
      service: 'all',
      plugins: [onePlugin('test-errors-only', { response: { 404: Type.Object({ code: Type.String() }) } })],
    });
    expect(message).to.include('plugin "test-errors-only"').and.include('GET /t/answerless');
  });

  it('starts routes answering 204, a redirect or a non-JSON body', async () => {
    const plugin = definePlugin({
      id: 'test-non-json',
      processes: ['core-api'],
      needs: [],
      routes(app) {
        const config = { public: true } as const;
        app.delete('/t/gone', { config, schema: { response: { 204: emptyAnswer('Deleted') } } }, async (_r, reply) =>
          reply.code(204).send(),
        );
        app.get('/t/away', { config, schema: { response: { 302: emptyAnswer('Elsewhere') } } }, async (_r, reply) =>
          reply.redirect('/t/gone', 302),
        );
        const csv = nonJsonAnswer('text/csv', 'Rows');
        app.get('/t/rows.csv', { config, schema: { response: { 200: csv } } }, async (_r, reply) =>
          reply.type('text/csv; charset=utf-8').send('a,b\n1,2\n'),
        );
      },
    }) as PluginManifest;
    const t = await startTestKernel({ plugins: [], extraPlugins: [plugin] });
    try {
      expect((await t.inject({ method: 'DELETE', url: '/t/gone' })).statusCode).to.equal(204);
      const away = await t.inject({ method: 'GET', url: '/t/away' });
      expect([away.statusCode, away.headers.location]).to.deep.equal([302, '/t/gone']);
      const rows = await t.inject({ method: 'GET', url: '/t/rows.csv' });
      expect([rows.statusCode, rows.body]).to.deep.equal([200, 'a,b\n1,2\n']);
      const doc = (await t.inject({ method: 'GET', url: '/openapi.json' })).json();
      expect(doc.paths['/t/rows.csv'].get.responses['200'].content).to.have.keys('text/csv');
      expect(doc.paths['/t/gone'].delete.responses['204'].description).to.equal('Deleted');
    } finally {
      await t.close();
    }
  });
});

describe('kernel: answers are serialised by their schema, errors by the error body', () => {
  let t: TestKernel;
  const Thing = Type.Object({ id: Type.String(), name: Type.String() });
  before(async () => {
    const plugin = definePlugin({
      id: 'test-answers',
      processes: ['core-api'],
      needs: [],
      routes(app) {
        const config = { public: true } as const;
        // The "store" returns internal columns beside the answer's own.
        app.get('/t/thing', { config, schema: { response: { 200: Thing } } }, async () => ({
          id: 't1',
          name: 'Thing',
          token_hash: 'c0ffee',
          claimed_until: new Date(0),
        }));
        app.post(
          '/t/thing',
          { config, schema: { body: Type.Object({ name: Type.String({ maxLength: 3 }) }), response: { 201: Thing } } },
          async () => {
            throw badRequest('The name is taken', 'name', 'NAME_TAKEN');
          },
        );
        app.get('/t/limited', { config, schema: { response: { 200: Thing } } }, async () => {
          throw tooManyRequests('Slow down', 7, 'TEST_LIMITED');
        });
        app.get('/t/broken', { config, schema: { response: { 200: Thing } } }, async () => {
          throw new Error('boom');
        });
      },
    }) as PluginManifest;
    t = await startTestKernel({ plugins: [], extraPlugins: [plugin] });
  });
  after(() => t?.close());

  it('drops a property the answer schema does not declare', async () => {
    const res = await t.inject({ method: 'GET', url: '/t/thing' });
    expect(res.json()).to.deep.equal({ id: 't1', name: 'Thing' });
    expect(res.body).not.to.include('c0ffee');
  });

  it('keeps every field of the error body: the field of a validation failure and of a thrown error', async () => {
    const invalid = await t.inject({ method: 'POST', url: '/t/thing', payload: { name: 'toolong' } });
    expect(invalid.statusCode).to.equal(400);
    expect(invalid.json()).to.include({
      statusCode: 400,
      error: 'Bad Request',
      code: 'VALIDATION_FAILED',
      field: 'name',
    });
    expect(invalid.json().requestId).to.be.a('string').and.not.empty;
    expect(invalid.json().message).to.be.a('string').and.not.empty;

    const taken = await t.inject({ method: 'POST', url: '/t/thing', payload: { name: 'abc' } });
    expect(taken.json()).to.include({
      statusCode: 400,
      code: 'NAME_TAKEN',
      field: 'name',
      message: 'The name is taken',
    });
  });

  it('keeps the Retry-After header of a 429 and the body of a 500', async () => {
    const limited = await t.inject({ method: 'GET', url: '/t/limited' });
    expect([limited.statusCode, limited.headers['retry-after']]).to.deep.equal([429, '7']);
    expect(limited.json()).to.include({ code: 'TEST_LIMITED', message: 'Slow down', error: 'Too Many Requests' });
    const broken = await t.inject({ method: 'GET', url: '/t/broken' });
    expect(broken.statusCode).to.equal(500);
    expect(broken.json()).to.have.keys('statusCode', 'error', 'code', 'message', 'requestId');
  });

  it('documents the error body on every operation of /openapi.json', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.components.schemas.ErrorBody.required).to.have.members([
      'statusCode',
      'error',
      'code',
      'message',
      'requestId',
    ]);
    const responses = doc.paths['/t/thing'].get.responses;
    for (const range of ['4XX', '5XX'])
      expect(responses[range].content['application/json'].schema).to.deep.equal({
        $ref: '#/components/schemas/ErrorBody',
      });
  });
});
