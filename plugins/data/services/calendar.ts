/**
 * Dates and date-times this plugin takes lie in the years 1 to 9999 (UTC): PostgreSQL refuses
 * timestamps before 4714 BC (22008) and the stored ISO form sorts in time order only with four-digit
 * years (the attribute indexes compare text).
 */
export const YEARS = '1 to 9999';
const MIN_MS = Date.parse('0001-01-01T00:00:00.000Z');
const MAX_MS = Date.parse('9999-12-31T23:59:59.999Z');
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A calendar date `YYYY-MM-DD` that exists (no February 30) in the years 1 to 9999. */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string' || !DATE.test(value) || value.startsWith('0000')) return false;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === value;
}

/** Whether an instant (milliseconds since 1970) lies in the years 1 to 9999, UTC. */
export const inYearRange = (ms: number): boolean => ms >= MIN_MS && ms <= MAX_MS;
