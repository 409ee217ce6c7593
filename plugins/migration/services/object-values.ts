import type { PimcoreField } from './class-files.ts';
import { maybeUnserialize, type PhpData } from './php-unserialize.ts';
import type { Cell, CellRow, PimcoreRelation } from '../store/pimcore-reader.ts';
import type { TargetField } from './type-mapping.ts';

/** A field to import: how Pimcore stores it and what it became here. */
export interface ImportField {
  source: PimcoreField;
  target: TargetField;
}

/** References a value needs resolved through the id map before it is written. */
export interface Lookups {
  asset(pimcoreId: number): string | undefined;
  object(pimcoreId: number): string | undefined;
}

/** What a value met that the import reports or resolves later. */
export interface ValueNotes {
  /** Asset ids the value named that have no library file (missing in assetsPath). */
  missingAssets: number[];
  /** Objects named that are not imported yet: the relations pass fills the field in. */
  pendingObjects: number[];
}

const text = (v: Cell): string | undefined => {
  if (v === null || v === undefined) return undefined;
  const s = Buffer.isBuffer(v) ? v.toString('utf8') : String(v);
  return s === '' ? undefined : s;
};
const num = (v: Cell): number | undefined => {
  const s = text(v);
  if (s === undefined) return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
};
/** Pimcore's list columns: `,a,b,`. */
const list = (v: Cell): string[] | undefined => {
  const s = text(v);
  if (s === undefined) return undefined;
  const items = s.split(',').filter((x) => x !== '');
  return items.length ? items : undefined;
};
const pad = (n: number) => String(n).padStart(2, '0');
function dateOf(v: Cell): Date | undefined {
  const s = text(v);
  if (s === undefined) return undefined;
  if (/^-?\d+$/.test(s)) return new Date(Number(s) * 1000);
  const ms = Date.parse(s.includes('T') || s.length <= 10 ? s : `${s.replace(' ', 'T')}Z`);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}
/** A slug of this product's form: the last path segment, lowercase, hyphens for anything else. */
function slugOf(s: string): string | undefined {
  const last = s.split('/').filter(Boolean).pop() ?? '';
  const slug = last
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || undefined;
}
/** A serialized value as JSON data: `__class` names dropped (they are Pimcore's PHP classes). */
function jsonOf(v: Cell): PhpData | undefined {
  const s = text(v);
  if (s === undefined) return undefined;
  const strip = (d: PhpData): PhpData => {
    if (Array.isArray(d)) return d.map(strip);
    if (d && typeof d === 'object') {
      const out: Record<string, PhpData> = {};
      for (const [k, val] of Object.entries(d)) if (k !== '__class') out[k] = strip(val);
      return out;
    }
    return d;
  };
  return strip(maybeUnserialize(s));
}

/**
 * The value of one field from a Pimcore row (the store row, or a language's localized row) and the
 * field's relations, in the form the data field takes. Undefined: no value (nothing is written).
 */
