import {
  AUDIT_LOG_COLUMNS,
  type AuditLogFilter,
  type AuditLogRow,
  type AuditLogStore,
} from '../store/audit-log-store.ts';

/** An audit entry as GET /audit-log shows it (the spec's field names; `at` as ISO 8601 UTC). */
export type AuditLogEntry = Omit<AuditLogRow, 'at'> & { at: string };

/** Columns of the CSV export, in order: the stored columns. */
export const ENTRY_COLUMNS = AUDIT_LOG_COLUMNS satisfies ReadonlyArray<keyof AuditLogEntry>;

/** Reads the audit log; there is deliberately no method that writes. */
export class AuditLogReader {
  constructor(private readonly deps: { store: AuditLogStore }) {}

  /** One page, newest first, with the exact number of matching rows. */
  async page(
    filter: AuditLogFilter,
    page: { limit: number; offset: number },
  ): Promise<{ entries: AuditLogEntry[]; total: number }> {
    // Two statements on two pool connections: the page and the count run side by side.
    const [rows, total] = await Promise.all([this.deps.store.list(filter, page), this.deps.store.count(filter)]);
    return { entries: rows.map((row) => ({ ...row, at: row.at.toISOString() })), total };
  }
}
