/**
 * At most `maxConcurrent` calls of one endpoint run at once in this process; up to `maxQueued` more
 * wait for a slot, in arrival order. A call beyond that is refused at once (`CallQueueFull`) rather
 * than piling up. Small enough to own: the library this replaces had no release since 2019.
 */
export class CallQueueFull extends Error {}

export class CallQueue {
  private running = 0;
  private readonly waiting: Array<{ start: () => void; refuse: (err: Error) => void }> = [];

  constructor(
    private readonly maxConcurrent: number,
    private readonly maxQueued: number,
  ) {}

  /** Runs `work` when a slot is free; the slot is given back when its promise settles. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.maxConcurrent) {
      if (this.waiting.length >= this.maxQueued) throw new CallQueueFull('the call queue is full');
      await new Promise<void>((start, refuse) => this.waiting.push({ start, refuse }));
    }
    this.running++;
    try {
      return await work();
    } finally {
      this.running--;
      this.waiting.shift()?.start();
    }
  }

  /** Refuses every waiting call; running calls finish. */
  dropWaiting(): void {
    for (const call of this.waiting.splice(0)) call.refuse(new CallQueueFull('the endpoint limiter stopped'));
  }
}
