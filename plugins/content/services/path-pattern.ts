import { badRequest } from '../../../kernel/index.ts';

const SEGMENT = /^([A-Za-z0-9._~-]+|:[A-Za-z][A-Za-z0-9_]{0,62})$/;

/** A page path: `/`, static `/about/team`, or dynamic `/blog/:slug` (parameters bound to a data class). */
export function parsePagePath(path: string, field = 'path'): { dynamic: boolean; params: string[] } {
  if (path === '/') return { dynamic: false, params: [] };
  if (!path.startsWith('/') || path.endsWith('/')) throw badRequest('Path must start with / and not end with /', field);
  const segments = path.slice(1).split('/');
  const params: string[] = [];
  for (const s of segments) {
    if (!SEGMENT.test(s))
      throw badRequest(`Path segment "${s.slice(0, 64)}" is not allowed (letters, digits, . _ ~ - or :param)`, field);
    if (s.startsWith(':')) params.push(s.slice(1));
  }
  if (new Set(params).size !== params.length) throw badRequest('Path parameters must have distinct names', field);
  return { dynamic: params.length > 0, params };
}

/** Values of a dynamic pattern's parameters for a concrete path, or null when it does not match. */
export function matchPattern(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/');
  const s = path.split('/');
  if (p.length !== s.length) return null;
  const params: Record<string, string> = Object.create(null);
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(':')) {
      if (!s[i]) return null;
      params[p[i].slice(1)] = s[i];
    } else if (p[i] !== s[i]) return null;
  }
  return params;
}
