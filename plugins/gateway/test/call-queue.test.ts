import { expect } from 'chai';
import { CallQueue, CallQueueFull } from '../services/call-queue.ts';

/** A promise and the function that settles it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe('gateway call queue: maxConcurrent running, maxQueued waiting, the rest refused', () => {
  it('runs up to maxConcurrent at once, queues up to maxQueued in order and refuses the next', async () => {
    const queue = new CallQueue(1, 1);
    const first = gate();
    const order: string[] = [];
    const running = queue.run(async () => {
      await first.opened;
      order.push('first');
    });
    const waiting = queue.run(async () => {
      order.push('second');
    });
    let refused: unknown;
    await queue
      .run(async () => undefined)
      .catch((err) => {
        refused = err;
      });
    expect(refused).to.be.instanceOf(CallQueueFull);
    first.open();
    await Promise.all([running, waiting]);
    expect(order).to.deep.equal(['first', 'second']);
  });

  it('gives the slot back when the work fails, and refuses the waiting calls on dropWaiting', async () => {
    const queue = new CallQueue(1, 2);
    await queue.run(async () => Promise.reject(new Error('upstream'))).catch(() => undefined);
    const held = gate();
    const running = queue.run(() => held.opened);
    const waiting = queue.run(async () => 'ran').catch((err) => err);
    queue.dropWaiting();
    expect(await waiting).to.be.instanceOf(CallQueueFull);
    held.open();
    await running;
    expect(await queue.run(async () => 'free again')).to.equal('free again');
  });
});
