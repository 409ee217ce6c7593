import { tooManyRequests } from '../../../kernel/index.ts';

/**
 * The process's image slots (ASSET_IMAGE_JOBS), shared fairly between callers: one caller runs at most
 * `perCaller` operations at once, so it never holds every slot, and callers with work waiting take
 * turns (round robin), so a caller with one operation waits behind at most one operation of each
 * other caller, not behind another's whole queue. A caller with `maxWaiting` operations already in
 * line is refused at once (429 with Retry-After) instead of piling up request bodies in memory.
 */
export class ImageSlots {
  private running = 0;
  private readonly runningBy = new Map<string, number>();
  /** Callers with work waiting, in turn order (a Map keeps insertion order; a served caller goes last). */
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(private readonly opts: { slots: number; perCaller: number; maxWaiting: number }) {}

  /** Runs `work` in a slot of `caller`'s share, waiting for its turn. */
  async run<T>(caller: string, work: () => Promise<T>): Promise<T> {
    if (this.running >= this.opts.slots || (this.runningBy.get(caller) ?? 0) >= this.opts.perCaller) {
      const line = this.waiting.get(caller) ?? [];
      if (line.length >= this.opts.maxWaiting)
        throw tooManyRequests(
          `${line.length} image operations of yours are already waiting; try again when they are done`,
          1,
          'IMAGE_QUEUE_FULL',
        );
      await new Promise<void>((resolve) => {
        line.push(resolve);
        this.waiting.set(caller, line);
      });
    } else {
      this.start(caller);
    }
    try {
      return await work();
    } finally {
      this.running--;
      const mine = (this.runningBy.get(caller) ?? 1) - 1;
      if (mine === 0) this.runningBy.delete(caller);
      else this.runningBy.set(caller, mine);
      this.dispatch();
    }
  }

  /** Operations running and waiting, for tests and metrics. */
  get load(): { running: number; waiting: number } {
    let waiting = 0;
    for (const line of this.waiting.values()) waiting += line.length;
    return { running: this.running, waiting };
  }

  private start(caller: string): void {
    this.running++;
    this.runningBy.set(caller, (this.runningBy.get(caller) ?? 0) + 1);
  }

  /** Fills free slots from waiting callers in turn, skipping those at their share. */
  private dispatch(): void {
    while (this.running < this.opts.slots) {
      let next: string | undefined;
      for (const caller of this.waiting.keys()) {
        if ((this.runningBy.get(caller) ?? 0) < this.opts.perCaller) {
          next = caller;
          break;
        }
      }
      if (next === undefined) return;
      const line = this.waiting.get(next)!;
      const resolve = line.shift()!;
      // Served: to the back of the turn order (or out of it when nothing of it waits).
      this.waiting.delete(next);
      if (line.length > 0) this.waiting.set(next, line);
      this.start(next);
      resolve();
    }
  }
}
