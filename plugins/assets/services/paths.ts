import { badRequest } from '../../../kernel/index.ts';

export const MAX_SEGMENT_LENGTH = 255;
export const MAX_PATH_LENGTH = 1024;
// Control characters (C0, DEL, C1), backslash and the characters Windows and shells treat specially.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\\<>:"|?*]/;

/**
 * A folder path as stored: NFC, segments joined by `/`, no leading or trailing slash, '' for the
 * root. `..`, `.`, empty segments, absolute paths and control characters are refused, not repaired:
 * a caller who sends them meant something we must not guess.
 */
export function normaliseFolder(raw: string | undefined, field = 'folder'): string {
  if (raw === undefined || raw === '' || raw === '/') return '';
  const text = raw.normalize('NFC');
  if (text.startsWith('/') && text.length > 1 && text[1] === '/')
    throw badRequest(`${field} must not be an absolute or network path`, field, 'INVALID_PATH');
  if (/^[A-Za-z]:/.test(text)) throw badRequest(`${field} must not be an absolute path`, field, 'INVALID_PATH');
  // A single leading slash is read as "from the library root", the way the UI shows folders.
  const trimmed = text.replace(/^\//, '').replace(/\/$/, '');
  if (trimmed.length > MAX_PATH_LENGTH)
    throw badRequest(`${field} is longer than ${MAX_PATH_LENGTH} characters`, field, 'INVALID_PATH');
  return trimmed
    .split('/')
    .map((s) => segment(s, field))
    .join('/');
}

/** One file name: the same rules as a path segment. */
export function normaliseFilename(raw: string, field = 'filename'): string {
  if (raw.includes('/')) throw badRequest(`${field} must be a name without "/"`, field, 'INVALID_PATH');
  return segment(raw.normalize('NFC'), field);
}

function segment(s: string, field: string): string {
  if (s === '') throw badRequest(`${field} must not contain empty segments (//)`, field, 'INVALID_PATH');
  if (s === '.' || s === '..')
    throw badRequest(`${field} must not contain "." or ".." segments`, field, 'INVALID_PATH');
  if (FORBIDDEN.test(s))
    throw badRequest(`${field} must not contain control characters or any of \\ < > : " | ? *`, field, 'INVALID_PATH');
  if (s.trim() !== s) throw badRequest(`${field} segments must not start or end with spaces`, field, 'INVALID_PATH');
  if (s.length > MAX_SEGMENT_LENGTH)
    throw badRequest(`${field} has a segment longer than ${MAX_SEGMENT_LENGTH} characters`, field, 'INVALID_PATH');
  return s;
}

/** A full asset path: folder plus file name. */
export function normaliseAssetPath(raw: string, field = 'path'): { path: string; folder: string; filename: string } {
  const full = normaliseFolder(raw, field);
  if (full === '') throw badRequest(`${field} must name a file`, field, 'INVALID_PATH');
  const cut = full.lastIndexOf('/');
  const folder = cut < 0 ? '' : full.slice(0, cut);
  const filename = full.slice(cut + 1);
  return { path: full, folder, filename };
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
