import { badRequest } from '../../../kernel/index.ts';

export const MAX_SEGMENT_LENGTH = 255;
export const MAX_PATH_LENGTH = 1024;
/**
 * Longest percent-encoded path a new name may give: its delivery URL's request line must fit a
 * proxy's default header buffer (nginx: 8 KB) with `/dam-asset/`, the query and the headers beside it.
 */
export const MAX_ENCODED_PATH_LENGTH = 6144;
// Control characters (C0, DEL, C1), backslash and the characters Windows and shells treat specially.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\\<>:"|?*]/;

/**
 * What a new name may not hold, beyond FORBIDDEN: invisible and format characters (bidirectional
 * overrides and isolates, zero-width characters, soft hyphen, BOM, tag characters: `\p{Cf}`), line
 * and paragraph separators, private-use and lone surrogate code points, noncharacters, spaces other
 * than U+0020 and the ideographic space.
 */
const INVISIBLE = /[\p{Cf}\p{Co}\p{Cs}\p{Zl}\p{Zp}\uFDD0-\uFDEF\uFFFE\uFFFF]|(?![ \u3000])\p{Zs}/u;
// Characters that look like a slash or backslash. The combining solidus overlays (U+0337, U+0338,
// U+20E5, U+20EB) stand outside the class: inside one they would read as joined to the character before.
const LOOKALIKE_SLASH =
  /[\u2044\u2215\u2216\u2571\u2572\u27CB\u27CD\u29F5\u29F8\u29F9\u2CFA\u3033\uFE68\uFF0F\uFF3C\u1735]|\u0337|\u0338|\u20E5|\u20EB/u;
/** A zero-width joiner inside an emoji sequence (👨‍👩‍👧) is part of one visible picture: allowed there. */
const EMOJI_JOINER = /(?<=\p{Extended_Pictographic}\uFE0F?)\u200D(?=\p{Extended_Pictographic})/gu;
/**
 * Zero-width (non-)joiners between two letters of a non-Latin script are spelling (Persian, the Indic
 * scripts: "می‌خواهم"): allowed there. Between ASCII letters they only make look-alike names.
 */
const SCRIPT_JOINER = /(?<=[\p{L}\p{M}])(?<!\p{ASCII})[\u200C\u200D](?=\p{L})(?!\p{ASCII})/gu;
/** A percent sign that starts an escape (`%2e`, `%2F`): a layer that decodes once more would change the name. */
const PERCENT_ESCAPE = /%[0-9A-Fa-f]{2}/;

/**
 * Whether a path is checked as a new name (`write`: every rule) or only looked up (`read`: the
 * structural rules, so a row stored under older rules stays readable, deliverable and deletable).
 */
type Use = 'write' | 'read';

/**
 * A folder path as stored: NFC, segments joined by `/`, no leading or trailing slash, '' for the
 * root. `..`, `.`, empty segments, absolute paths and control characters are refused, not repaired:
 * a caller who sends them meant something we must not guess. A new name also refuses invisible
 * characters, look-alike slashes and percent escapes (README "Paths and names").
 */
