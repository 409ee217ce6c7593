import { HttpError, type Tx, badRequest, conflict } from '../../../kernel/index.ts';
import type { ClassRow, FieldDef, ObjectRow } from '../model.ts';
import { classNamesOfObjects } from '../store/object-registry.ts';
import { claimGroupValues, type UniqueEntry } from '../store/unique-store.ts';
import { ownValue, uniqueValueOf, type RelationRef } from './attributes.ts';
import { hasLoneSurrogate } from './well-formed.ts';

const LOCALE = /^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/;
const KEY = /^[^/\s]{1,200}$/;

export function checkLocale(locale: string, field = 'locale'): string {
  if (!LOCALE.test(locale)) throw badRequest('locale must look like en, de or pt-BR', field);
  return locale;
}

/** Keys are path segments: no slash or whitespace, at most 200 characters. */
export function checkKey(key: string | null | undefined, field = 'key'): string | null {
  if (key === undefined || key === null) return null;
  if (!KEY.test(key)) throw badRequest('key must be 1-200 characters without slashes or whitespace', field);
  if (hasLoneSurrogate(key))
    throw badRequest('key contains a lone UTF-16 surrogate, which is not valid text', field, 'INVALID_TEXT');
  return key;
}

/**
 * Tree paths: a root object's path is `/<segment>`, a child's is `<parent path>/<segment>`, where the
 * segment is the key, or the id for an object without key. Parents are objects of the same class;
 * an object cannot sit below itself.
 */
export function pathOf(parent: Pick<ObjectRow, 'path'> | null, key: string | null, id: string): string {
  const segment = key ?? id;
  return parent ? `${parent.path}/${segment}` : `/${segment}`;
}

export function isSameOrBelow(path: string, ancestorPath: string): boolean {
  return path === ancestorPath || path.startsWith(`${ancestorPath}/`);
}

/** The unique claims of a row: localized fields claim within the locale, shared ones for the group. */
export function uniqueEntriesOf(cls: ClassRow, attributes: Record<string, unknown>, locale: string): UniqueEntry[] {
  const out: UniqueEntry[] = [];
  for (const field of cls.fields) {
    if (!field.unique) continue;
    const value = uniqueValueOf(ownValue(attributes, field.name));
    if (value !== null) out.push({ field: field.name, scope: field.localized ? locale : '', value });
  }
  return out;
}

export const uniqueViolation = (field: string) => conflict(`${field} is already in use`, 'UNIQUE_VIOLATION', field);

/** Claims a row's unique values (and the group's shared ones) or answers 409 UNIQUE_VIOLATION. */
export async function claimUniqueValues(
  trx: Tx,
  cls: ClassRow,
  row: Pick<ObjectRow, 'translation_group_id' | 'locale'>,
  attributes: Record<string, unknown>,
): Promise<void> {
  if (!cls.fields.some((f) => f.unique)) return;
  const lost = await claimGroupValues(
    trx,
    cls.id,
    row.translation_group_id,
    [row.locale, ''],
    uniqueEntriesOf(cls, attributes, row.locale),
  );
  if (lost) throw uniqueViolation(lost);
}

/** The class name of each referenced object that exists; one query for all relation values. */
export async function relationTargets(trx: Tx, refs: readonly RelationRef[]): Promise<Map<string, string>> {
  return classNamesOfObjects(
    trx,
    refs.map((r) => r.id),
  );
}

/** Relation values must name existing objects of the field's target class. */
export async function checkRelations(trx: Tx, refs: readonly RelationRef[]): Promise<RelationRef | null> {
  const classOf = await relationTargets(trx, refs);
  return refs.find((r) => classOf.get(r.id) !== r.className) ?? null;
}

export async function checkRelationsOr400(trx: Tx, refs: readonly RelationRef[]): Promise<void> {
  const bad = await checkRelations(trx, refs);
  if (bad) throw badRequest(`${bad.field}: no object of class ${bad.className} has id ${bad.id}`, bad.field);
}

/** Fields shared by the rows of a translation group (not localized). */
export const sharedFields = (cls: ClassRow): FieldDef[] => cls.fields.filter((f) => !f.localized);

/** Attribute names whose values differ (JSON comparison), in class field order. */
export function changedAttributes(
  fields: readonly FieldDef[],
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): string[] {
  return fields
    .filter((f) => JSON.stringify(ownValue(before, f.name) ?? null) !== JSON.stringify(ownValue(after, f.name) ?? null))
    .map((f) => f.name);
}

/** `attributes` of `target` with the shared fields copied from `source` (absent values removed). */
export function withSharedFrom(
  cls: ClassRow,
  target: Record<string, unknown>,
  source: Record<string, unknown>,
): Record<string, unknown> {
  const out = { ...target };
  for (const field of sharedFields(cls)) {
    const value = ownValue(source, field.name);
    if (value === undefined) delete out[field.name];
    else out[field.name] = value;
  }
  return out;
}

/**
 * Refuses attributes whose JSON is larger than the plugin's DATA_MAX_OBJECT_BYTES (413), so no stored
 * object can make a page or a request hold more memory than the caps allow.
 */
export function assertObjectSize(attributes: Record<string, unknown>, maxBytes: number): void {
  const bytes = Buffer.byteLength(JSON.stringify(attributes), 'utf8');
  if (bytes > maxBytes) {
    throw new HttpError(
      413,
      'OBJECT_TOO_LARGE',
      `attributes take ${bytes} bytes; an object may hold at most ${maxBytes}`,
      'attributes',
    );
  }
}
