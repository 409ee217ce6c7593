import { expect } from 'chai';
import { objectChange, startEventsKernel } from '../../../test/helpers/events-kernel.ts';
import { eventually } from '../../../test/helpers/kernel.ts';
import { startReceiver } from '../../../test/helpers/receiver.ts';

describe('event delivery: a slow receiver', function () {
  this.timeout(60_000);

  it('one slot (OBJECT_EVENTS_CONCURRENCY=1): deliveries behind slow calls wait their turn, each sent once, tries not inflated', async () => {
    const k = await startEventsKernel({ withData: false, env: { OBJECT_EVENTS_CONCURRENCY: '1' } });
    const receiver = await startReceiver();
    let inFlight = 0;
    let maxInFlight = 0;
    receiver.answerWith(async () => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 1500));
      inFlight -= 1;
      return { status: 204 };
    });
    try {
      const sub = await k.subscribe(receiver);
      for (let i = 0; i < 4; i++) await k.announce(objectChange());
      await eventually(async () => (await k.deliveries(sub.id)).every((d) => d.status === 'delivered'), {
        timeoutMs: 45_000,
      });
      const rows = await k.deliveries(sub.id);
      expect(rows.map((r) => r.attempts)).to.deep.equal([1, 1, 1, 1]);
      expect(receiver.calls).to.have.length(4);
      expect(receiver.maxInFlightPerEvent).to.equal(1);
      expect(maxInFlight, 'calls at once with one slot').to.equal(1);
    } finally {
      await k.t.close();
      await receiver.close();
    }
  });
});
