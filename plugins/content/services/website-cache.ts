const TTL_MS = 5_000;

/**
 * One value per website (its layouts, its active theme, its menu), loaded on first use and kept 5 s
 * or until a write in this process drops it, the way the website directory is kept: the public page
 * reads it on every request, so a request costs no query for it. Other processes see a change
 * within the 5 s. A load that a write overtook is handed to its waiting callers only, never kept.
 */
export class WebsiteCache<T> {
  private readonly entries = new Map<string, { at: number; value: T }>();
  private readonly stamps = new Map<string, string>();
  private readonly loading = new Map<string, Promise<T>>();
  private readonly loadingStamps = new Map<string, string>();
  /** Per website, how often its value was dropped; `everything` counts drops of every value. */
  private readonly generations = new Map<string, number>();
  private everything = 0;

  constructor(
    private readonly deps: {
      load(websiteId: string): Promise<T>;
      now(): number;
      /** Changes when every website's value may be stale (the directory's generation: website writes). */
      generation?(): number;
    },
  ) {}

  private stamp(websiteId: string): string {
    return `${this.everything}.${this.deps.generation?.() ?? 0}.${this.generations.get(websiteId) ?? 0}`;
  }

  async get(websiteId: string): Promise<T> {
    const now = this.deps.now();
    const hit = this.entries.get(websiteId);
    const stamp = this.stamp(websiteId);
    if (hit && now - hit.at < TTL_MS && this.stamps.get(websiteId) === stamp) return hit.value;
    const pending = this.loading.get(websiteId);
    if (pending && this.loadingStamps.get(websiteId) === stamp) return pending;
    const load = this.deps.load(websiteId).then(
      (value) => {
        if (this.loading.get(websiteId) === load) this.loading.delete(websiteId);
        if (this.stamp(websiteId) === stamp) {
          this.entries.set(websiteId, { at: now, value });
          this.stamps.set(websiteId, stamp);
        }
        return value;
      },
      (err) => {
        if (this.loading.get(websiteId) === load) this.loading.delete(websiteId);
        throw err;
      },
    );
    this.loading.set(websiteId, load);
    this.loadingStamps.set(websiteId, stamp);
    return load;
  }

  /** Drops one website's value (or every value): the next read loads it again. */
  invalidate(websiteId?: string | null): void {
    if (!websiteId) {
      this.everything++;
      this.entries.clear();
      return;
    }
    this.generations.set(websiteId, (this.generations.get(websiteId) ?? 0) + 1);
    this.entries.delete(websiteId);
  }
}
