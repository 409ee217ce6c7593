import { expect } from 'chai';
import { objectChange, startEventsKernel } from '../../../test/helpers/events-kernel.ts';
import { eventually } from '../../../test/helpers/kernel.ts';
import { startReceiver } from '../../../test/helpers/receiver.ts';

describe('event delivery: a slow receiver', function () {
  this.timeout(60_000);

  it('claims that would outlive their lease before a slot frees are given back unsent: each delivery sent once, tries not inflated', async () => {
    // Lease 4 s → send timeout 2 s; one slot, so later claims wait behind 1.5 s calls.
    const k = await startEventsKernel({
      withData: false,
      env: { OBJECT_EVENTS_CONCURRENCY: '1', OBJECT_EVENTS_CLAIM_SECONDS: '4' },
    });
    const receiver = await startReceiver();
    receiver.answerWith(async () => {
      await new Promise((r) => setTimeout(r, 1500));
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
    } finally {
      await k.t.close();
      await receiver.close();
    }
  });
});
