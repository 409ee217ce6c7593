import { UserPatternError, badRequest, compileUserPattern } from '../../../kernel/index.ts';
import { FIELD_TYPES, type FieldDef, type FieldType } from '../model.ts';

/** Identifier-like names for classes, components and fields: they end up in index names and paths. */
export const NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;

/** Longest `text` value: keeps every indexed value well under Postgres' btree entry limit. */
export const TEXT_MAX_LENGTH = 600;
/** Longest slug, select option, asset id. */
export const SHORT_MAX_LENGTH = 200;

/** Types that get a per-class expression index and may be filtered, sorted or marked unique. */
export const INDEXED_TYPES: ReadonlySet<FieldType> = new Set([
  'text',
  'slug',
  'number',
  'boolean',
  'date',
  'datetime',
  'select',
  'asset',
  'relation',
]);
const UNIQUE_TYPES: ReadonlySet<FieldType> = new Set([
  'text',
  'slug',
  'number',
  'date',
  'datetime',
  'select',
  'asset',
  'relation',
]);
const ARRAY_ITEM_TYPES: ReadonlySet<FieldType> = new Set([
  'text',
  'number',
  'boolean',
  'date',
  'datetime',
  'slug',
  'select',
  'asset',
  'relation',
  'json',
  'component',
]);
const KNOWN_KEYS = new Set([
  'name',
  'type',
  'label',
  'required',
  'unique',
  'localized',
  'options',
  'validation',
  'relation',
  'component',
  'of',
]);
const VALIDATION_KEYS = new Set(['min', 'max', 'minLength', 'maxLength', 'pattern']);

export interface FieldDefContext {
  /** Names of existing components (component fields must point at one). */
  componentNames: ReadonlySet<string>;
  /** Names of existing classes plus the class being defined (relation targets). */
  classNames: ReadonlySet<string>;
  /** Component definitions may not nest components or declare unique fields. */
  insideComponent?: boolean;
}

/**
 * Checks a field list and returns it normalized (defaults made explicit, unknown keys refused). The
 * first problem answers 400 naming the field's position, e.g. `fields.2.type`.
 */
export function normalizeFieldDefs(input: unknown, ctx: FieldDefContext, base = 'fields'): FieldDef[] {
  if (!Array.isArray(input)) throw badRequest(`${base} must be an array`, base);
  const seen = new Set<string>();
  return input.map((raw, i) => {
    const at = `${base}.${i}`;
    const def = normalizeOne(raw, at, ctx);
    if (seen.has(def.name)) throw badRequest(`Field name "${def.name}" is used twice`, `${at}.name`);
    seen.add(def.name);
    return def;
  });
}

function normalizeOne(raw: unknown, at: string, ctx: FieldDefContext): FieldDef {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw badRequest('A field definition must be an object', at);
  const f = raw as Record<string, unknown>;
  for (const key of Object.keys(f))
    if (!KNOWN_KEYS.has(key)) throw badRequest(`Unknown field option "${key}"`, `${at}.${key}`);
  if (typeof f.name !== 'string' || !NAME_PATTERN.test(f.name)) {
    throw badRequest(
      'Field name must start with a letter and hold only letters, digits and _ (at most 63)',
      `${at}.name`,
    );
  }
  if (typeof f.type !== 'string' || !(FIELD_TYPES as readonly string[]).includes(f.type)) {
    throw badRequest(`Unknown field type; use one of ${FIELD_TYPES.join(', ')}`, `${at}.type`);
  }
  const type = f.type as FieldType;
  const def: FieldDef = {
    name: f.name,
    type,
    required: bool(f.required, `${at}.required`),
    unique: bool(f.unique, `${at}.unique`),
    localized: bool(f.localized, `${at}.localized`),
  };
  if (f.label !== undefined) {
    if (typeof f.label !== 'string' || f.label.length > 200)
      throw badRequest('label must be a string of at most 200 characters', `${at}.label`);
    def.label = f.label;
  }
  if (def.unique && (!UNIQUE_TYPES.has(type) || ctx.insideComponent)) {
    throw badRequest(
      `A ${type} field${ctx.insideComponent ? ' inside a component' : ''} cannot be unique`,
      `${at}.unique`,
    );
  }
  const itemType = type === 'array' ? f.of : undefined;
  if (
    type === 'array' &&
    f.of !== undefined &&
    (typeof f.of !== 'string' || !ARRAY_ITEM_TYPES.has(f.of as FieldType))
  ) {
    throw badRequest(`Array item type must be one of ${[...ARRAY_ITEM_TYPES].join(', ')}`, `${at}.of`);
  }
  if (type !== 'array' && f.of !== undefined) throw badRequest('"of" is only for array fields', `${at}.of`);
  if (itemType !== undefined) def.of = itemType as FieldType;
  const effective = (def.of ?? type) as FieldType;

  if (effective === 'select') {
    const options = f.options;
    if (
      !Array.isArray(options) ||
      options.length === 0 ||
      options.some((o) => typeof o !== 'string' || o.length === 0 || o.length > SHORT_MAX_LENGTH) ||
      new Set(options).size !== options.length
    ) {
      throw badRequest('A select field needs "options": distinct non-empty strings', `${at}.options`);
    }
    def.options = options as string[];
  } else if (f.options !== undefined) throw badRequest('"options" is only for select fields', `${at}.options`);

  if (effective === 'relation') {
    const rel = f.relation as { class?: unknown } | undefined;
    if (typeof rel !== 'object' || rel === null || typeof rel.class !== 'string' || Object.keys(rel).length !== 1) {
      throw badRequest('A relation field needs "relation": { class: <class name> }', `${at}.relation`);
    }
    if (!ctx.classNames.has(rel.class)) throw badRequest(`Unknown class "${rel.class}"`, `${at}.relation.class`);
    def.relation = { class: rel.class };
  } else if (f.relation !== undefined) throw badRequest('"relation" is only for relation fields', `${at}.relation`);

  if (effective === 'component') {
    if (ctx.insideComponent) throw badRequest('Components cannot contain component fields', `${at}.type`);
    if (typeof f.component !== 'string')
      throw badRequest('A component field needs "component": <component name>', `${at}.component`);
    if (!ctx.componentNames.has(f.component)) throw badRequest(`Unknown component "${f.component}"`, `${at}.component`);
    def.component = f.component;
  } else if (f.component !== undefined) throw badRequest('"component" is only for component fields', `${at}.component`);

  if (f.validation !== undefined)
    def.validation = normalizeValidation(f.validation, `${at}.validation`, effective, type);
  return def;
}

