import { hash } from 'node:crypto';

/** A cached public answer: its JSON text and weak ETag (the same value @fastify/etag would compute). */
export interface CachedAnswer {
  body: string;
  etag: string;
}

interface Entry extends CachedAnswer {
  classId: string;
  generation: number;
  epoch: number;
  bytes: number;
}

/** The validator of an answer: sha1 of its text, as `@fastify/etag` (`algorithm: sha1, weak: true`) makes it. */
export const weakEtag = (body: string): string => `W/"${hash('sha1', body, 'base64')}"`;

/**
 * Answers of the public read path (published objects by id, pages), kept as their final JSON text.
 *
 * Correctness does not depend on timing guesses: every class has a generation number, raised on each
 * change of one of its objects (the plugin's own record-change announcements, in this process at
 * commit, in the others through the LISTEN/NOTIFY channel, services/read-cache-notices.ts) and an
 * entry is valid only while its class's generation is the one read *before* its query ran. A read
 * that raced with a write is stored under the old number and so is never served. While the
 * notification channel is down the cache is off (`enabled = false`: nothing stored, nothing served),
 * and coming back on flushes everything, since notifications of that time are lost.
 *
 * Bounded by `maxBytes` of text (keys included), least recently used first out; an answer larger than
 * a sixteenth of that is not kept.
 */
export class PublicReadCache {
  private readonly entries = new Map<string, Entry>();
  private readonly generations = new Map<string, number>();
  private epoch = 0;
  private bytes = 0;
  private on = false;
  /** Hits and misses since start (bench and tests). */
  readonly stats = { hits: 0, misses: 0 };

  constructor(private readonly maxBytes: number) {}

  get enabled(): boolean {
    return this.on && this.maxBytes > 0;
  }

  /** Turns the cache on (channel listening) or off (channel lost); both flush. */
  setEnabled(on: boolean): void {
    this.on = on;
    this.flush();
  }

  /** What must be captured before the query whose answer may be stored. */
  ticket(classId: string): { generation: number; epoch: number } {
    return { generation: this.generations.get(classId) ?? 0, epoch: this.epoch };
  }

  get(key: string): CachedAnswer | undefined {
    if (!this.enabled) return undefined;
    const entry = this.entries.get(key);
    if (
      entry === undefined ||
      entry.epoch !== this.epoch ||
      entry.generation !== (this.generations.get(entry.classId) ?? 0)
    ) {
      if (entry !== undefined) this.drop(key, entry);
      this.stats.misses++;
      return undefined;
    }
    // Most recently used goes last.
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.stats.hits++;
    return entry;
  }

  put(key: string, classId: string, ticket: { generation: number; epoch: number }, body: string): CachedAnswer {
    const answer = { body, etag: weakEtag(body) };
    if (!this.enabled || ticket.epoch !== this.epoch || ticket.generation !== (this.generations.get(classId) ?? 0))
      return answer;
    const bytes = 2 * (key.length + body.length) + 200;
    if (bytes > this.maxBytes / 16) return answer;
    const old = this.entries.get(key);
    if (old) this.drop(key, old);
    this.entries.set(key, { ...answer, classId, generation: ticket.generation, epoch: ticket.epoch, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.drop(oldest, entry);
    }
    return answer;
  }

  /** An object of the class changed (or may have): its entries are void from now on. */
  changed(classId: string): void {
    this.generations.set(classId, (this.generations.get(classId) ?? 0) + 1);
  }

  /** Everything is void (class definitions changed, the channel came back). */
  flush(): void {
    this.epoch++;
    this.entries.clear();
    this.bytes = 0;
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
