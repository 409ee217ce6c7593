import { expect } from 'chai';
import { addEndpoint, startEventsKernel, type EventsKernel } from '../../../test/helpers/events-kernel.ts';
import { startReceiver, type Receiver } from '../../../test/helpers/receiver.ts';

describe('object events: subscriptions', () => {
  let k: EventsKernel;
  let receiver: Receiver;
  let endpointId: string;
  let post: string, get: string, withParam: string, put: string;
  before(async () => {
    // No worker here: these tests are about the administration routes.
    k = await startEventsKernel({ withData: false, delivery: false });
    receiver = await startReceiver();
    const ep = await addEndpoint(k.t.db, receiver.url, [
      { method: 'POST', path: '/hook' },
      { method: 'GET', path: '/hook' },
      { method: 'POST', path: '/hook/{id}' },
      { method: 'PUT', path: '/put-hook' },
    ]);
    endpointId = ep.endpointId;
    [post, get, withParam, put] = ep.routeIds;
  });
  after(async () => {
    await k.t.close();
    await receiver.close();
  });

  const body = (over: Record<string, unknown> = {}) => ({
    name: `s-${Math.random().toString(36).slice(2)}`,
    events: ['object.created'],
    endpointId,
    routeId: post,
    ...over,
  });
  const create = (over: Record<string, unknown> = {}) =>
    k.call('POST', '/object-event-subscriptions', k.manager, body(over));

  it('creates, reads, lists, patches and deletes with object_events:manage; defaults as documented', async () => {
    const res = await create({ signingSecretRef: 'OBJECT_EVENTS_SECRET_CRM' });
    expect(res.statusCode).to.equal(201);
    const sub = res.json();
    expect(sub).to.include({
      enabled: true,
      classId: null,
      endpointId,
      routeId: post,
      signingSecretRef: 'OBJECT_EVENTS_SECRET_CRM',
      payloadMode: 'minimal',
    });
    expect(sub.ignoreActors).to.deep.equal([]);
    expect(sub.loopGuard).to.deep.equal({ tripped: false, lastTrippedAt: null });

    expect((await k.call('GET', `/object-event-subscriptions/${sub.id}`, k.manager)).json().name).to.equal(sub.name);
    const list = (await k.call('GET', '/object-event-subscriptions', k.manager)).json().subscriptions;
    expect(list.map((s: { id: string }) => s.id)).to.include(sub.id);

    const patched = await k.call('PATCH', `/object-event-subscriptions/${sub.id}`, k.manager, {
      enabled: false,
      routeId: put,
      events: ['object.updated', 'asset.moved'],
    });
    expect(patched.statusCode).to.equal(200);
    expect(patched.json()).to.include({ enabled: false, routeId: put });
    expect(patched.json().events).to.deep.equal(['object.updated', 'asset.moved']);

    expect((await k.call('DELETE', `/object-event-subscriptions/${sub.id}`, k.manager)).statusCode).to.equal(204);
    expect((await k.call('GET', `/object-event-subscriptions/${sub.id}`, k.manager)).statusCode).to.equal(404);
    expect((await k.call('DELETE', `/object-event-subscriptions/${sub.id}`, k.manager)).statusCode).to.equal(404);
  });

  it('answers 401 without a session and 403 without object_events:manage', async () => {
    const other = await k.t.createUser({ permissions: ['objects:write'] });
    expect((await k.call('GET', '/object-event-subscriptions', null)).statusCode).to.equal(401);
    expect((await k.call('GET', '/object-event-subscriptions', other)).statusCode).to.equal(403);
    expect((await k.call('POST', '/object-event-subscriptions', other, body())).statusCode).to.equal(403);
    expect(
      (await k.call('POST', '/object-event-deliveries/00000000-0000-0000-0000-000000000001/retry', other)).statusCode,
    ).to.equal(403);
  });

  it('refuses a route that does not exist, is not POST/PUT/PATCH or has a {parameter}, naming routeId', async () => {
    for (const [routeId, code] of [
      ['nope', 'GATEWAY_ROUTE_NOT_FOUND'],
      [get, 'ROUTE_METHOD'],
      [withParam, 'ROUTE_HAS_PARAMETERS'],
    ] as const) {
      const res = await create({ routeId });
      expect(res.statusCode, routeId).to.equal(400);
      expect(res.json()).to.include({ code, field: 'routeId' });
    }
    const otherEndpoint = await create({ endpointId: 'ep-missing' });
    expect(otherEndpoint.statusCode).to.equal(400);
    const sub = (await create()).json();
    const patch = await k.call('PATCH', `/object-event-subscriptions/${sub.id}`, k.manager, { routeId: get });
    expect(patch.statusCode).to.equal(400);
    expect((await k.call('GET', `/object-event-subscriptions/${sub.id}`, k.manager)).json().routeId).to.equal(post);
  });

  it('refuses bad fields with 400 naming them: secret ref prefix, unknown event kind, empty events, bad classId', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ signingSecretRef: 'MY_SECRET' }, 'signingSecretRef'],
      [{ signingSecretRef: 'OBJECT_EVENTS_SECRET_' }, 'signingSecretRef'],
      [{ events: ['object.exploded'] }, 'events'],
      [{ events: ['page.created'] }, 'events'],
      [{ events: [] }, 'events'],
      [{ classId: 'not-a-uuid' }, 'classId'],
      [{ name: '' }, 'name'],
      [{ extra: 1 }, 'extra'],
    ];
    for (const [over, field] of cases) {
      const res = await create(over);
      expect(res.statusCode, JSON.stringify(over)).to.equal(400);
      expect(String(res.json().field), JSON.stringify(over)).to.contain(field);
    }
    expect((await create({ signingSecretRef: null })).statusCode).to.equal(201);
  });

  it('a taken name answers 409 UNIQUE_VIOLATION on create and on rename', async () => {
    const a = (await create()).json();
    const dup = await create({ name: a.name });
    expect(dup.statusCode).to.equal(409);
    expect(dup.json()).to.include({ code: 'UNIQUE_VIOLATION', field: 'name' });
    const b = (await create()).json();
    const rename = await k.call('PATCH', `/object-event-subscriptions/${b.id}`, k.manager, { name: a.name });
    expect(rename.statusCode).to.equal(409);
  });

  it('audits create, update and delete in the write with only changed fields; a no-change PATCH leaves no row', async () => {
    const sub = (await create({ classId: '11111111-1111-4111-8111-111111111111' })).json();
    await k.call('PATCH', `/object-event-subscriptions/${sub.id}`, k.manager, { enabled: false });
    await k.call('PATCH', `/object-event-subscriptions/${sub.id}`, k.manager, { enabled: false });
    await k.call('DELETE', `/object-event-subscriptions/${sub.id}`, k.manager);
    const rows = await k.t.db('audit_log').where({ target_id: sub.id }).orderBy('id');
    expect(rows.map((r) => r.action)).to.deep.equal([
      'object_event_subscription.create',
      'object_event_subscription.update',
      'object_event_subscription.delete',
    ]);
    expect(rows[0]).to.include({ actor_type: 'user', actor_id: k.manager.id, target_label: sub.name });
    expect(rows[0].after).to.include({ name: sub.name, classId: '11111111-1111-4111-8111-111111111111' });
    expect(rows[1].before).to.deep.equal({ enabled: true });
    expect(rows[1].after).to.deep.equal({ enabled: false });
    expect(rows[2].after).to.equal(null);
    expect(rows[2].before).to.include({ name: sub.name });
  });

  it('a refused write leaves no audit row', async () => {
    const before = await k.t
      .db('audit_log')
      .where('action', 'like', 'object_event_subscription.%')
      .count<{ count: number }[]>({ count: '*' });
    await create({ routeId: get });
    const after = await k.t
      .db('audit_log')
      .where('action', 'like', 'object_event_subscription.%')
      .count<{ count: number }[]>({ count: '*' });
    expect(after[0].count).to.equal(before[0].count);
  });

  it('POST /:id/test answers 202 and queues one synthetic object.updated for this subscription only', async () => {
    const a = (await create()).json();
    const b = (await create()).json();
    const res = await k.call('POST', `/object-event-subscriptions/${a.id}/test`, k.manager);
    expect(res.statusCode).to.equal(202);
    const rows = await k.deliveries(a.id);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({
      status: 'pending',
      event_type: 'object.updated',
      record_id: '00000000-0000-0000-0000-000000000000',
    });
    const event = await k.t.db('object_events').where({ id: rows[0].event_id }).first();
    expect(event.envelope).to.include({ test: true, type: 'object.updated' });
    expect(event.envelope.object.id).to.equal('00000000-0000-0000-0000-000000000000');
    expect(await k.deliveries(b.id)).to.have.length(0);
    expect(
      (await k.call('POST', '/object-event-subscriptions/00000000-0000-4000-8000-000000000000/test', k.manager))
        .statusCode,
    ).to.equal(404);
  });
});