function bool(value: unknown, at: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw badRequest('must be true or false', at);
  return value;
}

function normalizeValidation(raw: unknown, at: string, effective: FieldType, type: FieldType): FieldDef['validation'] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw badRequest('validation must be an object', at);
  const v = raw as Record<string, unknown>;
  const out: NonNullable<FieldDef['validation']> = {};
  for (const key of Object.keys(v)) {
    if (!VALIDATION_KEYS.has(key)) throw badRequest(`Unknown validation rule "${key}"`, `${at}.${key}`);
    const value = v[key];
    if (key === 'pattern') {
      if (typeof value !== 'string' || value.length > 200)
        throw badRequest('pattern must be a regular expression of at most 200 characters', `${at}.pattern`);
      try {
        compileUserPattern(value);
      } catch (err) {
        if (err instanceof UserPatternError)
          throw badRequest(`pattern cannot be used: ${err.message}`, `${at}.pattern`);
        throw err;
      }
      if (!['text', 'slug', 'markdown', 'richtext'].includes(effective))
        throw badRequest('pattern is only for text fields', `${at}.pattern`);
      out.pattern = value;
    } else {
      if (typeof value !== 'number' || !Number.isFinite(value))
        throw badRequest(`${key} must be a number`, `${at}.${key}`);
      if ((key === 'min' || key === 'max') && effective !== 'number')
        throw badRequest(`${key} is only for number fields`, `${at}.${key}`);
      if (
        (key === 'minLength' || key === 'maxLength') &&
        !(type === 'array' || ['text', 'slug', 'markdown', 'richtext'].includes(effective))
      ) {
        throw badRequest(`${key} is only for text and array fields`, `${at}.${key}`);
      }
      if ((key === 'minLength' || key === 'maxLength') && (!Number.isInteger(value) || value < 0))
        throw badRequest(`${key} must be a whole number`, `${at}.${key}`);
      if (key === 'maxLength' && effective === 'text' && type !== 'array' && value > TEXT_MAX_LENGTH) {
        throw badRequest(
          `maxLength of a text field is at most ${TEXT_MAX_LENGTH}; use markdown or richtext for long texts`,
          `${at}.maxLength`,
        );
      }
      out[key as 'min'] = value;
    }
  }
  if (out.min !== undefined && out.max !== undefined && out.min > out.max)
    throw badRequest('min is greater than max', `${at}.min`);
  if (out.minLength !== undefined && out.maxLength !== undefined && out.minLength > out.maxLength)
    throw badRequest('minLength is greater than maxLength', `${at}.minLength`);
  return out;
}

/**
 * How a new field list relates to the stored one: fields whose name vanished or whose meaning
 * changed (type, item type, component, relation target, localized, unique) are "breaking" and refused while
 * objects exist; added fields and label/option/rule edits are not.
 */
export function breakingFieldChanges(before: readonly FieldDef[], after: readonly FieldDef[]): string[] {
  const next = new Map(after.map((f) => [f.name, f]));
  const broken: string[] = [];
  for (const old of before) {
    const now = next.get(old.name);
    if (!now) broken.push(old.name);
    else if (
      now.type !== old.type ||
      now.of !== old.of ||
      now.component !== old.component ||
      now.relation?.class !== old.relation?.class ||
      !!now.localized !== !!old.localized ||
      !!now.unique !== !!old.unique
    ) {
      broken.push(old.name);
    }
  }
  return broken;
}
