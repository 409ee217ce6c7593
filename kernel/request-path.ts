/**
 * The routing boundary of a request path. A proxy or a service that routes on one reading of a path
 * while the next hop reads it another way (resolving `..`, decoding `%2e%2e` or `%252e`, taking `\`
 * for `/`, stopping at `;`) lets a request leave the prefix it was routed by. Every process therefore
 * refuses, before any handler, a path that holds a dot segment in any spelling, a raw backslash or
 * an invalid (overlong) UTF-8 encoding. Browsers and HTTP clients resolve dot segments before
 * sending, so only a crafted request carries one; refusing it (instead of resolving it here) leaves no
 * second reading that could disagree with the next hop's. The reverse proxy refuses the same
 * spellings (`edge/generate.ts`).
 */

/** Why a path is refused. */
export type PathProblem = 'DOT_SEGMENT' | 'BACKSLASH' | 'INVALID_ENCODING';

/**
 * How many percent-decodings a forwarding hop looks through (`%25252e` is three from `.`). Every
 * route looks through one, the decoding the services themselves do: a literal `%2e%2e` in a stored
 * name (sent as `%252e%252e`) is data to them, and stays deliverable.
 */
export const MAX_DECODING_ROUNDS = 4;

// A `.` or `..` segment: between separators (`/`, and `\` which WHATWG URL parsers read as `/`), up
// to a `;` (path parameters: `..;/` is `..` to some servers), a control character (`..%00` is `..` to
// a reader that stops at NUL) or, once decoded, a `?` or `#` that a later parse would take as the end
// of the path. Control characters elsewhere are left to each route's own validation (NUL_CHARACTER).
const DOT_SEGMENT = /(?:^|[/\\\p{Cc}])\.{1,2}(?:[/\\;?#\p{Cc}]|$)/u;
const ESCAPE = /%[0-9A-Fa-f]{2}/;
// Escapes of `.`, `/`, `\`, `;`, `?`, `#`, `%`, control characters and overlong lead bytes.
const RELEVANT_ESCAPE = /%(?:2e|2f|5c|3b|3f|23|25|[01][0-9a-f]|7f|c[01]|e0%[89]|f0%8)/i;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const lenientUtf8 = new TextDecoder('utf-8');

/** The value of an ASCII hex digit, or -1. */
function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
}

/** `%XX` sequences to bytes, everything else as its UTF-8 bytes. */
function percentDecodeBytes(text: string): Uint8Array {
  const raw = Buffer.from(text, 'utf8');
  const out = new Uint8Array(raw.length);
  let n = 0;
  for (let i = 0; i < raw.length; i++) {
    const hi = raw[i] === 0x25 ? hexValue(raw[i + 1] ?? 0) : -1;
    const lo = hi === -1 ? -1 : hexValue(raw[i + 2] ?? 0);
    if (lo === -1) {
      out[n++] = raw[i]!;
      continue;
    }
    out[n++] = hi * 16 + lo;
    i += 2;
  }
  return out.subarray(0, n);
}

// Lead bytes that only ever start an overlong form (0xC0, 0xC1), or start one with the next byte
// (E0 80-9F, F0 80-8F): `%c0%ae` is an overlong `.` to a lenient decoder.
function hasOverlongForm(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    const next = bytes[i + 1] ?? 0;
    if (b === 0xc0 || b === 0xc1) return true;
    if (b === 0xe0 && next >= 0x80 && next <= 0x9f) return true;
    if (b === 0xf0 && next >= 0x80 && next <= 0x8f) return true;
  }
  return false;
}

/**
 * The problem of a request path (the part of the request target before `?`), or null. The path is
 * read as sent, then percent-decoded `rounds` times (1 for a route; MAX_DECODING_ROUNDS where a path
 * is forwarded to another service); every reading must be free of dot segments. The first decoding must give valid UTF-8, as the services decode once (a path whose
 * escapes cannot matter here is left to the router, which refuses what it cannot decode). Later
 * readings only matter for what they spell, so bytes that are not UTF-8 there (a literal `%ff` in a
 * file name) are read as U+FFFD; overlong forms are refused in any round.
 */
export function requestPathProblem(path: string, rounds = 1): PathProblem | null {
  if (path.indexOf('\\') !== -1) return 'BACKSLASH';
  // The common case: no raw dot after a slash, and no escape that could decode to anything that
  // matters here (`%C3%A9` cannot); such a path is what every reading of it is.
  if (path.indexOf('/.') === -1 && (path.indexOf('%') === -1 || !RELEVANT_ESCAPE.test(path))) return null;
  let reading = path;
  for (let round = 0; ; round++) {
    if (DOT_SEGMENT.test(reading)) return 'DOT_SEGMENT';
    if (round === rounds || !ESCAPE.test(reading)) return null;
    const bytes = percentDecodeBytes(reading);
    if (hasOverlongForm(bytes)) return 'INVALID_ENCODING';
    if (round > 0) reading = lenientUtf8.decode(bytes);
    else {
      try {
        reading = strictUtf8.decode(bytes);
      } catch {
        return 'INVALID_ENCODING';
      }
    }
  }
}

const MESSAGES: Record<PathProblem, string> = {
  DOT_SEGMENT: 'The path holds a "." or ".." segment (in some spelling); such paths are refused, not resolved',
  BACKSLASH: 'The path holds a backslash; use "/" between segments and %5C inside one',
  INVALID_ENCODING: 'The path is not validly percent-encoded UTF-8 (overlong forms are refused)',
};

/** The message of a 400 for `problem`, naming it for the caller. */
export function pathProblemMessage(problem: PathProblem): string {
  return MESSAGES[problem];
}

/** The path part (before `?`) of a request target. */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