export function fieldValue(
  field: ImportField,
  row: CellRow,
  relations: readonly PimcoreRelation[],
  slugs: ReadonlyMap<string, string> | undefined,
  lookups: Lookups,
  notes: ValueNotes,
): unknown {
  const { name, pimcoreType } = field.source;
  const t = field.target;
  const col = (suffix = '') => row[`${name}${suffix}`] ?? null;
  const asset = (id: number | undefined) => {
    if (id === undefined || id <= 0) return undefined;
    const mapped = lookups.asset(id);
    if (!mapped) notes.missingAssets.push(id);
    return mapped;
  };
  switch (pimcoreType) {
    case 'numeric':
    case 'slider':
      return num(col());
    case 'checkbox':
    case 'newsletterActive':
    case 'newsletterConfirmed': {
      const n = num(col());
      return n === undefined ? undefined : n === 1;
    }
    case 'booleanSelect': {
      const n = num(col());
      return n === 1 ? true : n === -1 ? false : undefined;
    }
    case 'date': {
      const d = dateOf(col());
      return d ? `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` : undefined;
    }
    case 'datetime':
      return dateOf(col())?.toISOString();
    case 'multiselect':
    case 'countrymultiselect':
    case 'languagemultiselect':
      return list(col());
    case 'urlSlug': {
      const s = slugs?.get(name);
      return s ? slugOf(s) : undefined;
    }
    case 'slug': {
      const s = text(col());
      return s ? slugOf(s) : undefined;
    }
    case 'image':
      return asset(num(col()));
    case 'hotspotimage':
      return asset(num(col('__image')));
    case 'imageGallery': {
      const ids = list(col('__images'))?.map(Number) ?? [];
      const out = ids.map((id) => asset(id)).filter((v): v is string => v !== undefined);
      return out.length ? out : undefined;
    }
    case 'geopoint': {
      const latitude = num(col('__latitude'));
      const longitude = num(col('__longitude'));
      return latitude === undefined || longitude === undefined ? undefined : { latitude, longitude };
    }
    case 'quantityValue':
    case 'inputQuantityValue': {
      const value = pimcoreType === 'quantityValue' ? num(col('__value')) : text(col('__value'));
      const unit = text(col('__unit'));
      return value === undefined ? undefined : { value, unit: unit ?? null };
    }
    case 'dateRange': {
      const start = dateOf(col('__start'))?.toISOString();
      const end = dateOf(col('__end'))?.toISOString();
      return start || end ? { start: start ?? null, end: end ?? null } : undefined;
    }
    case 'rgbaColor': {
      const rgb = text(col('__rgb'));
      const a = text(col('__a'));
      return rgb ? `#${rgb}${a ?? ''}` : undefined;
    }
    case 'manyToOneRelation':
    case 'manyToManyRelation':
    case 'manyToManyObjectRelation':
    case 'advancedManyToManyRelation':
    case 'advancedManyToManyObjectRelation':
      return relationValue(t, pimcoreType === 'manyToOneRelation', relations, lookups, notes, asset);
    case 'fieldcollections':
    case 'objectbricks':
    case 'encryptedField':
      // Stored in tables of their own, or not readable: not imported (the class import says so).
      return undefined;
    default:
      break;
  }
  if (t.type === 'json') return jsonOf(col());
  if (t.type === 'number') return num(col());
  if (t.type === 'boolean') {
    const n = num(col());
    return n === undefined ? undefined : n === 1;
  }
  if (t.type === 'array') return list(col());
  return text(col());
}

function relationValue(
  t: TargetField,
  single: boolean,
  relations: readonly PimcoreRelation[],
  lookups: Lookups,
  notes: ValueNotes,
  asset: (id: number) => string | undefined,
): unknown {
  if (relations.length === 0) return undefined;
  const many = t.type === 'array';
  const kind = many ? t.of : t.type;
  if (kind === 'relation') {
    const ids: string[] = [];
    for (const r of relations) {
      if (r.type !== 'object') continue;
      const mapped = lookups.object(r.destId);
      if (mapped) ids.push(mapped);
      else notes.pendingObjects.push(r.destId);
    }
    return many ? (ids.length ? ids : undefined) : ids[0];
  }
  if (kind === 'asset') {
    const ids = relations
      .filter((r) => r.type === 'asset')
      .map((r) => asset(r.destId))
      .filter((v): v is string => v !== undefined);
    return many ? (ids.length ? ids : undefined) : ids[0];
  }
  // Mixed targets: `{ type, id }` references; objects and assets by their id here when imported.
  const refs = relations.map((r) => {
    const here =
      r.type === 'object' ? lookups.object(r.destId) : r.type === 'asset' ? lookups.asset(r.destId) : undefined;
    if (r.type === 'object' && !here) notes.pendingObjects.push(r.destId);
    return { type: r.type, id: here ?? null, pimcoreId: r.destId };
  });
  return single ? refs[0] : refs;
}

/** Asset ids a row names (images, galleries, asset relations), to import before the row is written. */
export function assetIdsOf(
  fields: readonly ImportField[],
  row: CellRow,
  relations: readonly PimcoreRelation[],
): number[] {
  const out: number[] = [];
  for (const f of fields) {
    const name = f.source.name;
    if (f.source.pimcoreType === 'image') out.push(Number(row[name] ?? 0));
    if (f.source.pimcoreType === 'hotspotimage') out.push(Number(row[`${name}__image`] ?? 0));
    if (f.source.pimcoreType === 'imageGallery')
      for (const id of String(row[`${name}__images`] ?? '').split(',')) if (id) out.push(Number(id));
  }
  for (const r of relations) if (r.type === 'asset') out.push(r.destId);
  return out.filter((id) => Number.isInteger(id) && id > 0);
}
