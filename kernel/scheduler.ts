import type { Logger } from './logger.ts';

/** A background job: first run after `firstRunAfterMs`, then every `intervalMs`. */
export interface JobDefinition {
  name: string;
  firstRunAfterMs: number;
  intervalMs: number;
  run(): Promise<void>;
}

/**
 * Timers for background work. A job never overlaps itself; `stop()` clears the timers and waits for
 * running jobs, so shutdown does not cut a batch in half.
 */
export class Scheduler {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly logger: Logger) {}

  schedule(job: JobDefinition): void {
    let busy = false;
    const tick = async () => {
      if (this.stopped || busy) return;
      busy = true;
      const run = job
        .run()
        .catch((err) => this.logger.error({ err, job: job.name }, 'background job failed'))
        .finally(() => {
          busy = false;
          this.running.delete(run);
        });
      this.running.add(run);
      await run;
    };
    const first = setTimeout(() => {
      this.timers.delete(first);
      void tick();
      const every = setInterval(() => void tick(), job.intervalMs);
      every.unref();
      this.timers.add(every);
    }, job.firstRunAfterMs);
    first.unref();
    this.timers.add(first);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.allSettled([...this.running]);
  }
}
