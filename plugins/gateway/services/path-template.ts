import { badRequest, MAX_DECODING_ROUNDS, requestPathProblem } from '../../../kernel/index.ts';

/** One segment of a template: literal text, or `prefix{name}suffix` with one parameter. */
interface Segment {
  prefix: string;
  param?: string;
  suffix: string;
}

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
const MAX_SEGMENTS = 64;

/**
 * Parses `/users/{id}/posts` into segments. At most one `{...}` per segment keeps matching a plain
 * string comparison (no regular expression built from stored text); a bad template is a 400 naming `field`.
 */
export function parseTemplate(template: string, field = 'path'): Segment[] {
  if (!template.startsWith('/')) throw badRequest('A path starts with /', field);
  if (/[?#\s]/.test(template)) throw badRequest('A path has no query, fragment or spaces', field);
  // `..` (in any spelling) would leave the endpoint's base path: the kernel's rule for request paths.
  if (requestPathProblem(template, MAX_DECODING_ROUNDS) !== null)
    throw badRequest('A path has no . or .. segments (in any spelling), backslashes or control characters', field);
  const parts = template.split('/').slice(1);
  if (parts.length > MAX_SEGMENTS) throw badRequest(`A path has at most ${MAX_SEGMENTS} segments`, field);
  const names = new Set<string>();
  return parts.map((part) => {
    const open = part.indexOf('{');
    const close = part.indexOf('}');
    if (open === -1 && close === -1) return { prefix: part, suffix: '' };
    if (open === -1 || close < open || part.indexOf('{', open + 1) !== -1 || part.indexOf('}', close + 1) !== -1) {
      throw badRequest(`Segment "${part}" has unbalanced braces or more than one parameter`, field);
    }
    const name = part.slice(open + 1, close);
    if (!PARAM_NAME.test(name))
      throw badRequest(`Parameter name "${name}" is not allowed (letters, digits, _ . -)`, field);
    if (names.has(name)) throw badRequest(`Parameter "${name}" appears twice`, field);
    names.add(name);
    return { prefix: part.slice(0, open), param: name, suffix: part.slice(close + 1) };
  });
}

export function templateParams(template: string): string[] {
  return parseTemplate(template).flatMap((s) => (s.param ? [s.param] : []));
}

/** The template with every `{name}` replaced by its URL-encoded value; a missing or dot-only value is a 400. */
export function fillTemplate(template: string, params: Record<string, string> = {}): string {
  return (
    '/' +
    parseTemplate(template)
      .map((s) => {
        if (!s.param) return s.prefix;
        const value = Object.hasOwn(params, s.param) ? params[s.param] : undefined;
        if (typeof value !== 'string' || value === '')
          throw badRequest(`Parameter "${s.param}" is missing`, `params.${s.param}`);
        // `.` survives encoding: a segment that comes out as `.` or `..` (also `{name}.` with `.`) would
        // climb out of the endpoint's base path.
        const segment = s.prefix + encodeURIComponent(value) + s.suffix;
        if (segment === '.' || segment === '..')
          throw badRequest(`Parameter "${s.param}" may not make the segment . or ..`, `params.${s.param}`);
        return segment;
      })
      .join('/')
  );
}

/** The parameter values when a concrete path matches the template, else undefined. */
export function matchTemplate(template: string, path: string): Record<string, string> | undefined {
  const segments = parseTemplate(template);
  const parts = path.split('/').slice(1);
  if (!path.startsWith('/') || parts.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    const part = parts[i]!;
    if (!s.param) {
      if (part !== s.prefix) return undefined;
      continue;
    }
    if (part.length <= s.prefix.length + s.suffix.length || !part.startsWith(s.prefix) || !part.endsWith(s.suffix))
      return undefined;
    let value: string;
    try {
      value = decodeURIComponent(part.slice(s.prefix.length, part.length - s.suffix.length));
    } catch {
      return undefined;
    }
    params[s.param] = value;
  }
  return params;
}

/** More literal segments first, so `/users/me` wins over `/users/{id}`. */
export function specificity(template: string): number {
  return parseTemplate(template).filter((s) => !s.param).length;
}
