import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startGatewayKernel } from './helpers.ts';
import { startUpstream, type Upstream } from '../../../test/helpers/upstream.ts';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const fixture = (name: string) => readFileSync(path.join(fixtures, name), 'utf8');

describe('gateway OpenAPI import, inferred schemas and preview-resolve', () => {
  let g: Awaited<ReturnType<typeof startGatewayKernel>>;
  let up: Upstream;
  before(async () => {
    up = await startUpstream();
    g = await startGatewayKernel();
  });
  after(async () => {
    await g.t.close();
    await up.close();
  });

  const importSpec = (endpointId: string, spec: string) =>
    g.call('POST', `/api/v1/gateway/endpoints/${endpointId}/import-openapi`, g.manager, { spec });

  it('imports an OpenAPI 3.1 YAML document: one route per operation, success schemas with $refs resolved', async () => {
    const ep = await g.createEndpoint({ baseUrl: up.url });
    const res = await importSpec(ep.id, fixture('bookshop-openapi-3.1.yaml'));
    expect(res.statusCode).to.equal(200);
    const body = res.json();
    expect(body).to.include({ format: 'openapi-3.1', title: 'Bookshop API' });
    expect(body.servers).to.deep.equal(['https://api.bookshop.example/v1', 'https://sandbox.bookshop.example/v1']);
    expect(body.created.map((r: { method: string; path: string }) => `${r.method} ${r.path}`).sort()).to.deep.equal([
      'DELETE /books/{isbn}',
      'GET /books',
      'GET /books/{isbn}',
      'GET /orders/{orderId}/items',
      'POST /books',
    ]);
    const getBook = body.created.find((r: { name: string }) => r.name === 'getBook');
    expect(getBook.pathParams).to.deep.equal(['isbn']);
    const schema = await g.call('GET', `/api/v1/gateway/routes/${getBook.id}/schema`, g.manager);
    expect(schema.json().source).to.equal('openapi');
    expect(schema.json().schema.properties.authors.items.properties.name).to.deep.equal({ type: 'string' });
    // Importing again creates nothing new.
    const again = await importSpec(ep.id, fixture('bookshop-openapi-3.1.yaml'));
    expect(again.json().created).to.have.length(0);
    expect(again.json().skipped).to.have.length(5);
  });

  it('leaves out an operation whose path the route form refuses (longer than 2,000 characters)', async () => {
    const ep = await g.createEndpoint({ baseUrl: up.url });
    const long = `/items/${'x'.repeat(2_000)}`;
    const spec = JSON.stringify({
      openapi: '3.1.0',
      info: { title: 'Long paths', version: '1' },
      paths: { [long]: { get: { operationId: 'tooLong' } }, '/short': { get: { operationId: 'short' } } },
    });
    const res = await importSpec(ep.id, spec);
    expect(res.statusCode).to.equal(200);
    expect(res.json().created.map((r: { path: string }) => r.path)).to.deep.equal(['/short']);
    // The same path through the route form: refused, so the import may not store it either.
    const direct = await g.call('POST', `/api/v1/gateway/endpoints/${ep.id}/routes`, g.manager, {
      method: 'GET',
      path: long,
    });
    expect(direct.statusCode).to.equal(400);
  });

  it('imports a Swagger 2.0 JSON document (servers from host and basePath)', async () => {
    const ep = await g.createEndpoint({ baseUrl: up.url });
    const res = await importSpec(ep.id, fixture('petstore-swagger-2.0.json'));
    expect(res.statusCode).to.equal(200);
    const body = res.json();
    expect(body).to.include({ format: 'swagger-2.0', title: 'Swagger Petstore' });
    expect(body.servers).to.deep.equal(['https://petstore.swagger.io/v2', 'http://petstore.swagger.io/v2']);
    expect(body.created).to.have.length(7);
    const getPet = body.created.find((r: { name: string }) => r.name === 'getPetById');
    expect(getPet).to.include({ method: 'GET', path: '/pet/{petId}', description: 'Find pet by ID', hasSchema: true });
    const schema = (await g.call('GET', `/api/v1/gateway/routes/${getPet.id}/schema`, g.manager)).json().schema;
    expect(schema.properties.category.properties.name).to.deep.equal({ type: 'string' });
    // An imported route is callable with its parameter.
    const exec = await g.call('POST', `/api/v1/gateway/routes/${getPet.id}/execute`, g.manager, {
      params: { petId: '7' },
    });
    expect(exec.json().body).to.deep.equal({ ok: true, path: '/pet/7' });
  });

  it('refuses documents it cannot read with 400 on spec, creating nothing', async () => {
    const ep = await g.createEndpoint({ baseUrl: up.url });
    for (const spec of [
      '{ not json: [',
      'openapi: 2.5\npaths: {}',
      'just a string',
      'swagger: "2.0"\ninfo: {}\n',
      'a: &a [*a, *a]',
    ]) {
      const res = await importSpec(ep.id, spec);
      expect(res.statusCode, spec).to.equal(400);
      expect(res.json().field, spec).to.equal('spec');
    }
    expect(await g.t.db('gateway_routes').where({ endpoint_id: ep.id })).to.have.length(0);
    expect(
      (await importSpec('00000000-0000-4000-8000-000000000000', fixture('petstore-swagger-2.0.json'))).statusCode,
    ).to.equal(404);
  });

  it('refresh-schema infers a schema and a trimmed sample from a live JSON answer', async () => {
    up.handle((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          data: {
            items: Array.from({ length: 10 }, (_, i) => ({
              id: i,
              name: `n${i}`,
              at: '2024-05-01T10:00:00Z',
              ...(i % 2 ? { extra: true } : {}),
            })),
          },
          total: 10.5,
        }),
      );
    });
    const ep = await g.createEndpoint({ baseUrl: up.url });
    const route = await g.createRoute(ep.id, 'GET', '/things');
    const res = await g.call('POST', `/api/v1/gateway/routes/${route.id}/refresh-schema`, g.manager, {});
    expect(res.statusCode).to.equal(200);
    const { schema, sample, source } = res.json();
    expect(source).to.equal('inferred');
    expect(schema.properties.total).to.deep.equal({ type: 'number' });
    const item = schema.properties.data.properties.items.items;
    expect(item.properties.at).to.deep.equal({ type: 'string', format: 'date-time' });
    expect(item.required).to.deep.equal(['id', 'name', 'at']);
    expect(item.properties.extra).to.deep.equal({ type: 'boolean' });
    expect(sample.data.items).to.have.length(3);
    expect((await g.call('GET', `/api/v1/gateway/routes/${route.id}/schema`, g.manager)).json().schema).to.deep.equal(
      schema,
    );
    up.handle((_req, res) => res.end('<html>'));
    const notJson = await g.call('POST', `/api/v1/gateway/routes/${route.id}/refresh-schema`, g.manager, {});
    expect(notJson.statusCode).to.equal(502);
    expect(notJson.json().code).to.equal('UPSTREAM_NOT_JSON');
  });

  it('preview-resolve calls the route live and applies the result filter', async () => {
    up.handle((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          data: {
            items: [
              { id: 1, title: 'A', secret: 's' },
              { id: 2, title: 'B', secret: 's' },
              { id: 3, title: 'C' },
            ],
          },
          url: req.url,
        }),
      );
    });
    const ep = await g.createEndpoint({ baseUrl: up.url });
    const route = await g.createRoute(ep.id, 'GET', '/lists/{list}');
    const res = await g.call('POST', '/api/v1/gateway/preview-resolve', g.manager, {
      endpointId: ep.id,
      routeId: route.id,
      parameters: { path: { list: 'news' }, query: { lang: 'de' } },
      resultFilter: { path: 'data.items', pick: ['id', 'title'], rename: { title: 'headline' }, limit: 2 },
    });
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.deep.equal({
      status: 200,
      data: [
        { id: 1, headline: 'A' },
        { id: 2, headline: 'B' },
      ],
      truncated: false,
    });
    expect(up.requests.at(-1)!.url).to.equal('/lists/news?lang=de');
    // A missing path parameter is named where this body holds it.
    const missing = await g.call('POST', '/api/v1/gateway/preview-resolve', g.manager, {
      endpointId: ep.id,
      routeId: route.id,
      parameters: { query: { lang: 'de' } },
    });
    expect(missing.statusCode, missing.body).to.equal(400);
    expect(missing.json()).to.include({ code: 'VALIDATION_FAILED', field: 'parameters.path.list' });
    const other = await g.createEndpoint({ baseUrl: up.url });
    const mismatch = await g.call('POST', '/api/v1/gateway/preview-resolve', g.manager, {
      endpointId: other.id,
      routeId: route.id,
    });
    expect(mismatch.statusCode).to.equal(404);
  });
});
