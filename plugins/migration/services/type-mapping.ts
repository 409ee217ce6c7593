import type { PhpValue } from './php-literal.ts';
import type { PimcoreField } from './class-files.ts';

/** A field definition as the data plugin takes it (`POST /data-classes` `fields[]`). */
export interface TargetField {
  name: string;
  type: string;
  label?: string;
  required?: boolean;
  localized?: boolean;
  options?: string[];
  relation?: { class: string };
  of?: string;
}

/** One row of the preview's mapping table; `field` is absent for a skipped field. */
export interface MappedField {
  name: string;
  pimcoreType: string;
  /** The data field type, or `skipped` (nothing is created for it). */
  type: string;
  translated: boolean;
  note?: string;
  field?: TargetField;
}

type Mapper = (f: PimcoreField, known: ReadonlySet<string>) => Omit<MappedField, 'name' | 'pimcoreType' | 'translated'>;

const plain =
  (type: string, note?: string, extra: Partial<TargetField> = {}): Mapper =>
  (f) => ({ type, ...(note ? { note } : {}), field: { ...base(f, type), ...extra } });

function base(f: PimcoreField, type: string): TargetField {
  return {
    name: f.name,
    type,
    ...(f.title ? { label: f.title.slice(0, 200) } : {}),
    ...(f.mandatory ? { required: true } : {}),
    ...(f.translated ? { localized: true } : {}),
  };
}

/** Option values of a select / multiselect (`options: [{ key, value }]`), distinct and non-empty. */
function optionsOf(f: PimcoreField): string[] {
  const raw = f.settings.options;
  if (!Array.isArray(raw)) return [];
  const values = raw
    .map((o: PhpValue) =>
      typeof o === 'object' && o !== null && !Array.isArray(o) ? (o as Record<string, PhpValue>).value : undefined,
    )
    .filter((v): v is string | number => (typeof v === 'string' && v.length > 0) || typeof v === 'number')
    .map((v) => String(v).slice(0, 200));
  return [...new Set(values)];
}

/** Target class names of a relation (`classes: [{ classes: 'Category' }]`). */
export function targetClasses(f: PimcoreField): string[] {
  const raw = f.settings.classes;
  if (!Array.isArray(raw)) return [];
  return raw
    .map((c) =>
      typeof c === 'object' && c !== null && !Array.isArray(c) ? (c as Record<string, PhpValue>).classes : c,
    )
    .filter((c): c is string => typeof c === 'string' && c.length > 0);
}

const select =
  (many: boolean): Mapper =>
  (f) => {
    const options = optionsOf(f);
    if (options.length === 0)
      return {
        type: many ? 'array' : 'text',
        note: 'options come from a provider or are empty: kept as text',
        field: { ...base(f, many ? 'array' : 'text'), ...(many ? { of: 'text' } : {}) },
      };
    return many
      ? { type: 'array', note: 'array of select', field: { ...base(f, 'array'), of: 'select', options } }
      : { type: 'select', field: { ...base(f, 'select'), options } };
  };

/**
 * A relation: objects of exactly one class become `relation` (an array of them for many), assets only
 * become `asset`; mixed targets (several classes, documents, assets and objects) are kept as `json`
 * references `{ type, id }`.
 */
const relation =
  (many: boolean, objectsOnly: boolean, advanced = false): Mapper =>
  (f, known) => {
    const classes = targetClasses(f);
    const objects = objectsOnly || f.settings.objectsAllowed === true;
    const assets = !objectsOnly && f.settings.assetsAllowed === true;
    const documents = !objectsOnly && f.settings.documentsAllowed === true;
    const metadata = advanced ? '; the relation metadata columns are not kept' : '';
    if (objects && !assets && !documents && classes.length === 1 && known.has(classes[0])) {
      const rel = { relation: { class: classes[0] } };
      return many
        ? {
            type: 'array',
            note: `array of relation to ${classes[0]}${metadata}`,
            field: { ...base(f, 'array'), of: 'relation', ...rel },
          }
        : {
            type: 'relation',
            ...(metadata ? { note: metadata.slice(2) } : {}),
            field: { ...base(f, 'relation'), ...rel },
          };
    }
    if (assets && !objects && !documents)
      return many
        ? { type: 'array', note: `array of asset${metadata}`, field: { ...base(f, 'array'), of: 'asset' } }
        : { type: 'asset', field: base(f, 'asset') };
    const why =
      classes.length === 1 && objects && !assets && !documents
        ? `target class ${classes[0]} is neither imported nor present`
        : 'mixed or open relation targets';
    return { type: 'json', note: `${why}: kept as { type, id } references${metadata}`, field: base(f, 'json') };
  };

