/**
 * One object row of the public read path (store/public-read-sql.ts) as the driver gives it (uuids,
 * texts and the formatted timestamps as strings, `published` as a boolean, attributes as jsonb's
 * text). The answer is written from it directly: `attributes` is parsed once (JSON.parse) so
 * `JSON.stringify` gives the same bytes the DTO mapping gave (jsonb's text form puts spaces after `:`
 * and `,`).
 */
export interface PublicRow {
  id: string;
  class_id: string;
  translation_group_id: string | null;
  locale: string | null;
  key: string | null;
  parent_id: string | null;
  path: string | null;
  published: boolean;
  workflow_state: string | null;
  /** Null on a row past the page's byte cap (store/public-read-sql.ts). */
  attributes_text: string | null;
  created_text: string;
  updated_text: string;
  [key: `k${number}`]: string | null;
}

/** A JSON string, or `null`. */
const q = (value: string | null): string => (value === null ? 'null' : JSON.stringify(value));

/**
 * The object's JSON text as the public API answers it: the bytes `JSON.stringify` gives for the DTO
 * (the key order of `toObjectDto`, model.ts), written directly, with the attributes from
 * {@link compactJsonbText}. An answer is one string concatenation per object, with no object built.
 */
export function publicObjectJson(row: PublicRow, className: string): string {
  const attributes =
    row.attributes_text === null
      ? '{}'
      : (compactJsonbText(row.attributes_text) ?? JSON.stringify(JSON.parse(row.attributes_text)));
  return (
    `{"id":${q(row.id)},"class":{"id":${q(row.class_id)},"name":${q(className)}},"classId":${q(row.class_id)},` +
    `"translationGroupId":${q(row.translation_group_id)},"locale":${q(row.locale)},"key":${q(row.key)},"parentId":${q(row.parent_id)},` +
    `"path":${q(row.path)},"published":${row.published},"workflowState":${q(row.workflow_state)},"attributes":${attributes},` +
    `"createdAt":${q(row.created_text)},"updatedAt":${q(row.updated_text)}}`
  );
}

const SPACE = 32;
const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;

const isNumberChar = (c: number) => (c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69;

/**
 * jsonb's text form turned into what `JSON.stringify(JSON.parse(text))` gives, without building the
 * value: jsonb prints one space after each `:` and `,` outside strings (dropped here), escapes strings
 * exactly as JSON.stringify does (the same seven short escapes, `\u00xx` in lower case for other
 * control characters, everything else as is), and orders keys as JavaScript keeps them unless a key
 * is an array index (JavaScript puts those first): then `null`, and the caller parses. A number whose
 * text is not JavaScript's own (`1000000000000000000000`, `0.0000001`) is rewritten as
 * JSON.stringify writes it (`1e+21`, `1e-7`). Checked byte for byte by test/public-bytes.test.ts.
 */
export function compactJsonbText(text: string): string | null {
  let out = '';
  let copiedTo = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Jump to the closing quote: the next quote not preceded by an odd run of backslashes.
      let end = text.indexOf('"', i + 1);
      for (;;) {
        if (end < 0) return null;
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
        if (slashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (text.charCodeAt(end + 1) === COLON && isIndexKey(text, i + 1, end)) return null;
      i = end + 1;
    } else if (c === SPACE) {
      out += text.slice(copiedTo, i);
      copiedTo = ++i;
    } else if ((c >= 48 && c <= 57) || c === 45) {
      let end = i + 1;
      while (end < n && isNumberChar(text.charCodeAt(end))) end++;
      const token = text.slice(i, end);
      const value = Number(token);
      const written = Number.isFinite(value) ? String(value) : 'null';
      if (written !== token) {
        out += text.slice(copiedTo, i) + written;
        copiedTo = end;
      }
      i = end;
    } else {
      i++;
    }
  }
  return copiedTo === 0 ? text : out + text.slice(copiedTo);
}

/** An array index key ("0", "17", up to 2^32 - 2): JavaScript orders such keys before all others. */
function isIndexKey(text: string, from: number, to: number): boolean {
  if (to === from || to - from > 10) return false;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  if (to - from > 1 && text.charCodeAt(from) === 48) return false;
  return Number(text.slice(from, to)) < 4294967295;
}
