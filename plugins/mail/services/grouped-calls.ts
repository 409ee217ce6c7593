/**
 * Runs many calls of `run` as few: the calls made while one batch runs (or in the same turn of the
 * event loop) are handed to `run` together as the next batch. No call waits longer than the batch
 * before it takes, so one call alone is not delayed; concurrent ones share a statement.
 */
export class GroupedCalls<In, Out> {
  private waiting: Array<{ input: In; resolve: (out: Out) => void; reject: (err: unknown) => void }> = [];
  private running = false;

  constructor(private readonly run: (inputs: In[]) => Promise<Out[]>) {}

  call(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.next());
      }
    });
  }

  private async next(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    try {
      const outs = await this.run(batch.map((c) => c.input));
      for (const [i, c] of batch.entries()) c.resolve(outs[i]!);
    } catch (err) {
      for (const c of batch) c.reject(err);
    }
    if (this.waiting.length) void this.next();
    else this.running = false;
  }
}
