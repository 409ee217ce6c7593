/**
 * CSV import of objects, in the browser: the file is parsed here and its rows go to
 * `POST /data-objects/bulk` (500 a call, drafts, `rejected` rows reported), the import the API
 * offers. No CSV route exists on the server.
 *
 * Pure functions without imports: a unit test on the server runs them, and the server's type check
 * cannot compile the dashboard SDK (browser code).
 */

/** What the planner reads of a field; the dashboard's `FieldDef` (from `/openapi.json`) fits it. */
export interface CsvField {
  name: string;
  type: string;
  /** A list's item type. */
  of?: string;
}

/** Rows of a CSV text (RFC 4180: `,` separated, `"` quoted with `""` inside, CRLF or LF lines). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a byte order mark from spreadsheet exports
  for (; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"' && cell === '') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows.filter((r) => !(r.length === 1 && r[0] === ''));
}

export interface CsvPlan {
  /** Columns that become attributes, `key` or `locale`. */
  used: string[];
  /** Columns no field of the class has (left out). */
  ignored: string[];
  rows: { key?: string; locale?: string; attributes: Record<string, unknown> }[];
  /** Cells that could not be read as their field's type: `row N, column: why`. */
  problems: string[];
}

/** A cell as the value its field holds; `undefined` for an empty cell (the field stays unset). */
function cellValue(field: CsvField, text: string): unknown {
  if (text === '') return undefined;
  switch (field.type) {
    case 'number': {
      const n = Number(text);
      if (!Number.isFinite(n)) throw new Error('not a number');
      return n;
    }
    case 'boolean':
      if (/^(true|yes|1)$/i.test(text)) return true;
      if (/^(false|no|0)$/i.test(text)) return false;
      throw new Error('not yes/no (true, false, yes, no, 1, 0)');
    case 'json':
    case 'component':
      return JSON.parse(text);
    case 'array':
      return text.trimStart().startsWith('[')
        ? JSON.parse(text)
        : text.split(';').map((s) => cellValue({ name: field.name, type: field.of ?? 'text' }, s.trim()));
    default:
      return text;
  }
}

/**
 * The bulk rows of a parsed CSV (first row: column names = field names, plus `key` and `locale`).
 * Lists are `;`-separated or JSON; components and JSON fields are JSON.
 */
export function planCsvImport(cls: { fields: readonly CsvField[] }, table: string[][]): CsvPlan {
  const [header = [], ...body] = table;
  const fields = new Map(cls.fields.map((f) => [f.name, f]));
  const names = header.map((h) => h.trim());
  const used = names.filter((n) => n === 'key' || n === 'locale' || fields.has(n));
  const ignored = names.filter((n) => n !== '' && !used.includes(n));
  const problems: string[] = [];
  const rows = body.map((cells, r) => {
    const row: CsvPlan['rows'][number] = { attributes: {} };
    names.forEach((name, c) => {
      const text = cells[c] ?? '';
      if (name === 'key') {
        if (text) row.key = text;
        return;
      }
      if (name === 'locale') {
        if (text) row.locale = text;
        return;
      }
      const field = fields.get(name);
      if (!field) return;
      try {
        const value = cellValue(field, text);
        if (value !== undefined) row.attributes[name] = value;
      } catch (err) {
        problems.push(`row ${r + 2}, ${name}: ${(err as Error).message}`);
      }
    });
    return row;
  });
  return { used, ignored, rows, problems };
}

/** Splits rows into calls of at most `size` (the bulk route takes 500). */
export function chunks<T>(items: readonly T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