export function normaliseFolder(raw: string | undefined, field = 'folder', use: Use = 'write'): string {
  if (raw === undefined || raw === '' || raw === '/') return '';
  const text = raw.normalize('NFC');
  if (text.startsWith('/') && text.length > 1 && text[1] === '/')
    throw badRequest(`${field} must not be an absolute or network path`, field, 'INVALID_PATH');
  if (/^[A-Za-z]:/.test(text)) throw badRequest(`${field} must not be an absolute path`, field, 'INVALID_PATH');
  // A single leading slash is read as "from the library root", the way the UI shows folders.
  const trimmed = text.replace(/^\//, '').replace(/\/$/, '');
  if (trimmed.length > MAX_PATH_LENGTH)
    throw badRequest(`${field} is longer than ${MAX_PATH_LENGTH} characters`, field, 'INVALID_PATH');
  const out = trimmed
    .split('/')
    .map((s) => segment(s, field, use))
    .join('/');
  if (use === 'write') checkEncodedLength(out, field);
  return out;
}

/** A folder path to look up (listing, deleting): the structural rules only. */
export const lookupFolder = (raw: string | undefined, field = 'folder') => normaliseFolder(raw, field, 'read');

/** One new file name: the same rules as a path segment. */
export function normaliseFilename(raw: string, field = 'filename'): string {
  if (raw.includes('/')) throw badRequest(`${field} must be a name without "/"`, field, 'INVALID_PATH');
  return segment(raw.normalize('NFC'), field, 'write');
}

function segment(s: string, field: string, use: Use): string {
  if (s === '') throw badRequest(`${field} must not contain empty segments (//)`, field, 'INVALID_PATH');
  if (s === '.' || s === '..')
    throw badRequest(`${field} must not contain "." or ".." segments`, field, 'INVALID_PATH');
  if (FORBIDDEN.test(s))
    throw badRequest(`${field} must not contain control characters or any of \\ < > : " | ? *`, field, 'INVALID_PATH');
  if (s.trim() !== s) throw badRequest(`${field} segments must not start or end with spaces`, field, 'INVALID_PATH');
  if (s.length > MAX_SEGMENT_LENGTH)
    throw badRequest(`${field} has a segment longer than ${MAX_SEGMENT_LENGTH} characters`, field, 'INVALID_PATH');
  if (use === 'write') checkNewSegment(s, field);
  return s;
}

/** The rules only a new name must keep (a stored row may predate them). */
function checkNewSegment(s: string, field: string): void {
  if (INVISIBLE.test(s.replace(EMOJI_JOINER, '').replace(SCRIPT_JOINER, '')))
    throw badRequest(
      `${field} must not contain invisible or formatting characters (such as bidirectional overrides or zero-width characters) or unusual spaces`,
      field,
      'INVALID_PATH',
    );
  if (LOOKALIKE_SLASH.test(s))
    throw badRequest(`${field} must not contain characters that look like a slash or backslash`, field, 'INVALID_PATH');
  // Compatibility forms fold to "/", "\" or dots (fullwidth solidus, two dot leader "‥"): the same segment, spelled otherwise.
  const folded = s.normalize('NFKC');
  if (folded.includes('/') || folded.includes('\\'))
    throw badRequest(`${field} must not contain characters that look like a slash or backslash`, field, 'INVALID_PATH');
  if (folded.trim() === '.' || folded.trim() === '..')
    throw badRequest(`${field} must not contain "." or ".." segments, in any spelling`, field, 'INVALID_PATH');
  if (PERCENT_ESCAPE.test(s))
    throw badRequest(
      `${field} must not contain a percent escape (% followed by two hex digits, such as %2e or %2F); a % on its own is fine`,
      field,
      'INVALID_PATH',
    );
}

function checkEncodedLength(path: string, field: string): void {
  if (encodePath(path).length > MAX_ENCODED_PATH_LENGTH)
    throw badRequest(
      `${field} is too long for a delivery URL (over ${MAX_ENCODED_PATH_LENGTH} characters once percent-encoded)`,
      field,
      'INVALID_PATH',
    );
}

/** A full asset path: folder plus file name, checked as a new name (`write`) or for a lookup (`read`). */
export function normaliseAssetPath(
  raw: string,
  field = 'path',
  use: Use = 'write',
): { path: string; folder: string; filename: string } {
  const full = normaliseFolder(raw, field, use);
  if (full === '') throw badRequest(`${field} must name a file`, field, 'INVALID_PATH');
  const cut = full.lastIndexOf('/');
  const folder = cut < 0 ? '' : full.slice(0, cut);
  const filename = full.slice(cut + 1);
  return { path: full, folder, filename };
}

/** An asset path to look up (reading, delivering, moving or deleting an existing asset). */
export const lookupAssetPath = (raw: string, field = 'path') => normaliseAssetPath(raw, field, 'read');

/**
 * The path of a new asset from an already normalised folder and file name: the joined path must keep
 * the length limits too, or the row could never be looked up or delivered again.
 */
export function newAssetPath(folder: string, filename: string, field = 'path'): string {
  const path = joinPath(folder, filename);
  if (path.length > MAX_PATH_LENGTH)
    throw badRequest(`${field} is longer than ${MAX_PATH_LENGTH} characters`, field, 'INVALID_PATH');
  checkEncodedLength(path, field);
  return path;
}

export const joinPath = (folder: string, filename: string) => (folder ? `${folder}/${filename}` : filename);

/** The folder and each of its ancestors ('a/b/c' -> ['a', 'a/b', 'a/b/c']). */
export function folderChain(folder: string): string[] {
  if (!folder) return [];
  const parts = folder.split('/');
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
}

/** The URL path of a stored path: each segment percent-encoded. */
export const encodePath = (p: string) => p.split('/').map(encodeURIComponent).join('/');
