import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

/** Process metrics in a registry of this kernel's own (several kernels can live in one test process). */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'Requests by matched route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
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
}
