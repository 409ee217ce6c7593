import { expect } from 'chai';
import {
  objectChange,
  secondHandle,
  startEventsKernel,
  type EventsKernel,
} from '../../../test/helpers/events-kernel.ts';
import { eventually } from '../../../test/helpers/kernel.ts';
import { startReceiver } from '../../../test/helpers/receiver.ts';

describe('event delivery: two workers on one database', () => {
  let k: EventsKernel;
  before(async () => {
    // Only the database: the two workers below run in kernels of their own on it.
    k = await startEventsKernel({ withData: false, delivery: false });
  });
  after(() => k.t.close());

  it('two worker processes on one database never send the same delivery at once, and every delivery arrives once', async function () {
    this.timeout(60_000);
    const second = await startEventsKernel({
      withData: false,
      database: secondHandle(k.t.db),
      env: { OBJECT_EVENTS_CONCURRENCY: '5' },
    });
    const first = await startEventsKernel({
      withData: false,
      database: secondHandle(k.t.db),
      env: { OBJECT_EVENTS_CONCURRENCY: '5' },
    });
    const busy = await startReceiver();
    busy.answerWith(async () => {
      await new Promise((r) => setTimeout(r, Math.random() * 10));
      return { status: 204 };
    });
    try {
      const sub = await first.subscribe(busy);
      for (let i = 0; i < 20; i++) await first.announce(objectChange());
      for (let i = 0; i < 20; i++) await second.announce(objectChange());
      await busy.waitForCalls(40, 30_000);
      await eventually(async () => (await first.deliveries(sub.id)).every((d) => d.status === 'delivered'), {
        timeoutMs: 15_000,
      });
      expect(busy.maxInFlightPerEvent).to.equal(1);
      const ids = busy.calls.map((c) => c.headers['x-cms-event-id']);
      expect(new Set(ids).size).to.equal(40);
      expect(ids).to.have.length(40);
    } finally {
      await first.t.close();
      await second.t.close();
      await busy.close();
    }
  });
});
