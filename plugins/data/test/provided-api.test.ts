import { expect } from 'chai';
import { definePlugin, notFound, SYSTEM, type PluginManifest, type RecordChange } from '../../../kernel/index.ts';
import { startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';
import type { DataServices } from '../services/index.ts';
import { ANY_JSON_ANSWER } from '../../../test/helpers/any-answer.ts';

const SYSTEM_WRITE = { actor: SYSTEM, changeActor: { type: 'system' as const, id: null } };

/** A gateway-side plugin that reads published objects through the data plugin's provided service. */
const reader = definePlugin({
  id: 'test-published-reader',
  processes: ['gateway'],
  needs: ['dataObjects'],
  routes(app, { dataObjects }) {
    app.get<{ Params: { id: string } }>(
      '/t/published/:id',
      { config: { public: true }, schema: { response: ANY_JSON_ANSWER } },
      async (request) => {
        try {
          return await dataObjects.getPublished(request.params.id);
        } catch {
          throw notFound('Not found');
        }
      },
    );
  },
}) as PluginManifest;

describe('data: services without routes in the gateway process', () => {
  let t: TestKernel;
  let data: DataServices;
  before(async () => {
    t = await startTestKernel({ service: 'gateway', extraPlugins: [reader] });
    data = t.kernel.pluginDeps('data').services as DataServices;
  });
  after(() => t.close());

  it('loads the data services but mounts none of its routes', async () => {
    expect(t.kernel.plugins.map((p) => p.id)).to.include('data');
    for (const url of ['/data-classes', '/data-objects', '/public/data-objects?className=X', '/data-components']) {
      expect((await t.inject({ method: 'GET', url })).statusCode, url).to.equal(404);
    }
  });

  it('reads published objects through dataObjects; a draft answers like an unknown id', async () => {
    const cls = await data.classes.create(
      { actor: SYSTEM },
      { name: 'GatewayRead', fields: [{ name: 'title', type: 'text' }] },
    );
    const api = t.kernel.resolve('dataObjects');
    const published = await api.create(SYSTEM_WRITE, {
      classId: cls.id,
      published: true,
      attributes: { title: 'out' },
    });
    const draft = await api.create(SYSTEM_WRITE, {
      classId: cls.id,
      published: false,
      attributes: { title: 'hidden' },
    });
    const ok = await t.inject({ method: 'GET', url: `/t/published/${published.id}` });
    expect(ok.statusCode).to.equal(200);
    expect(ok.json()).to.deep.include({
      id: published.id,
      class: { id: cls.id, name: 'GatewayRead' },
      attributes: { title: 'out' },
    });
    expect((await t.inject({ method: 'GET', url: `/t/published/${draft.id}` })).statusCode).to.equal(404);
    const page = await api.queryPublished({
      className: 'GatewayRead',
      filters: [{ field: 'title', op: 'eq', value: 'out' }],
    });
    expect(page.objects.map((o) => o.id)).to.deep.equal([published.id]);
  });
});

describe("data: writes join a caller's transaction (trx)", () => {
  let t: TestKernel;
  let data: DataServices;
  const events: RecordChange[] = [];
  before(async () => {
    t = await startTestKernel({ plugins: ['data'] });
    data = t.kernel.pluginDeps('data').services as DataServices;
    t.kernel.resolve('recordHooks').subscribe('object', (change) => void events.push(change));
  });
  after(() => t.close());

  const count = async (table: string, where: Record<string, unknown> = {}) =>
    Number((await t.db(table).where(where).count({ n: '*' }).first())!.n);

  it('a rolled-back caller transaction leaves no class, object, unique claim or audit row', async () => {
    const auditBefore = await count('audit_log');
    const [objectsBefore, claimsBefore] = [await count('data_objects'), await count('data_unique_values')];
    events.length = 0;
    const failed = await t.db
      .transaction(async (trx) => {
        const cls = await data.classes.create(
          { actor: SYSTEM },
          { name: 'ImportedThing', fields: [{ name: 'sku', type: 'text', unique: true }] },
          { trx },
        );
        await t.kernel
          .resolve('dataObjects')
          .create({ ...SYSTEM_WRITE, trx }, { classId: cls.id, published: true, attributes: { sku: 'A-1' } });
        throw new Error('the page import failed');
      })
      .catch((err: Error) => err.message);
    expect(failed).to.equal('the page import failed');
    expect(await count('data_classes', { name: 'ImportedThing' })).to.equal(0);
    expect(await count('data_objects')).to.equal(objectsBefore);
    expect(await count('data_unique_values')).to.equal(claimsBefore);
    expect(await count('audit_log')).to.equal(auditBefore);
    // The event was announced inside the transaction, so its subscribers' rows rolled back with it.
    expect(events.some((e) => e.kind === 'created')).to.equal(true);
    // The schema cache does not keep the class that never committed.
    const missing = await t.inject({ method: 'GET', url: '/public/data-objects?className=ImportedThing' });
    expect(missing.statusCode).to.equal(400);
  });

  it('a committed caller transaction keeps every write', async () => {
    const objectId = await t.db.transaction(async (trx) => {
      const cls = await data.classes.create(
        { actor: SYSTEM },
        { name: 'ImportedKept', fields: [{ name: 'sku', type: 'text', unique: true }] },
        { trx },
      );
      const made = await t.kernel
        .resolve('dataObjects')
        .create({ ...SYSTEM_WRITE, trx }, { classId: cls.id, published: true, attributes: { sku: 'K-1' } });
      return made.id;
    });
    const res = await t.inject({ method: 'GET', url: `/public/data-objects/${objectId}` });
    expect(res.statusCode).to.equal(200);
    expect(res.json().attributes).to.deep.equal({ sku: 'K-1' });
  });

  it('a refused write inside a caller transaction rolls back only its savepoint', async () => {
    const cls = await data.classes.create(
      { actor: SYSTEM },
      { name: 'ImportedTwice', fields: [{ name: 'sku', type: 'text', unique: true }] },
    );
    const api = t.kernel.resolve('dataObjects');
    const outcome = await t.db.transaction(async (trx) => {
      await api.create({ ...SYSTEM_WRITE, trx }, { classId: cls.id, published: true, attributes: { sku: 'dup' } });
      const second = await api
        .create({ ...SYSTEM_WRITE, trx }, { classId: cls.id, published: true, attributes: { sku: 'dup' } })
        .catch((err) => err.statusCode);
      return second;
    });
    expect(outcome).to.equal(409);
    expect(await count('data_objects', { class_id: cls.id })).to.equal(1);
  });
});
