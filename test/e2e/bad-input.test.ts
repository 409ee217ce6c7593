import { expect } from 'chai';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';

/** Bad input answers a clear 4xx on every route of the all-in-one process, never a 5xx. */
describe('bad input never reaches a 5xx', () => {
  let t: TestKernel;
  let cookie: string;
  before(async () => {
    t = await startTestKernel({ service: 'all' });
    cookie = (await t.admin()).cookie;
  });
  after(() => t.close());

  const call = (method: string, url: string, payload?: unknown) =>
    t.inject({ method: method as 'POST', url, headers: { cookie, 'content-type': 'application/json' }, payload: payload === undefined ? undefined : JSON.stringify(payload) });

  it('probes every documented route with malformed ids, queries and bodies', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/openapi.json' })).json();
    const bodies: unknown[] = [{}, { a: 1 }, [], 'x', null, { name: 'x'.repeat(5000), fields: [{ name: 'a', type: 'nope' }] }, { ids: ['zz'], action: 'publish' }, { className: "x'; drop", filters: [{ field: 'a', op: 'eq' }] }];
    const failures: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(methods)) {
        for (const id of ['not-a-uuid', '00000000-0000-0000-0000-000000000000', '%27%22']) {
          const url = path.replace(/\{[^}]+\}/g, id) + '?limit=abc&offset=-1&from=xx&ids=q,r&className=%00';
          for (const body of method === 'get' || method === 'delete' ? [undefined] : bodies) {
            const res = await call(method.toUpperCase(), url, body);
            if (res.statusCode >= 500) failures.push(`${method} ${url} ${JSON.stringify(body)} -> ${res.statusCode} ${res.body.slice(0, 160)}`);
          }
        }
      }
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });

  it('refuses the NUL character, which the database cannot store, with 400 naming the field', async () => {
    const cls = await call('POST', '/data-classes', { name: 'NulProbe', fields: [{ name: 'title', type: 'text' }, { name: 'meta', type: 'json' }] });
    expect(cls.statusCode).to.equal(201);
    const cases: Array<[string, string, unknown, string | undefined]> = [
      ['POST', '/auth/login', { email: 'a\u0000@x.y', password: 'password' }, 'email'],
      ['POST', '/auth/roles', { name: 'r\u0000', permissions: [] }, 'name'],
      ['POST', '/data-objects', { classId: cls.json().id, attributes: { title: 'a\u0000b' } }, 'attributes.title'],
      ['POST', '/data-objects', { classId: cls.json().id, attributes: { meta: { 'x\u0000': 1 } } }, 'attributes.meta.x\u0000'],
      ['POST', '/data-objects/bulk', { classId: cls.json().id, objects: [{ attributes: { title: '\u0000' } }] }, 'objects.0.attributes.title'],
      ['POST', '/public/data-objects/query', { className: 'Nul\u0000Probe' }, 'className'],
      ['GET', '/public/data-objects?className=NulProbe&title=%00', undefined, 'title'],
      ['GET', '/audit-log?action=%00', undefined, 'action'],
    ];
    for (const [method, url, body, field] of cases) {
      const res = await call(method, url, body);
      expect(res.statusCode, `${method} ${url}`).to.equal(400);
      expect(res.json(), `${method} ${url}`).to.include({ code: 'NUL_CHARACTER', field });
    }
    expect(await t.db('data_objects').count({ n: '*' }).first()).to.deep.equal({ n: 0 });
  });
});
