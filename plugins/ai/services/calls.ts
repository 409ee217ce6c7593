import { type Actor, InFlightLimit, tooManyRequests } from '../../../kernel/index.ts';

/**
 * Provider calls running at once, bounded per user and overall (429 AI_BUSY beyond). A slot is held
 * from the call's start to its end, a streamed answer's last event included.
 */
export class AiCallSlots {
  private readonly running = new InFlightLimit();

  constructor(private readonly limits: { overall: number; perUser: number }) {}

  /** The release function of a free slot for `actor`, or a 429 AI_BUSY. */
  take(actor: Actor): () => void {
    const user = actor.type === 'user' ? `user:${actor.id}` : 'system';
    const mine = this.running.acquire(user, this.limits.perUser);
    if (!mine)
      throw tooManyRequests(`You have ${this.limits.perUser} AI calls running; wait for one to end`, 2, 'AI_BUSY');
    const all = this.running.acquire('all', this.limits.overall);
    if (!all) {
      mine();
      throw tooManyRequests('The AI provider is busy with other calls; try again shortly', 2, 'AI_BUSY');
    }
    return () => {
      all();
      mine();
    };
  }

  /** Runs `work` in a slot of `actor`. */
  async run<T>(actor: Actor, work: () => Promise<T>): Promise<T> {
    const release = this.take(actor);
    try {
      return await work();
    } finally {
      release();
    }
  }
}
