import { badRequest } from '../../../kernel/index.ts';
import type { AuditLogFilter } from '../store/audit-log-store.ts';

const DAY_MS = 24 * 3600_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// Seconds and fraction optional; a missing zone means UTC. A `+` offset sent unencoded in a query
// string arrives as a space, which is read back as `+`.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+\- ]\d{2}:?\d{2})?$/i;

/** The query string of GET /audit-log after schema validation. */
export interface AuditLogQueryInput {
  action?: string;
  actor?: string;
  targetType?: string;
  targetId?: string;
  from?: string;
  to?: string;
}

/** A parsed `from`/`to` value: the instant, and whether it was a plain date (a whole day). */
interface ParsedInstant {
  at: Date;
  wholeDay: boolean;
}

function validCalendarDate(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** Parses an ISO date (`2024-05-01`, UTC day) or timestamp; throws a 400 naming `field`. */
export function parseInstant(value: string, field: 'from' | 'to'): ParsedInstant {
  const invalid = () =>
    badRequest(`${field} must be an ISO date (2024-05-01) or timestamp (2024-05-01T12:00:00Z)`, field);
  const trimmed = value.trim();
  const date = DATE.exec(trimmed);
  if (date) {
    const [y, m, d] = [Number(date[1]), Number(date[2]), Number(date[3])];
    if (!validCalendarDate(y, m, d)) throw invalid();
    return { at: new Date(Date.UTC(y, m - 1, d)), wholeDay: true };
  }
  const dt = DATE_TIME.exec(trimmed);
  if (!dt) throw invalid();
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(dt[i] ?? 0));
  if (!validCalendarDate(y, mo, d) || h > 23 || mi > 59 || s > 59) throw invalid();
  const zone = (dt[8] ?? 'Z').replace(/^ /, '+');
  const normalized = `${dt[1]}-${dt[2]}-${dt[3]}T${dt[4]}:${dt[5]}:${dt[6] ?? '00'}${dt[7] ? `.${dt[7].slice(0, 3)}` : ''}${zone}`;
  const at = new Date(normalized);
  if (Number.isNaN(at.getTime())) throw invalid();
  return { at, wholeDay: false };
}

/**
 * Turns the validated query string into a store filter. `action` ending in a dot is a prefix;
 * `from` is inclusive; `to` is inclusive too: a plain date includes that whole (UTC) day, a timestamp
 * includes that instant to the millisecond.
 */
export function toFilter(input: AuditLogQueryInput): AuditLogFilter {
  const filter: AuditLogFilter = {};
  if (input.action !== undefined)
    filter.action = input.action.endsWith('.') ? { prefix: input.action } : { exact: input.action };
  if (input.actor !== undefined) filter.actor = input.actor.trim();
  if (input.targetType !== undefined) filter.targetType = input.targetType;
  if (input.targetId !== undefined) filter.targetId = input.targetId;
  if (input.from !== undefined) filter.from = parseInstant(input.from, 'from').at;
  if (input.to !== undefined) {
    const to = parseInstant(input.to, 'to');
    // Stored timestamps carry microseconds while ours carry milliseconds: "up to the end of that
    // millisecond" keeps a row whose own `at` is passed back as `to`.
    filter.before = new Date(to.at.getTime() + (to.wholeDay ? DAY_MS : 1));
  }
  if (filter.from && filter.before && filter.before <= filter.from)
    throw badRequest('to must not be before from', 'to');
  return filter;
}
