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
 * Endpoints with their routes, kept in memory for the call path (a call then reads no table). This
 * process's own writes drop an entry at once (`forget`); a write by another process (the gateway
 * writes, core-api also reads the catalog) is seen after at most `ttlMs`.
 */
export class CatalogCache {
  private readonly byId = new Map<string, Entry>();
  private readonly idByName = new Map<string, string>();

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
    const endpoint = await this.deps.endpoints.findById(id);
    return endpoint && this.load(endpoint);
  }

  /** The entry read again now (a route created by another process since the entry was loaded). */
  async reload(id: string): Promise<Entry | undefined> {
    this.forget(id);
    return this.byEndpointId(id);
  }

  /** True when the entry was loaded more than `ms` ago. */
  olderThan(entry: Entry, ms: number): boolean {
    return this.deps.clock.now().getTime() - entry.loadedAt > ms;
  }

  async byEndpointName(name: string): Promise<Entry | undefined> {
    const id = this.idByName.get(name);
    const hit = id !== undefined ? this.byId.get(id) : undefined;
    if (hit && this.fresh(hit) && hit.endpoint.name === name) return hit;
    const endpoint = await this.deps.endpoints.findByName(name);
    return endpoint && this.load(endpoint);
  }

  forget(endpointId: string): void {
    const entry = this.byId.get(endpointId);
    if (entry) this.idByName.delete(entry.endpoint.name);
    this.byId.delete(endpointId);
  }

  private fresh(entry: Entry): boolean {
    return this.deps.clock.now().getTime() - entry.loadedAt < this.deps.ttlMs;
  }

  private async load(endpoint: Endpoint): Promise<Entry> {
    const entry = {
      endpoint,
      routes: await this.deps.routes.listByEndpoint(endpoint.id),
      loadedAt: this.deps.clock.now().getTime(),
    };
    this.forget(endpoint.id);
    if (this.byId.size >= this.deps.maxEntries) this.forget(this.byId.keys().next().value!);
    this.byId.set(endpoint.id, entry);
    this.idByName.set(endpoint.name, endpoint.id);
    return entry;
  }
}
