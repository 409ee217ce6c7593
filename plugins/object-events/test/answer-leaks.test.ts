import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { expectNoLeaks } from '../../../test/helpers/answer-leaks.ts';
import { objectChange, startEventsKernel, type EventsKernel } from '../../../test/helpers/events-kernel.ts';
import { startReceiver, type Receiver } from '../../../test/helpers/receiver.ts';

const CLAIM = randomUUID();

/**
 * The answer schemas are the filter: even when the delivery log hands over its whole rows (a
 * worker's claim token and lease, the event's content) and a subscription its stored row, no answer
 * of the subscription routes carries them.
 */
describe('object events: no answer carries a claim, a lease or the event content', function () {
  this.timeout(60_000);
  let k: EventsKernel;
  let receiver: Receiver;
  before(async () => {
    k = await startEventsKernel({ withData: false, delivery: false });
    receiver = await startReceiver();
    const { deliveries, subscriptions } = k.t.services<{
      deliveries: { list: (...a: never[]) => Promise<Array<{ id: string }>> };
      subscriptions: { get: (id: string) => Promise<{ id: string }> };
    }>('object-events');
    const row = (id: string) => k.t.db('object_event_deliveries').where({ id }).first();
    const list = deliveries.list.bind(deliveries);
    deliveries.list = async (...args) =>
      Promise.all((await list(...args)).map(async (d) => ({ ...(await row(d.id)), ...d })));
    const get = subscriptions.get.bind(subscriptions);
    subscriptions.get = async (id) => ({
      ...(await k.t.db('object_event_subscriptions').where({ id }).first()),
      ...(await get(id)),
      envelope: { secret: CLAIM },
    });
  });
  after(async () => {
    await k?.t.close();
    await receiver?.close();
  });

  it('the subscription and its delivery log', async () => {
    const sub = await k.subscribe(receiver, { events: ['object.created'] });
    await k.announce(objectChange({ recordId: randomUUID(), kind: 'created' }));
    const [delivery] = await k.deliveries(sub.id);
    await k.t
      .db('object_event_deliveries')
      .where({ id: delivery.id })
      .update({ claim_token: CLAIM, claimed_until: new Date(Date.now() + 60_000) });
    const answers = [
      ['GET /object-event-subscriptions/:id', await k.call('GET', `/object-event-subscriptions/${sub.id}`, k.manager)],
      [
        'GET /object-event-subscriptions/:id/deliveries',
        await k.call('GET', `/object-event-subscriptions/${sub.id}/deliveries`, k.manager),
      ],
    ] as const;
    for (const [what, res] of answers) {
      expect(res.statusCode, `${what}: ${res.body}`).to.equal(200);
      expectNoLeaks(res, {
        keys: ['claim_token', 'claimed_until', 'envelope', 'loop_tripped_at'],
        values: [CLAIM],
      });
    }
    expect(answers[1][1].json().deliveries).to.have.length(1);
  });
});
