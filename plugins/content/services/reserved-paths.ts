import { EDGE_TABLE } from '../../../edge/routes.ts';

/** Paths the host itself uses, beyond the edge table's rows. */
const HOST_PATHS = ['api', 'auth', 'assets', 'login', 'settings', 'cms-one', 'editor'];

/**
 * First path segments a website root may not take: the host's own names plus every top-level path
 * of the edge table, read from `edge/routes.ts` so a new row is reserved without a change here.
 * `/data-*` rows reserve every segment with that prefix.
 */
function reservedFromEdge(): { exact: Set<string>; prefixes: string[] } {
  const exact = new Set(HOST_PATHS);
  const prefixes: string[] = [];
  for (const row of EDGE_TABLE) {
    for (const p of row.paths) {
      const first = p.split('/').filter(Boolean)[0];
      if (!first) continue;
      if (first.endsWith('*')) prefixes.push(first.slice(0, -1));
      else exact.add(first);
    }
  }
  return { exact, prefixes };
}

const RESERVED = reservedFromEdge();

/** True when `segment` (without slashes) is a path the host or the proxy uses. */
export function isReservedRoot(segment: string): boolean {
  const s = segment.toLowerCase();
  return RESERVED.exact.has(s) || RESERVED.prefixes.some((prefix) => s.startsWith(prefix));
}
