import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { SYSTEM } from '../../../kernel/index.ts';
import { objectChange, startEventsKernel, type EventsKernel } from '../../../test/helpers/events-kernel.ts';
import { eventually } from '../../../test/helpers/kernel.ts';
import { startReceiver, type Receiver } from '../../../test/helpers/receiver.ts';

const ALL_OBJECT = [
  'object.created',
  'object.updated',
  'object.published',
  'object.unpublished',
  'object.transitioned',
  'object.deleted',
  'object.bulk',
];

describe('object events: recording in the write transaction', () => {
  let k: EventsKernel;
  let receiver: Receiver;
  let classId: string;
  before(async () => {
    // No worker: statuses stay as recorded.
    k = await startEventsKernel({ delivery: false });
    receiver = await startReceiver();
    const admin = await k.t.admin();
    const res = await k.call('POST', '/data-classes', admin, {
      name: `ev_${Date.now().toString(36)}`,
      label: 'x',
      fields: [{ name: 'title', type: 'text' }],
    });
    classId = res.json().id;
  });
  after(async () => {
    await k.t.close();
    await receiver.close();
  });

  const createObject = async (title: string, headers: Record<string, string> = {}) => {
    const admin = await k.t.admin();
    return k.call('POST', '/data-objects', admin, { classId, attributes: { title } }, headers);
  };

  it('an object write stores its event and one pending delivery per matching subscription', async () => {
    const sub = await k.subscribe(receiver, { events: ALL_OBJECT });
    const res = await createObject('hello');
    expect(res.statusCode).to.equal(201);
    const rows = await k.deliveries(sub.id);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({
      status: 'pending',
      event_type: 'object.created',
      record_id: res.json().id,
      attempts: 0,
    });
    const event = await k.t.db('object_events').where({ id: rows[0].event_id }).first();
    expect(event.envelope.class).to.deep.equal({ id: classId, name: event.envelope.class.name });
    expect(event.envelope.object.id).to.equal(res.json().id);
    expect(event.envelope.actor.type).to.equal('user');
    expect(JSON.stringify(event.envelope)).not.to.contain('hello');
  });

  it('a rolled-back write leaves no event and no delivery', async () => {
    const sub = await k.subscribe(receiver);
    const recordId = randomUUID();
    await k.t.db
      .transaction(async (trx) => {
        await k.t.kernel.resolve('recordHooks').announce(trx, objectChange({ recordId, kind: 'created' }));
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await k.deliveries(sub.id)).to.have.length(0);
    expect(await k.t.db('object_events').where({ record_id: recordId })).to.have.length(0);
  });

  it('failing to store the event fails the change (the object is not created)', async () => {
    await k.subscribe(receiver, { events: ['object.created'] });
    await k.t.db.raw(
      `CREATE OR REPLACE FUNCTION test_refuse_delivery() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$ LANGUAGE plpgsql`,
    );
    await k.t.db.raw(
      'CREATE TRIGGER test_refuse BEFORE INSERT ON object_event_deliveries FOR EACH ROW EXECUTE FUNCTION test_refuse_delivery()',
    );
    try {
      const title = `refused-${randomUUID()}`;
      const res = await createObject(title);
      expect(res.statusCode).to.be.greaterThanOrEqual(500);
      const stored = await k.t.db('data_objects').whereRaw("attributes->>'title' = ?", [title]);
      expect(stored).to.have.length(0);
    } finally {
      await k.t.db.raw('DROP TRIGGER test_refuse ON object_event_deliveries');
    }
  });

  it('X-Cms-Flow: stop keeps the write, stores stopped deliveries (nothing sent) and audits the end of flow', async () => {
    const sub = await k.subscribe(receiver, { events: ['object.created'] });
    const res = await createObject('stop me', { 'x-cms-flow': 'stop' });
    expect(res.statusCode).to.equal(201);
    const rows = await k.deliveries(sub.id);
    expect(rows).to.have.length(1);
    expect(rows[0].status).to.equal('stopped');
    expect(rows[0].last_problem).to.contain('X-Cms-Flow: stop');
    expect(rows[0].next_attempt_at).to.equal(null);
    const audit = await k.t.db('audit_log').where({ action: 'object_event.flow_stop', target_id: res.json().id });
    expect(audit).to.have.length(1);
    // Other values are ordinary writes.
    const other = await createObject('go on', { 'x-cms-flow': 'continue' });
    const row = (await k.deliveries(sub.id)).find((d) => d.record_id === other.json().id);
    expect(row.status).to.equal('pending');
  });

  it('classId filter: a subscription for one class gets nothing from another class; null gets every class', async () => {
    const mine = randomUUID();
    const scoped = await k.subscribe(receiver, { classId: mine });
    const every = await k.subscribe(receiver);
    await k.announce(objectChange({ classId: randomUUID() }));
    await k.announce(objectChange({ classId: mine }));
    expect((await k.deliveries(scoped.id)).length).to.equal(1);
    expect((await k.deliveries(every.id)).length).to.equal(2);
  });

  it('ignoreActors: changes by a listed actor are not queued for that subscription', async () => {
    const bot = randomUUID();
    const sub = await k.subscribe(receiver, { ignoreActors: [bot] });
    await k.announce(objectChange({ actor: { type: 'api-client', id: bot } }));
    await k.announce(objectChange({ actor: { type: 'user', id: randomUUID() } }));
    expect((await k.deliveries(sub.id)).length).to.equal(1);
  });

  it('only ticked kinds, only enabled subscriptions, only after the subscription exists', async () => {
    const recordId = randomUUID();
    await k.announce(objectChange({ recordId, kind: 'updated' }));
    const sub = await k.subscribe(receiver, { events: ['object.deleted'] });
    await k.announce(objectChange({ recordId, kind: 'updated' }));
    expect(await k.deliveries(sub.id)).to.have.length(0);
    await k.announce(objectChange({ recordId, kind: 'deleted' }));
    expect(await k.deliveries(sub.id)).to.have.length(1);
    await k.call('PATCH', `/object-event-subscriptions/${sub.id}`, k.manager, { enabled: false });
    await k.announce(objectChange({ recordId, kind: 'deleted' }));
    expect(await k.deliveries(sub.id)).to.have.length(1);
  });

  it('asset kinds and page published/unpublished become events; other page kinds produce none', async () => {
    const sub = await k.subscribe(receiver, {
      events: ['asset.created', 'asset.moved', 'asset.bulk', 'page.published', 'page.unpublished'],
    });
    const actor = { type: 'user' as const, id: randomUUID() };
    const assetId = randomUUID();
    await k.announce({
      recordType: 'asset',
      recordId: assetId,
      kind: 'moved',
      actor,
      data: { folderId: 'f1', mimeType: 'image/png' },
    });
    for (const kind of ['created', 'updated', 'deleted', 'published', 'unpublished']) {
      await k.announce({ recordType: 'page', recordId: 'page-1', kind, actor, data: { websiteId: 'w1' } });
    }
    const rows = await k.deliveries(sub.id);
    expect(rows.map((r) => r.event_type).sort()).to.deep.equal(['asset.moved', 'page.published', 'page.unpublished']);
    const moved = rows.find((r) => r.event_type === 'asset.moved');
    const event = await k.t.db('object_events').where({ id: moved.event_id }).first();
    expect(event.envelope.asset).to.deep.equal({ id: assetId, folderId: 'f1', mimeType: 'image/png' });
  });

  it('a subscription with a class receives no asset or page events', async () => {
    const sub = await k.subscribe(receiver, { classId: randomUUID(), events: ['asset.created'] });
    await k.announce({
      recordType: 'asset',
      recordId: randomUUID(),
      kind: 'created',
      actor: { type: 'system', id: null },
    });
    expect(await k.deliveries(sub.id)).to.have.length(0);
  });

  it('a subscription created in another process is seen without waiting for the cache TTL (database notice)', async () => {
    // Written straight to the table, as another process would: this process learns it through LISTEN/NOTIFY.
    const other = await k.subscribe(receiver);
    await k.announce(objectChange()); // the cache is loaded now, and would stay so for its TTL
    const id = randomUUID();
    await k.t.db.transaction(async (trx) => {
      await trx('object_event_subscriptions').insert({
        id,
        name: `remote-${id}`,
        events: ['object.updated'],
        endpoint_id: other.endpointId,
        route_id: other.routeId,
      });
      await trx.raw("SELECT pg_notify('object_event_subscriptions', '')");
    });
    await eventually(
      async () => {
        await k.announce(objectChange());
        return (await k.deliveries(id)).length > 0;
      },
      { timeoutMs: 5_000 },
    );
  });

  describe('loop guard', () => {
    const window = () => k.clock.advance(61_000);

    it('stops the 6th event by one API client on one record within 60 s and shows the badge', async () => {
      window();
      const sub = await k.subscribe(receiver);
      const client = { type: 'api-client' as const, id: `client-${randomUUID()}` };
      const recordId = randomUUID();
      for (let i = 0; i < 7; i++) await k.announce(objectChange({ recordId, actor: client }));
      const statuses = (await k.deliveries(sub.id)).map((d) => d.status);
      expect(statuses).to.deep.equal(['pending', 'pending', 'pending', 'pending', 'pending', 'stopped', 'stopped']);
      const view = (await k.call('GET', `/object-event-subscriptions/${sub.id}`, k.manager)).json();
      expect(view.loopGuard.tripped).to.equal(true);
      // Another record, or the same one after the window, is not stopped.
      await k.announce(objectChange({ actor: client }));
      window();
      await k.announce(objectChange({ recordId, actor: client }));
      expect((await k.deliveries(sub.id)).slice(-2).map((d) => d.status)).to.deep.equal(['pending', 'pending']);
      // The badge goes after a day.
      k.clock.advance(86_400_000);
      expect(
        (await k.call('GET', `/object-event-subscriptions/${sub.id}`, k.manager)).json().loopGuard.tripped,
      ).to.equal(false);
    });

    it('stops more than 12 events by API clients per subscription and record (several clients)', async () => {
      window();
      const sub = await k.subscribe(receiver);
      const recordId = randomUUID();
      for (let i = 0; i < 14; i++)
        await k.announce(objectChange({ recordId, actor: { type: 'api-client', id: `c${i % 4}-${sub.id}` } }));
      const statuses = (await k.deliveries(sub.id)).map((d) => d.status);
      expect(statuses.filter((s) => s === 'pending')).to.have.length(12);
      expect(statuses.slice(12)).to.deep.equal(['stopped', 'stopped']);
    });

    it('never counts people, system or imports', async () => {
      window();
      const sub = await k.subscribe(receiver);
      const recordId = randomUUID();
      for (const type of ['user', 'system', 'import'] as const) {
        for (let i = 0; i < 14; i++) await k.announce(objectChange({ recordId, actor: { type, id: 'same-actor' } }));
      }
      const statuses = (await k.deliveries(sub.id)).map((d) => d.status);
      expect(statuses).to.have.length(42);
      expect(statuses.every((s) => s === 'pending')).to.equal(true);
      expect(await k.t.db('object_event_loop_counters').where({ record_key: `object:${recordId}` })).to.have.length(0);
    });
  });

  it('the hourly job drops old loop counters, events without deliveries and rows of deleted subscriptions', async () => {
    const sub = await k.subscribe(receiver);
    const keep = randomUUID();
    await k.announce(objectChange({ recordId: keep }));
    const old = new Date(k.clock.now().getTime() - 3 * 86_400_000);
    const orphanEvent = randomUUID();
    const ghostEvent = randomUUID();
    const envelope = { type: 'object.updated', occurredAt: old.toISOString(), actor: { type: 'system', id: null } };
    await k.t.db('object_events').insert([
      {
        id: orphanEvent,
        type: 'object.updated',
        record_type: 'object',
        record_id: orphanEvent,
        occurred_at: old,
        envelope,
      },
      {
        id: ghostEvent,
        type: 'object.updated',
        record_type: 'object',
        record_id: ghostEvent,
        occurred_at: old,
        envelope,
      },
    ]);
    await k.t.db('object_event_deliveries').insert({
      event_id: ghostEvent,
      subscription_id: randomUUID(),
      event_type: 'object.updated',
      record_id: ghostEvent,
      status: 'pending',
      next_attempt_at: old,
    });
    await k.t
      .db('object_event_loop_counters')
      .insert({ scope: 'client', subject: 'c-old', record_key: 'object:old', window_start: old, count: 3 });
    await k.t.kernel.runJob('object-events', 'leftovers.purge');
    expect(await k.t.db('object_events').whereIn('id', [orphanEvent, ghostEvent])).to.have.length(0);
    expect(await k.t.db('object_event_loop_counters').where({ subject: 'c-old' })).to.have.length(0);
    expect((await k.deliveries(sub.id)).map((d) => d.record_id)).to.deep.equal([keep]);
  });

  it('the audit actor of a flow stop by the system is recorded as system', async () => {
    const recordId = randomUUID();
    await k.announce(objectChange({ recordId, actor: { type: 'system', id: null }, flags: { flow: 'stop' } }));
    const rows = await k.t.db('audit_log').where({ action: 'object_event.flow_stop', target_id: recordId });
    expect(rows).to.have.length(1);
    expect(rows[0].actor_type).to.equal(SYSTEM.type);
  });
});

describe('object events: OBJECT_EVENTS_ENABLED=0', () => {
  it('records nothing, refuses test events and runs no worker', async () => {
    const k = await startEventsKernel({ env: { OBJECT_EVENTS_ENABLED: '0' } });
    const receiver = await startReceiver();
    try {
      const sub = await k.subscribe(receiver);
      await k.announce(objectChange());
      expect(await k.deliveries(sub.id)).to.have.length(0);
      expect((await k.call('POST', `/object-event-subscriptions/${sub.id}/test`, k.manager)).statusCode).to.equal(503);
      // A delivery queued earlier (written as a process with events on would) stays unsent.
      const eventId = randomUUID();
      await k.t.db('object_events').insert({
        id: eventId,
        type: 'object.updated',
        record_type: 'object',
        record_id: eventId,
        occurred_at: new Date(),
        envelope: {
          type: 'object.updated',
          occurredAt: new Date().toISOString(),
          actor: { type: 'system', id: null },
        },
      });
      await k.t.db('object_event_deliveries').insert({
        event_id: eventId,
        subscription_id: sub.id,
        event_type: 'object.updated',
        record_id: eventId,
        status: 'pending',
        next_attempt_at: new Date(Date.now() - 1000),
      });
      // With events on, a worker would have sent the due delivery by now.
      await k.settled();
      expect(receiver.calls).to.have.length(0);
      expect((await k.deliveries(sub.id))[0].attempts).to.equal(0);
    } finally {
      await k.t.close();
      await receiver.close();
    }
  });
});
