import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from './database.ts';
import { RouteMetrics } from './route-metrics.ts';

/** Latency buckets (seconds) of the route histogram: from a cached read to a slow import. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The part of knex's (tarn) pool the pool gauges read. */
interface PoolCounts {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

/**
 * Process metrics in a registry of this kernel's own (several kernels can live in one test process).
 * Routes are labelled by their matched pattern (`/data-objects/:id`), never the raw URL, so the number
 * of series stays bounded. A plugin adds its own metrics to `registry` (prefixing them with its area).
 */
export class Metrics {
  readonly registry = new Registry();
  /** `http_requests_total` and `http_request_duration_seconds`, by matched route and method. */
  readonly routes = new RouteMetrics(this.registry, LATENCY_BUCKETS);
  readonly databaseUp = new Gauge({
    name: 'database_up',
    help: '1 when the database answers',
    registers: [this.registry],
  });
  readonly auditRowsLost = new Counter({
    name: 'audit_rows_lost_total',
    help: 'Audit rows that could not be written',
    registers: [this.registry],
  });

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    if (opts.defaultMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /** Pool gauges read from the database client at each scrape (connections in use, idle, waited for). */
  observeDatabasePool(db: Db, poolMax: number): void {
    const pool = () => (db.client as { pool?: PoolCounts }).pool;
    const gauge = (name: string, help: string, read: (p: PoolCounts) => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          const p = pool();
          this.set(p ? read(p) : 0);
        },
      });
    gauge('database_pool_connections_used', 'Database connections in use', (p) => p.numUsed());
    gauge('database_pool_connections_idle', 'Open database connections not in use', (p) => p.numFree());
    gauge('database_pool_waiting', 'Queries waiting for a database connection', (p) => p.numPendingAcquires());
    new Gauge({
      name: 'database_pool_connections_max',
      help: 'Largest number of database connections (DATABASE_POOL_MAX)',
      registers: [this.registry],
    }).set(poolMax);
  }
}
