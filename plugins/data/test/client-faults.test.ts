import { expect } from 'chai';
import { SYSTEM, isHttpError } from '../../../kernel/index.ts';
import type { DataServices } from '../services/index.ts';
import { startDataKernel, type DataKernel } from './data-kernel.ts';

type Res = { statusCode: number; body: string; json(): { field?: string; message?: string; code?: string } };

/** Inputs PostgreSQL refuses (data exceptions, class 22) must answer 400 naming the field, never 500. */
describe('data: values PostgreSQL cannot take answer 400 naming the field', () => {
  let k: DataKernel;
  let cls: { id: string; name: string };
  before(async () => {
    k = await startDataKernel({ PUBLIC_DATA_RATE_LIMIT_PER_MINUTE: '10000' });
    cls = await k.createClass([
      { name: 'title', type: 'text' },
      { name: 'at', type: 'datetime' },
      { name: 'day', type: 'date' },
      { name: 'data', type: 'json' },
      { name: 'tags', type: 'array', of: 'text' },
    ]);
    await k.createObject({
      classId: cls.id,
      key: 'one',
      published: true,
      attributes: { title: 'x', at: '2024-05-01T12:00:00Z', day: '2024-05-01' },
    });
  });
  after(() => k.t.close());

  const expect400 = (res: Res, field: string, label = field) => {
    expect(res.statusCode, `${label}: ${res.body}`).to.equal(400);
    expect(res.json().field, label).to.equal(field);
  };
  const adminQuery = (body: Record<string, unknown>) =>
    k.call('POST', '/data-objects/query', k.reader, { className: cls.name, ...body });
  const publicQuery = (body: Record<string, unknown>) =>
    k.call('POST', '/public/data-objects/query', null, { className: cls.name, ...body });

  describe('dates and timestamps in filters: years 1 to 9999', () => {
    it('refuses a timestamp before year 1 or after 9999 on createdAt/updatedAt (PostgreSQL 22008)', async () => {
      for (const value of [
        '-004714-01-01T00:00:00Z',
        '+275760-09-13T00:00:00Z',
        '0000-12-31T23:59:59Z',
        '9999-12-31T23:59:59-01:00',
      ]) {
        const filters = [
          { field: 'key', op: 'eq', value: 'one' },
          { field: 'createdAt', op: 'gt', value },
        ];
        expect400(await adminQuery({ filters }), 'filters.1.value', `admin ${value}`);
        expect400(
          await publicQuery({ filters: [{ field: 'updatedAt', op: 'lte', value }] }),
          'filters.0.value',
          `public ${value}`,
        );
      }
      const inList = await adminQuery({
        filters: [{ field: 'createdAt', op: 'in', value: ['2024-01-01T00:00:00Z', '-004714-01-01T00:00:00Z'] }],
      });
      expect400(inList, 'filters.0.value', 'in');
      expect(
        (await adminQuery({ filters: [{ field: 'createdAt', op: 'gt', value: '-004714-01-01T00:00:00Z' }] })).json()
          .message,
      ).to.match(/years 1 to 9999/);
    });

    it('refuses the same on datetime and date attributes (also as public simple filters)', async () => {
      expect400(
        await publicQuery({ filters: [{ field: 'at', op: 'gt', value: '-004714-01-01T00:00:00Z' }] }),
        'filters.0.value',
        'datetime',
      );
      for (const value of ['0000-01-01', '2024-02-30', '2024-13-01']) {
        expect400(
          await publicQuery({ filters: [{ field: 'day', op: 'gte', value }] }),
          'filters.0.value',
          `date ${value}`,
        );
      }
      expect400(
        await k.call('GET', `/public/data-objects?className=${cls.name}&day=0000-01-01`, null),
        'filters.0.value',
        'simple filter',
      );
    });

    it('still accepts the whole range', async () => {
      const keys = async (res: Res) => {
        expect(res.statusCode, res.body).to.equal(200);
        return (res.json() as unknown as { objects: Array<{ key: string }> }).objects.map((o) => o.key);
      };
      const one = { field: 'key', op: 'eq', value: 'one' };
      expect(
        await keys(
          await adminQuery({
            filters: [
              one,
              { field: 'createdAt', op: 'gt', value: '0001-01-01T00:00:00Z' },
              { field: 'updatedAt', op: 'lt', value: '9999-12-31T23:59:59.999Z' },
            ],
          }),
        ),
      ).to.deep.equal(['one']);
      expect(
        await keys(
          await publicQuery({
            filters: [
              one,
              { field: 'at', op: 'gte', value: '2024-05-01T12:00:00+00:00' },
              { field: 'day', op: 'gt', value: '0001-01-01' },
            ],
          }),
        ),
      ).to.deep.equal(['one']);
      expect(
        await keys(
          await publicQuery({
            filters: [
              one,
              { field: 'at', op: 'lt', value: '9999-12-31T23:59:59Z' },
              { field: 'day', op: 'lte', value: '9999-12-31' },
            ],
          }),
        ),
      ).to.deep.equal(['one']);
    });
  });

  describe('lone surrogates (half of a UTF-16 pair) in any string', () => {
    const LONE = '\ud800';
    const write = (method: string, url: string, body: unknown) => k.call(method, url, k.editor, body);
    const expectInvalidText = (res: Res, field: string, label = field) => {
      expect400(res, field, label);
      expect(res.json().code, label).to.equal('INVALID_TEXT');
      expect(res.json().message, label).to.match(/lone UTF-16 surrogate/);
    };

    it('answers 400 INVALID_TEXT naming the attribute or key on create and update (PostgreSQL 22P02 in jsonb)', async () => {
      expectInvalidText(
        await write('POST', '/data-objects', { classId: cls.id, attributes: { title: `a${LONE}` } }),
        'attributes.title',
      );
      expectInvalidText(
        await write('POST', '/data-objects', { classId: cls.id, attributes: { data: { list: [1, { note: LONE }] } } }),
        'attributes.data.list.1.note',
      );
      expectInvalidText(
        await write('POST', '/data-objects', { classId: cls.id, key: `k${LONE}`, attributes: {} }),
        'key',
      );
      const id = (await k.createObject({ classId: cls.id, attributes: { title: 'fine' } })).id;
      expectInvalidText(
        await write('PATCH', `/data-objects/${id}`, { attributes: { title: LONE } }),
        'attributes.title',
        'patch',
      );
      const ok = await write('POST', '/data-objects', {
        classId: cls.id,
        attributes: { title: 'smile 😀', data: { '😀': '😀' } },
      });
      expect(ok.statusCode, ok.body).to.equal(201);
    });

    // The kernel refuses them in every request first; the services repeat the rule for callers that
    // do not come through HTTP (the provided dataObjects, other plugins' imports, jobs).
    describe('in the services, for callers that do not come through HTTP', () => {
      const SYSTEM_WRITE = { actor: SYSTEM, changeActor: { type: 'system' as const, id: null } };
      let data: DataServices;
      before(() => {
        data = k.t.kernel.pluginDeps('data').services as DataServices;
      });
      const refused = async (work: () => Promise<unknown>, field: string, code = 'INVALID_TEXT') => {
        const err = await work().then(
          () => null,
          (e: unknown) => e,
        );
        expect(isHttpError(err), `${field}: ${String(err)}`).to.equal(true);
        expect(err, field).to.deep.include({ statusCode: 400, code, field });
      };

      it('refuses them in attributes (json keys included), keys and bulk rows', async () => {
        const dataObjects = k.t.kernel.resolve('dataObjects');
        await refused(
          () => dataObjects.create(SYSTEM_WRITE, { classId: cls.id, attributes: { title: `a${LONE}` } }),
          'attributes.title',
        );
        await refused(
          () => dataObjects.create(SYSTEM_WRITE, { classId: cls.id, attributes: { tags: ['ok', '\udc00b'] } }),
          'attributes.tags.1',
        );
        await refused(
          () => dataObjects.create(SYSTEM_WRITE, { classId: cls.id, attributes: { data: { [`k${LONE}`]: 1 } } }),
          `attributes.data.k${LONE}`,
        );
        await refused(
          () => dataObjects.create(SYSTEM_WRITE, { classId: cls.id, key: `k${LONE}`, attributes: {} }),
          'key',
        );
        const id = (
          await dataObjects.create(SYSTEM_WRITE, {
            classId: cls.id,
            attributes: { title: 'smile 😀', data: { '😀': '😀' } },
          })
        ).id;
        await refused(() => dataObjects.update(SYSTEM_WRITE, id, { attributes: { title: LONE } }), 'attributes.title');
        const bulk = await data.bulk.run(SYSTEM_WRITE, {
          classId: cls.id,
          objects: [
            { attributes: { title: 'ok' } },
            { attributes: { title: LONE } },
            { key: `k${LONE}`, attributes: {} },
          ],
        });
        expect(bulk.rejected.map((r) => [r.index, r.field])).to.deep.equal([
          [1, 'attributes.title'],
          [2, 'key'],
        ]);
        expect(bulk.created).to.have.length(1);
      });

      it('refuses them in class, component and workflow definitions and in queries', async () => {
        const audit = { actor: SYSTEM };
        await refused(() => data.classes.create(audit, { name: 'sur_a', label: LONE }), 'label');
        await refused(
          () => data.classes.create(audit, { name: 'sur_b', fields: [{ name: 'a', type: 'text', label: LONE }] }),
          'fields.0.label',
        );
        await refused(
          () =>
            data.classes.create(audit, {
              name: 'sur_c',
              fields: [{ name: 's', type: 'select', options: ['a', LONE] }],
            }),
          'fields.0.options.1',
        );
        await refused(
          () => data.classes.create(audit, { name: 'sur_d', viewConfig: { columns: [LONE] } }),
          'viewConfig.columns.0',
        );
        await refused(() => data.classes.update(audit, cls.id, { label: LONE }), 'label');
        await refused(() => data.components.create({ name: 'sur_e', label: LONE }), 'label');
        const comp = await data.components.create({ name: 'sur_f' });
        await refused(
          () => data.components.update(comp.id, { fields: [{ name: 'a', type: 'text', label: LONE }] }),
          'fields.0.label',
        );
        await refused(
          () => data.workflows.putWorkflow(cls.id, { places: [{ name: 'draft', label: LONE }], transitions: [] }),
          'places.0.label',
        );
        const dataObjects = k.t.kernel.resolve('dataObjects');
        await refused(
          () =>
            dataObjects.queryPublished({ className: cls.name, filters: [{ field: 'title', op: 'eq', value: LONE }] }),
          'filters.0.value',
        );
        await refused(
          () =>
            data.query.run(
              { className: cls.name, filters: [{ field: 'title', op: 'in', value: ['a', LONE] }] },
              'admin',
            ),
          'filters.0.value.1',
        );
      });

      it('refuses values nested deeper than 64 levels (the attributes object is level 1)', async () => {
        const nest = (depth: number) => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);
        const dataObjects = k.t.kernel.resolve('dataObjects');
        expect(
          (await dataObjects.create(SYSTEM_WRITE, { classId: cls.id, attributes: { data: nest(63) } })).attributes.data,
        ).to.deep.equal(nest(63));
        await refused(
          () => dataObjects.create(SYSTEM_WRITE, { classId: cls.id, attributes: { data: nest(5000) } }),
          `attributes.data${'.0'.repeat(63)}`,
          'TOO_DEEP',
        );
      });
    });
  });

  it('answers 400 naming the attribute for a json value nested thousands of levels deep', async () => {
    const payload = `{"classId":"${cls.id}","attributes":{"data":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
    const deep = await k.t.inject({
      method: 'POST',
      url: '/data-objects',
      payload,
      headers: { cookie: k.editor.cookie, 'content-type': 'application/json' },
    });
    expect(deep.statusCode, deep.body.slice(0, 200)).to.equal(400);
    expect(deep.json().field).to.match(/^attributes\.data(\.0)+$/);
    expect(deep.json().code).to.equal('TOO_DEEP');
  });
});
