import { expect } from 'chai';
import { createKnex } from '../../../kernel/database.ts';
import { definePlugin, notFound, SYSTEM, type PluginManifest } from '../../../kernel/index.ts';
import { createTestDatabase } from '../../../test/helpers/database.ts';
import { eventually, startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';
import type { DataServices } from '../services/index.ts';
import { ANY_JSON_ANSWER } from '../../../test/helpers/any-answer.ts';

/** A gateway-side plugin reading published objects through the data plugin's provided `dataObjects`. */
const gatewayReader = definePlugin({
  id: 'test-cache-reader',
  processes: ['gateway'],
  needs: ['dataObjects'],
  routes(app, { dataObjects }) {
    app.get<{ Params: { id: string } }>(
      '/t/cached/:id',
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

const servicesOf = (t: TestKernel) => t.kernel.pluginDeps('data').services as DataServices;

describe('data: public read cache across processes on one database', () => {
  // core-api (writes, public routes) and gateway (reads through dataObjects), each with its own pool,
  // services, cache and LISTEN connection, as two processes would be.
  let core: TestKernel;
  let gateway: TestKernel;
  let cookie: string;
  let classId: string;
  before(async function () {
    this.timeout(60_000);
    const database = await createTestDatabase();
    core = await startTestKernel({ plugins: ['data'], database, env: { PUBLIC_DATA_RATE_LIMIT_PER_MINUTE: '100000' } });
    const gatewayDb = createKnex(database.url, 3);
    gateway = await startTestKernel({
      service: 'gateway',
      extraPlugins: [gatewayReader],
      database: { db: gatewayDb, url: database.url, close: () => gatewayDb.destroy() },
    });
    cookie = (await core.admin()).cookie;
    const cls = await core.inject({
      method: 'POST',
      url: '/data-classes',
      headers: { cookie },
      payload: { name: 'cached', label: 'Cached', fields: [{ name: 'title', type: 'text' }] },
    });
    classId = cls.json().id;
    await eventually(async () => servicesOf(core).changes.listening && servicesOf(gateway).changes.listening, {
      what: 'both processes listening',
    });
  });
  after(async () => {
    await gateway?.close();
    await core?.close();
  });

  const write = (method: 'POST' | 'PATCH', url: string, payload: object) =>
    core.inject({ method, url, headers: { cookie }, payload });
  const readCore = (id: string) => core.inject({ method: 'GET', url: `/public/data-objects/${id}` });
  const readGateway = (id: string) => gateway.inject({ method: 'GET', url: `/t/cached/${id}` });

  it('publish -> read -> unpublish -> read: neither process serves the unpublished object', async () => {
    const created = await write('POST', '/data-objects', { classId, published: true, attributes: { title: 'v1' } });
    const id = created.json().id as string;
    expect((await readCore(id)).json().attributes.title).to.equal('v1');
    expect((await readGateway(id)).json().attributes.title).to.equal('v1');
    // A later read in each process is a cache hit. (The create's own notice may reach a process after
    // its first read and drop what that read stored, as any notice of the class does: read again.)
    await eventually(
      async () => {
        const hits = [servicesOf(core).readCache.stats.hits, servicesOf(gateway).readCache.stats.hits];
        expect((await readCore(id)).statusCode).to.equal(200);
        expect((await readGateway(id)).statusCode).to.equal(200);
        return (
          servicesOf(core).readCache.stats.hits === hits[0] + 1 &&
          servicesOf(gateway).readCache.stats.hits === hits[1] + 1
        );
      },
      { what: 'a cache hit in both processes' },
    );

    expect((await write('PATCH', `/data-objects/${id}`, { published: false })).statusCode).to.equal(200);
    // The writer's process: at once, no waiting.
    expect((await readCore(id)).statusCode).to.equal(404);
    // The other process: when the notice arrives (without it the cached answer would stay for ever).
    await eventually(async () => (await readGateway(id)).statusCode === 404, {
      what: 'gateway answers 404 after the unpublish',
    });
    expect((await readGateway(id)).statusCode).to.equal(404);

    expect(
      (await write('PATCH', `/data-objects/${id}`, { published: true, attributes: { title: 'v2' } })).statusCode,
    ).to.equal(200);
    expect((await readCore(id)).json().attributes.title).to.equal('v2');
    await eventually(async () => (await readGateway(id)).json()?.attributes?.title === 'v2', {
      what: 'gateway sees the republished object',
    });
  });

  it('pages are invalidated too; a write in a caller transaction counts when it commits', async () => {
    const list = () => core.inject({ method: 'GET', url: '/public/data-objects?className=cached&limit=100' });
    const before = (await list()).json().objects.length as number;
    expect((await list()).json().objects.length).to.equal(before);
    const trx = await core.db.transaction();
    try {
      await core.kernel
        .resolve('dataObjects')
        .create(
          { actor: SYSTEM, changeActor: { type: 'system', id: null }, trx },
          { classId, published: true, attributes: { title: 'in trx' } },
        );
      // Not committed: the cached page (and a fresh read) shows no new object.
      expect((await list()).json().objects.length).to.equal(before);
      await trx.commit();
    } catch (err) {
      await trx.rollback();
      throw err;
    }
    expect((await list()).json().objects.length).to.equal(before + 1);
  });

  it('while the notice connection is down the cache is off; it comes back, flushed, on reconnect', async () => {
    const created = await write('POST', '/data-objects', { classId, published: true, attributes: { title: 'raw-0' } });
    const id = created.json().id as string;
    // Maintenance SQL that bypasses the plugin: the statement trigger still sends the notice.
    const raw = (title: string) =>
      core.db.raw(
        `update data_objects set attributes = jsonb_build_object('title', ?::text) where class_id = ? and id = ?`,
        [title, classId, id],
      );
    const title = async () => (await readGateway(id)).json().attributes.title as string;
    const hits = () => servicesOf(gateway).readCache.stats.hits;
    expect(await title()).to.equal('raw-0');
    // The create's own notice may arrive after the first read on a loaded machine and flush it: read
    // until one read is answered from the cache.
    await eventually(
      async () => {
        const warm = hits();
        return (await title()) === 'raw-0' && hits() === warm + 1;
      },
      { what: 'a read answered from the cache', timeoutMs: 15_000 },
    );

    // The notice connections are cut: the cache turns off at once and every read goes to the database,
    // so a change whose notice nobody heard is still seen (a cache that stayed on would answer raw-0).
    await core.db.raw(
      `select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'cms-data-notices' and datname = current_database()`,
    );
    await eventually(async () => !servicesOf(gateway).changes.listening, {
      what: 'gateway noticed the lost connection',
    });
    expect(servicesOf(gateway).readCache.enabled).to.equal(false);
    await raw('raw-1');
    const down = hits();
    expect(await title()).to.equal('raw-1');
    expect(await title()).to.equal('raw-1');
    expect(hits()).to.equal(down);

    // Reconnected: caching again, starting empty, and notices heard again.
    await eventually(async () => servicesOf(gateway).changes.listening, { what: 'gateway listening again' });
    expect(servicesOf(gateway).readCache.enabled).to.equal(true);
    expect(await title()).to.equal('raw-1');
    const up = hits();
    expect(await title()).to.equal('raw-1');
    expect(hits()).to.equal(up + 1);
    await raw('raw-2');
    await eventually(async () => (await title()) === 'raw-2', { what: 'gateway hears the change after reconnecting' });
    expect(
      (await write('PATCH', `/data-objects/${id}`, { attributes: { title: 'through the api' } })).statusCode,
    ).to.equal(200);
    await eventually(async () => (await title()) === 'through the api', {
      what: 'gateway sees the write through the API',
    });
  });

  it("a class change in one process drops the other process's definitions", async () => {
    // Warm the gateway's schema cache with the class, then add a field through core-api.
    const created = await write('POST', '/data-objects', { classId, published: true, attributes: { title: 'x' } });
    await readGateway(created.json().id);
    const patched = await write('PATCH', `/data-classes/${classId}`, {
      fields: [
        { name: 'title', type: 'text' },
        { name: 'rank', type: 'number' },
      ],
    });
    expect(patched.statusCode, patched.body).to.equal(200);
    await eventually(async () => (await servicesOf(gateway).query.classNamed('cached')).fields.length === 2, {
      what: 'gateway sees the new field',
    });
  });
});
