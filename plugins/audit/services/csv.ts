/**
 * Text a spreadsheet may read as a formula or a DDE call (OWASP "CSV injection"): a leading `=`, `+`,
 * `-`, `@` or `|` (DDE), also in full width and after leading blanks (some spreadsheets trim them or
 * fold full-width signs), or a leading tab, CR or LF.
 */
const FORMULA_START = /^[\s\u3000]*[=+\-@|\uFF1D\uFF0B\uFF0D\uFF20\uFF5C]|^[\t\r\n]/;

/**
 * One CSV cell: text that would start a formula gets a leading apostrophe, then the value is quoted
 * when it contains a comma, quote or line break (RFC 4180, quotes doubled).
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text =
    value instanceof Date ? value.toISOString() : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A header row and one CRLF-terminated line per row, columns in the given order. */
export function toCsv<K extends string>(columns: readonly K[], rows: ReadonlyArray<Record<K, unknown>>): string {
  const lines = [columns.join(',')];
  for (const row of rows) lines.push(columns.map((c) => csvCell(row[c])).join(','));
  return lines.join('\r\n') + '\r\n';
}
