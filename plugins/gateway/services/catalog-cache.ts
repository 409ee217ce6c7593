import type { Clock } from '../../../kernel/index.ts';
import type { Endpoint, Route } from '../model.ts';
import type { EndpointStore } from '../store/endpoint-store.ts';
import type { RouteStore } from '../store/route-store.ts';

interface Entry {
  endpoint: Endpoint;
  routes: Route[];
  loadedAt: number;
}

/**
 * Endpoints with their routes, kept in memory for the call path (a call then reads no table). A
 * write in any process drops the entry everywhere (`forget`, through the kernel's cache notices,
 * within a second); `ttlMs` bounds the staleness should a notice be lost. Concurrent misses of one
 * endpoint (by id or by name) share one load: a burst of calls to an endpoint whose entry just
 * expired costs two queries, not two per call.
 */
export class CatalogCache {
  private readonly byId = new Map<string, Entry>();
  private readonly idByName = new Map<string, string>();
  // Loads running, by `id:<id>` or `name:<name>`; `forget` drops them so a load older than a write is not kept.
  private readonly loading = new Map<string, Promise<Entry | undefined>>();

  constructor(
    private readonly deps: {
      endpoints: EndpointStore;
      routes: RouteStore;
      clock: Clock;
      ttlMs: number;
      maxEntries: number;
    },
  ) {}

  async byEndpointId(id: string): Promise<Entry | undefined> {
    const hit = this.byId.get(id);
    if (hit && this.fresh(hit)) return hit;
    return this.shared(`id:${id}`, () => this.deps.endpoints.findById(id));
  }

  /**
   * The entry read again (a route created by another process since the entry was loaded); a load of
   * it already running is shared, so a burst of unmatched calls reloads once.
   */
  async reload(id: string): Promise<Entry | undefined> {
    return this.shared(`id:${id}`, () => this.deps.endpoints.findById(id));
  }

  /** True when the entry was loaded more than `ms` ago. */
  olderThan(entry: Entry, ms: number): boolean {
    return this.deps.clock.now().getTime() - entry.loadedAt > ms;
  }

  async byEndpointName(name: string): Promise<Entry | undefined> {
    const id = this.idByName.get(name);
    const hit = id !== undefined ? this.byId.get(id) : undefined;
    if (hit && this.fresh(hit) && hit.endpoint.name === name) return hit;
    return this.shared(`name:${name}`, () => this.deps.endpoints.findByName(name));
  }

  /** Drops every entry (a change notice without an endpoint, or the notices' connection came back). */
  forgetAll(): void {
    this.byId.clear();
    this.idByName.clear();
    this.loading.clear();
  }

  forget(endpointId: string): void {
    const entry = this.byId.get(endpointId);
    if (entry) this.idByName.delete(entry.endpoint.name);
    this.byId.delete(endpointId);
    this.loading.delete(`id:${endpointId}`);
    // A load by name may be this endpoint under its old or new name: none of them is kept.
    for (const key of this.loading.keys()) if (key.startsWith('name:')) this.loading.delete(key);
  }

  /** One load per key at a time; it enters the cache only while nothing forgot it meanwhile. */
  private shared(key: string, find: () => Promise<Endpoint | undefined>): Promise<Entry | undefined> {
    const running = this.loading.get(key);
    if (running) return running;
    const load = async (): Promise<Entry | undefined> => {
      const endpoint = await find();
      if (!endpoint) {
        // Gone (deleted by another process): an entry still held for it goes too.
        if (key.startsWith('id:') && this.loading.get(key) === started) this.evict(key.slice(3));
        return undefined;
      }
      const entry = await this.read(endpoint);
      if (this.loading.get(key) === started) this.keep(entry);
      return entry;
    };
    const started = load();
    this.loading.set(key, started);
    const done = () => {
      if (this.loading.get(key) === started) this.loading.delete(key);
    };
    started.then(done, done);
    return started;
  }

  private fresh(entry: Entry): boolean {
    return this.deps.clock.now().getTime() - entry.loadedAt < this.deps.ttlMs;
  }

  private async read(endpoint: Endpoint): Promise<Entry> {
    return {
      endpoint,
      routes: await this.deps.routes.listByEndpoint(endpoint.id),
      loadedAt: this.deps.clock.now().getTime(),
    };
  }

  private keep(entry: Entry): void {
    const old = this.byId.get(entry.endpoint.id);
    if (old) this.idByName.delete(old.endpoint.name);
    if (!old && this.byId.size >= this.deps.maxEntries) this.evict(this.byId.keys().next().value!);
    this.byId.set(entry.endpoint.id, entry);
    this.idByName.set(entry.endpoint.name, entry.endpoint.id);
  }

  private evict(endpointId: string): void {
    const entry = this.byId.get(endpointId);
    if (entry) this.idByName.delete(entry.endpoint.name);
    this.byId.delete(endpointId);
  }
}
