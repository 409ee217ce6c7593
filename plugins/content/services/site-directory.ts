import { type Clock, nowMsOf } from '../../../kernel/index.ts';
import type { WebsiteRow, WebsiteStore } from '../store/websites.ts';

/** The resolved website list every public request and `/site-root` reads (no query per request). */
export interface ResolvedWebsite {
  id: string;
  name: string;
  rootPath: string;
  /** Root path without the slash, the first URL segment it answers to. */
  segment: string;
  locales: string[];
  domains: string[];
  row: WebsiteRow;
}

const TTL_MS = 5_000;

/**
 * Websites by id, root segment and domain, loaded once and kept 5 s (the spec's `/site-root` cache)
 * or until a website write drops it: here at once, in every other process (core-api replicas, the
 * gateway) through the kernel's cache notices, which `announce` sends.
 */
export class SiteDirectory {
  private loaded: {
    at: number;
    byId: Map<string, ResolvedWebsite>;
    bySegment: Map<string, ResolvedWebsite>;
    byDomain: Map<string, ResolvedWebsite>;
  } | null = null;
  private loading: Promise<NonNullable<SiteDirectory['loaded']>> | null = null;
  private gen = 0;

  constructor(private readonly deps: { websites: WebsiteStore; clock: Clock; announce?: () => void }) {}

  /** Changes whenever a website write in this process dropped the list. */
  get generation(): number {
    return this.gen;
  }

  /** Drops the list here and tells every other process to. */
  invalidate(): void {
    this.drop();
    this.deps.announce?.();
  }

  /** Drops the list in this process only (another process's change notice). */
  drop(): void {
    this.gen++;
    this.loaded = null;
    this.loading = null;
  }

  /** The list while it is loaded and within its time to live, else null. */
  private fresh(now = nowMsOf(this.deps.clock)): SiteDirectory['loaded'] {
    return this.loaded && now - this.loaded.at < TTL_MS ? this.loaded : null;
  }

  private async current(): Promise<NonNullable<SiteDirectory['loaded']>> {
    const now = nowMsOf(this.deps.clock);
    const fresh = this.fresh(now);
    if (fresh) return fresh;
    if (this.loading !== null) return this.loading;
    const generation = this.gen;
    const loading = this.deps.websites.list().then(
      (rows) => {
        const byId = new Map<string, ResolvedWebsite>();
        const bySegment = new Map<string, ResolvedWebsite>();
        const byDomain = new Map<string, ResolvedWebsite>();
        for (const row of rows) {
          const site: ResolvedWebsite = {
            id: row.id,
            name: row.name,
            rootPath: row.root_path,
            segment: row.root_path.slice(1),
            locales: row.locales,
            domains: row.domains,
            row,
          };
          byId.set(site.id, site);
          bySegment.set(site.segment, site);
          for (const domain of row.domains) byDomain.set(domain.toLowerCase(), site);
        }
        const result = { at: now, byId, bySegment, byDomain };
        // A write during the load made this result stale: serve it to the waiting callers only.
        if (generation === this.gen) this.loaded = result;
        this.loading = null;
        return result;
      },
      (err) => {
        this.loading = null;
        throw err;
      },
    );
    this.loading = loading;
    return loading;
  }

  async byId(id: string): Promise<ResolvedWebsite | undefined> {
    return (await this.current()).byId.get(id);
  }

  /**
   * `byId` answered at once while the list is loaded, a promise only when it must be loaded: a public
   * read then makes no promise and waits no microtask for its website.
   */
  byIdNow(id: string): ResolvedWebsite | undefined | Promise<ResolvedWebsite | undefined> {
    const fresh = this.fresh();
    return fresh ? fresh.byId.get(id) : this.byId(id);
  }

  async bySegment(segment: string): Promise<ResolvedWebsite | undefined> {
    return (await this.current()).bySegment.get(segment);
  }

  async byDomain(host: string): Promise<ResolvedWebsite | undefined> {
    return (await this.current()).byDomain.get(host.toLowerCase().replace(/:\d+$/, ''));
  }

  async all(): Promise<ResolvedWebsite[]> {
    return [...(await this.current()).byId.values()];
  }
}

/** First segment of a URL path (`/shop/about?x=1` → `shop`). */
export function firstSegment(uri: string): string {
  const path = uri.split(/[?#]/, 1)[0];
  return path.split('/').filter(Boolean)[0] ?? '';
}
