import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { objectChange, startEventsKernel, type EventsKernel } from '../../../test/helpers/events-kernel.ts';
import { startReceiver, type Receiver } from '../../../test/helpers/receiver.ts';

describe('object events: delivery log routes', () => {
  let k: EventsKernel;
  let receiver: Receiver;
  before(async () => {
    // No worker: rows keep the status the test gives them.
    k = await startEventsKernel({ withData: false, delivery: false });
    receiver = await startReceiver();
  });
  after(async () => {
    await k.t.close();
    await receiver.close();
  });

  /** A subscription with one delivery in each status (dead and delivered reached by hand: no worker here). */
  async function logWithEveryStatus() {
    const sub = await k.subscribe(receiver, { events: ['object.created', 'object.updated'] });
    const records = Array.from({ length: 5 }, () => randomUUID());
    await k.announce(objectChange({ recordId: records[0], kind: 'created' }));
    for (const r of records.slice(1)) await k.announce(objectChange({ recordId: r }));
    await k.announce(objectChange({ flags: { flow: 'stop' } }));
    const rows = await k.deliveries(sub.id);
    await k.t
      .db('object_event_deliveries')
      .where({ id: rows[1].id })
      .update({ status: 'delivered', attempts: 1, next_attempt_at: null });
    await k.t
      .db('object_event_deliveries')
      .where({ id: rows[2].id })
      .update({ status: 'dead', attempts: 6, next_attempt_at: null, last_problem: 'receiver answered HTTP 500' });
    await k.t.db('object_event_deliveries').where({ id: rows[3].id }).update({ status: 'retrying', attempts: 1 });
    return { sub, rows: await k.deliveries(sub.id), records };
  }

  it('lists state only (never content), newest first, filtered by status, type and record id, limit up to 200', async () => {
    const { sub, rows, records } = await logWithEveryStatus();
    const all = await k.call('GET', `/object-event-subscriptions/${sub.id}/deliveries`, k.manager);
    expect(all.statusCode).to.equal(200);
    const list = all.json().deliveries;
    expect(list.map((d: { id: string }) => d.id)).to.deep.equal(rows.map((r) => r.id).reverse());
    expect(Object.keys(list[0]).sort()).to.deep.equal([
      'attempts',
      'createdAt',
      'eventId',
      'id',
      'lastAttemptAt',
      'lastProblem',
      'nextAttemptAt',
      'recordId',
      'status',
      'subscriptionId',
      'type',
    ]);
    const byStatus = async (status: string) =>
      (await k.call('GET', `/object-event-subscriptions/${sub.id}/deliveries?status=${status}`, k.manager)).json()
        .deliveries;
    expect((await byStatus('pending')).length).to.equal(2);
    expect((await byStatus('delivered')).length).to.equal(1);
    expect((await byStatus('dead'))[0].lastProblem).to.equal('receiver answered HTTP 500');
    expect((await byStatus('retrying')).length).to.equal(1);
    expect((await byStatus('stopped')).length).to.equal(1);
    const created = (
      await k.call('GET', `/object-event-subscriptions/${sub.id}/deliveries?type=object.created`, k.manager)
    ).json().deliveries;
    expect(created.map((d: { recordId: string }) => d.recordId)).to.deep.equal([records[0]]);
    const one = (
      await k.call('GET', `/object-event-subscriptions/${sub.id}/deliveries?recordId=${records[2]}`, k.manager)
    ).json().deliveries;
    expect(one).to.have.length(1);
    expect(
      (await k.call('GET', `/object-event-subscriptions/${sub.id}/deliveries?limit=2`, k.manager)).json().deliveries,
    ).to.have.length(2);
    for (const bad of ['limit=201', 'limit=0', 'status=waiting', 'type=object.exploded']) {
      const res = await k.call('GET', `/object-event-subscriptions/${sub.id}/deliveries?${bad}`, k.manager);
      expect(res.statusCode, bad).to.equal(400);
    }
    expect(
      (await k.call('GET', `/object-event-subscriptions/${randomUUID()}/deliveries`, k.manager)).statusCode,
    ).to.equal(404);
  });

  it('deletes finished rows by ids or status; waiting and retrying rows cannot be deleted (409, nothing deleted)', async () => {
    const { sub, rows } = await logWithEveryStatus();
    const del = (body: unknown) =>
      k.call('DELETE', `/object-event-subscriptions/${sub.id}/deliveries`, k.manager, body);
    const refused = await del({ ids: [rows[1].id, rows[0].id] });
    expect(refused.statusCode).to.equal(409);
    expect(await k.deliveries(sub.id)).to.have.length(6);
    expect((await del({ status: 'pending' })).statusCode).to.equal(400);
    expect((await del({ status: 'retrying' })).statusCode).to.equal(400);
    expect((await del({})).statusCode).to.equal(400);
    expect((await del({ ids: [rows[1].id], status: 'dead' })).statusCode).to.equal(400);
    expect((await del({ ids: Array.from({ length: 501 }, () => randomUUID()) })).statusCode).to.equal(400);

    const byIds = await del({ ids: [rows[1].id] });
    expect(byIds.json()).to.deep.equal({ deleted: 1 });
    expect((await del({ status: 'stopped' })).json()).to.deep.equal({ deleted: 1 });
    const left = (await k.deliveries(sub.id)).map((r) => r.status).sort();
    expect(left).to.deep.equal(['dead', 'pending', 'pending', 'retrying']);
  });
});
