import { badRequest, isUuid } from '../../../kernel/index.ts';
import type { BundleAsset, BundleManifest } from '../ports.ts';

export const MANIFEST_NAME = 'bundle.json';
export const MANIFEST_VERSION = 2;
/** Versions import reads: 1 (sections without asset files) and 2 (the current export). */
const READABLE_VERSIONS = new Set([1, 2]);
const ARRAY_SECTIONS = [
  'pages',
  'websiteTemplates',
  'websitePaths',
  'themes',
  'snippets',
  'dataClasses',
  'dataComponents',
  'dataObjects',
  'assets',
] as const;
/** `assets/0001-<name>`: a four-digit (or longer) number, a dash, a plain file name. */
export const ASSET_FILE = /^assets\/\d{4,}-[^/]+$/;
const MAX_DEPTH = 200;

const invalid = (message: string, field = 'manifest') => badRequest(message, field, 'INVALID_MANIFEST');

/** `assets/0001-<name>` for the n-th asset (1-based); the name is made safe for every file system. */
export function assetEntryName(n: number, filename: string): string {
  const safe =
    filename
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^\.+/, '_')
      .slice(0, 120) || 'file';
  return `assets/${String(n).padStart(4, '0')}-${safe}`;
}

/** Text PostgreSQL cannot store (NUL, a lone UTF-16 surrogate); a manifest read from a zip has not met the kernel's body checks. */
const unstorable = (text: string) => text.includes('\u0000') || !text.isWellFormed();

/**
 * Nesting depth of a parsed value, walked iteratively; past `cap` it stops counting. Also the
 * dotted path of the first text or key that cannot be stored, if any.
 */
function inspect(value: unknown, cap: number): { depth: number; badText?: string } {
  let deepest = 0;
  const stack: Array<[unknown, number, string]> = [[value, 1, '']];
  while (stack.length) {
    const [v, d, at] = stack.pop() as [unknown, number, string];
    if (d > deepest) deepest = d;
    if (deepest > cap) return { depth: deepest };
    if (v && typeof v === 'object')
      for (const [k, c] of Object.entries(v)) {
        const path = at ? `${at}.${k}` : k;
        if (unstorable(k) || (typeof c === 'string' && unstorable(c))) return { depth: deepest, badText: path };
        if (c && typeof c === 'object') stack.push([c, d + 1, path]);
      }
  }
  return { depth: deepest };
}

/** Parses and checks a manifest's shape: malformed JSON, a wrong version or a wrong section is a 400. */
export function parseManifest(text: string): BundleManifest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw invalid(`The manifest is not valid JSON (${(err as Error).message})`);
  }
  return checkManifest(parsed);
}

export function checkManifest(parsed: unknown): BundleManifest {
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw invalid('The manifest must be a JSON object');
  const m = parsed as Record<string, unknown>;
  if (!READABLE_VERSIONS.has(m.version as number))
    throw badRequest(
      `Manifest version ${JSON.stringify(m.version ?? null)} is not supported; import reads versions 1 and 2`,
      'version',
      'UNSUPPORTED_MANIFEST_VERSION',
    );
  const { depth, badText } = inspect(m, MAX_DEPTH);
  if (depth > MAX_DEPTH) throw invalid(`The manifest nests deeper than ${MAX_DEPTH} levels`);
  if (badText)
    throw badRequest(
      `${badText.slice(0, 200)} holds characters that cannot be stored (NUL or a lone surrogate)`,
      badText.slice(0, 200),
      'INVALID_TEXT',
    );
  const site = m.website;
  if (!site || typeof site !== 'object' || Array.isArray(site)) throw invalid('The manifest has no website', 'website');
  const w = site as Record<string, unknown>;
  if (typeof w.name !== 'string' || !w.name) throw invalid('website.name must be a text', 'website.name');
  if (typeof w.rootPath !== 'string' || !/^\/[^/]/.test(w.rootPath))
    throw invalid('website.rootPath must be a path such as /shop', 'website.rootPath');
  for (const key of ARRAY_SECTIONS) {
    if (m[key] === undefined) continue;
    if (!Array.isArray(m[key])) throw invalid(`${key} must be a list`, key);
    (m[key] as unknown[]).forEach((item, i) => {
      if (!item || typeof item !== 'object' || Array.isArray(item))
        throw invalid(`${key}[${i}] must be an object`, `${key}.${i}`);
    });
  }
  const seen = new Set<string>();
  // One library holds one file per path: two assets at one path would store one and leave the other's references unmapped.
  const paths = new Set<string>();
  ((m.assets as BundleAsset[] | undefined) ?? []).forEach((a, i) => {
    const field = `assets.${i}`;
    if (typeof a.id !== 'string' || !a.id) throw invalid(`${field}.id must be a text`, field);
    if (seen.has(a.id)) throw invalid(`${field}: the asset id ${a.id} appears twice`, field);
    seen.add(a.id);
    if (typeof a.path !== 'string' || !a.path || a.path.length > 1024)
      throw invalid(`${field}.path must be a text`, field);
    if (paths.has(a.path)) throw invalid(`${field}: the asset path ${a.path} appears twice`, `${field}.path`);
    paths.add(a.path);
    if (a.file !== undefined && (typeof a.file !== 'string' || !ASSET_FILE.test(a.file)))
      throw invalid(`${field}.file must be an entry assets/0001-<name>`, field);
    if (a.visibility !== undefined && a.visibility !== 'public' && a.visibility !== 'private')
      throw invalid(`${field}.visibility must be public or private`, field);
  });
  return m as BundleManifest;
}

/** A caller's `assetMap` `{ '<old asset id>': { id, pimcorePath } }`, checked. */
export type AssetMap = Map<string, { id: string; pimcorePath: string }>;

export function parseAssetMap(raw: unknown): AssetMap {
  const out: AssetMap = new Map();
  if (raw === undefined || raw === null) return out;
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw badRequest('assetMap is not valid JSON', 'assetMap', 'INVALID_ASSET_MAP');
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw badRequest('assetMap must be an object keyed by old asset id', 'assetMap', 'INVALID_ASSET_MAP');
  for (const [old, target] of Object.entries(value)) {
    const t = target as { id?: unknown; pimcorePath?: unknown } | null;
    if (!t || typeof t !== 'object' || typeof t.id !== 'string' || !isUuid(t.id) || typeof t.pimcorePath !== 'string')
      throw badRequest(
        `assetMap.${old} must be { id: <asset id>, pimcorePath: <library path> }`,
        `assetMap.${old}`,
        'INVALID_ASSET_MAP',
      );
    out.set(old, { id: t.id, pimcorePath: t.pimcorePath });
  }
  if (out.size > 100_000) throw badRequest('assetMap holds more than 100000 entries', 'assetMap', 'INVALID_ASSET_MAP');
  return out;
}