const skipped =
  (note: string): Mapper =>
  () => ({ type: 'skipped', note });

/**
 * Pimcore 11 data types and what they become (the README's table is this map). A type not listed
 * becomes `json` with a warning.
 */
export const TYPE_MAP: ReadonlyMap<string, Mapper> = new Map<string, Mapper>([
  ['input', plain('text')],
  ['email', plain('text')],
  ['firstname', plain('text')],
  ['lastname', plain('text')],
  ['textarea', plain('markdown', 'plain text, kept as it is')],
  ['wysiwyg', plain('richtext', 'HTML, cleaned by the rich text rules on import')],
  ['numeric', plain('number')],
  ['slider', plain('number')],
  ['checkbox', plain('boolean')],
  ['booleanSelect', plain('boolean', 'the empty choice becomes no value')],
  ['date', plain('date')],
  ['datetime', plain('datetime')],
  ['time', plain('text', 'HH:MM as text')],
  ['select', select(false)],
  ['multiselect', select(true)],
  ['gender', plain('select', undefined, { options: ['male', 'female', 'other'] })],
  ['country', plain('text', 'ISO country code')],
  ['language', plain('text', 'locale code')],
  ['countrymultiselect', plain('array', 'ISO country codes', { of: 'text' })],
  ['languagemultiselect', plain('array', 'locale codes', { of: 'text' })],
  ['urlSlug', plain('slug', 'the slug of the default site')],
  ['slug', plain('slug')],
  ['link', plain('json', 'a link object { text, path, target, ... }')],
  ['externalImage', plain('text', 'the image URL')],
  ['image', plain('asset')],
  ['hotspotimage', plain('asset', 'hotspots, markers and crop are not kept')],
  ['imageGallery', plain('array', 'array of asset; hotspots are not kept', { of: 'asset' })],
  ['video', plain('json', 'video reference { type, data, poster, title }')],
  ['manyToOneRelation', relation(false, false)],
  ['manyToManyRelation', relation(true, false)],
  ['manyToManyObjectRelation', relation(true, true)],
  ['advancedManyToManyRelation', relation(true, false, true)],
  ['advancedManyToManyObjectRelation', relation(true, true, true)],
  ['reverseObjectRelation', skipped('computed from the other class’s relation')],
  ['calculatedValue', skipped('computed by PHP code in Pimcore')],
  ['password', skipped('password hashes are never imported')],
  [
    'fieldcollections',
    plain('json', 'items { type, ...fields }; extract-components turns the collections into components'),
  ],
  ['objectbricks', plain('json', 'bricks by name; extract-components turns them into components')],
  ['block', plain('json', 'a list of items holding the block’s fields')],
  ['table', plain('json', 'rows of cells')],
  ['structuredTable', plain('json', 'rows by column')],
  ['quantityValue', plain('json', '{ value, unit }')],
  ['inputQuantityValue', plain('json', '{ value, unit }')],
  ['quantityValueRange', plain('json', '{ minimum, maximum, unit }')],
  ['rgbaColor', plain('text', '#rrggbbaa')],
  ['geopoint', plain('json', '{ latitude, longitude }')],
  ['geobounds', plain('json', '{ northEast, southWest }')],
  ['geopolygon', plain('json', 'points { latitude, longitude }')],
  ['geopolyline', plain('json', 'points { latitude, longitude }')],
  ['dateRange', plain('json', '{ start, end }')],
  ['classificationstore', plain('json', 'groups and keys by language')],
  ['consent', plain('json', '{ consent, noteId }')],
  ['newsletterActive', plain('boolean')],
  ['newsletterConfirmed', plain('boolean')],
  ['user', plain('text', 'Pimcore user id')],
  ['encryptedField', plain('json', 'stored encrypted by Pimcore: the value is not readable and not imported')],
]);

/** The mapping of one field; `known`: class names a relation may point at (existing or imported too). */
export function mapField(f: PimcoreField, known: ReadonlySet<string>): { mapped: MappedField; warning?: string } {
  const mapper = TYPE_MAP.get(f.pimcoreType);
  const head = { name: f.name, pimcoreType: f.pimcoreType, translated: f.translated };
  if (!mapper)
    return {
      mapped: { ...head, type: 'json', note: 'unknown Pimcore type: kept as JSON', field: base(f, 'json') },
      warning: `field ${f.name}: unknown Pimcore type "${f.pimcoreType}" becomes json`,
    };
  return { mapped: { ...head, ...mapper(f, known) } };
}
