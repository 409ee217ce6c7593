import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../kernel/index.ts';
import { auditLogRoutes } from './routes/audit-log.ts';
import { AuditLogReader } from './services/audit-log-reader.ts';
import { purgeExpiredAuditRows } from './services/retention.ts';
import { AuditLogStore } from './store/audit-log-store.ts';
import { AUDIT_PERMISSIONS } from './permissions.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * The audit log's read side and retention. The kernel owns the `audit_log` table (append-only by
 * trigger) and the writer every plugin records through; this plugin serves GET /audit-log
 * (`audit:read`, JSON or CSV) and purges rows older than AUDIT_RETENTION_DAYS shortly after start and
 * then daily. Its migration only adds read indexes to the kernel's table; it has no route that writes.
 */
export default definePlugin({
  id: 'audit',
  processes: ['core-api'],
  permissions: AUDIT_PERMISSIONS,
  needs: ['db', 'audit', 'clock', 'config'],
  migrations: path.join(here, 'migrations'),
  setup: ({ db }) => ({ reader: new AuditLogReader({ store: new AuditLogStore({ db }) }) }),
  async routes(app, ctx) {
    await auditLogRoutes(app, { reader: ctx.services.reader, now: () => ctx.clock.now() });
  },
  schedules: [
    // Daily at 02:23 UTC, in one process of the cluster however many run.
    { name: 'purge', cron: '23 2 * * *', run: (ctx) => purgeExpiredAuditRows(ctx).then(() => undefined) },
  ],
});
