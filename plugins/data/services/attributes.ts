import { UserPatternError, badRequest, compileUserPattern } from '../../../kernel/index.ts';
import type { FieldDef, FieldType } from '../model.ts';
import { isCalendarDate, inYearRange, YEARS } from './calendar.ts';
import { SHORT_MAX_LENGTH, TEXT_MAX_LENGTH } from './field-definitions.ts';
import { findTextProblem } from './well-formed.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);

/**
 * The value stored under `name` on `values` itself: field names such as `constructor` or `toString`
 * must not find what every plain object inherits.
 */
export const ownValue = (values: Record<string, unknown>, name: string): unknown =>
  Object.hasOwn(values, name) ? values[name] : undefined;

/** A relation value found while validating, checked against the database afterwards in one query. */
export interface RelationRef {
  field: string;
  id: string;
  className: string;
}

/** An asset field's value found while validating: checked against the asset library afterwards. */
export interface AssetValueRef {
  field: string;
  ref: string;
}

/** What validation met that only the database (or another plugin) can check: relations, asset references. */
export interface FoundRefs {
  relations: RelationRef[];
  assets: AssetValueRef[];
}

/** A value problem: the dotted field path (`attributes.title`), a reason and the error code of its 400. */
export class AttributeError extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
    readonly code = 'VALIDATION_FAILED',
  ) {
    super(reason);
  }
}

export interface AttributeSchema {
  fields: readonly FieldDef[];
  /** Component name -> its fields. */
  components: ReadonlyMap<string, readonly FieldDef[]>;
}

/**
 * Checks a complete attribute object against the class fields and returns it normalized (datetimes
 * in UTC ISO form, empty values dropped). Throws AttributeError naming the first bad field; the
 * relation values it met are pushed to `relations`.
 */
export function normalizeAttributes(
  input: unknown,
  schema: AttributeSchema,
  relations: RelationRef[] = [],
  assets: AssetValueRef[] = [],
): Record<string, unknown> {
  // Every string and key, json values included: PostgreSQL refuses lone surrogates in jsonb.
  const problem = findTextProblem(input, 'attributes');
  if (problem) throw new AttributeError(problem.path, problem.reason, problem.code);
  return normalizeObject(input, schema.fields, schema, 'attributes', { relations, assets });
}

/** Same, as a 400 for single-object routes. */
export function normalizeAttributesOr400(
  input: unknown,
  schema: AttributeSchema,
  relations: RelationRef[] = [],
  assets: AssetValueRef[] = [],
): Record<string, unknown> {
  try {
    return normalizeAttributes(input, schema, relations, assets);
  } catch (err) {
    if (err instanceof AttributeError) throw badRequest(`${err.field}: ${err.reason}`, err.field, err.code);
    throw err;
  }
}

function normalizeObject(
  input: unknown,
  fields: readonly FieldDef[],
  schema: AttributeSchema,
  at: string,
  found: FoundRefs,
): Record<string, unknown> {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new AttributeError(at, 'must be an object');
  const values = input as Record<string, unknown>;
  const byName = new Map(fields.map((f) => [f.name, f]));
  for (const name of Object.keys(values)) {
    if (!byName.has(name)) throw new AttributeError(`${at}.${name}`, 'is not a field of this class');
  }
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const value = ownValue(values, field.name);
    const path = `${at}.${field.name}`;
    if (isEmpty(value)) {
      if (field.required) throw new AttributeError(path, 'is required');
      continue;
    }
    out[field.name] =
      field.type === 'array'
        ? normalizeArray(value, field, schema, path, found)
        : normalizeValue(value, field, field.type, schema, path, found);
  }
  return out;
}

const isEmpty = (value: unknown) => value === undefined || value === null || value === '';

function normalizeArray(
  value: unknown,
  field: FieldDef,
  schema: AttributeSchema,
  path: string,
  found: FoundRefs,
): unknown[] {
  if (!Array.isArray(value)) throw new AttributeError(path, 'must be an array');
  const { minLength, maxLength } = field.validation ?? {};
  if (minLength !== undefined && value.length < minLength)
    throw new AttributeError(path, `needs at least ${minLength} items`);
  if (maxLength !== undefined && value.length > maxLength)
    throw new AttributeError(path, `takes at most ${maxLength} items`);
  if (!field.of || field.of === 'json') return value;
  const item = field.of;
  // Item rules: the field's own text rules (pattern) apply to each text item; lengths counted the array.
  const itemField: FieldDef = {
    ...field,
    type: item,
    validation: field.validation?.pattern ? { pattern: field.validation.pattern } : undefined,
  };
  return value.map((v, i) => {
    if (isEmpty(v)) throw new AttributeError(`${path}.${i}`, 'must not be empty');
    return normalizeValue(v, itemField, item, schema, `${path}.${i}`, found);
  });
}

function normalizeValue(
  value: unknown,
  field: FieldDef,
  type: FieldType,
  schema: AttributeSchema,
  path: string,
  found: FoundRefs,
): unknown {
  const rules = field.validation ?? {};
  switch (type) {
    case 'text':
    case 'markdown':
    case 'richtext': {
      if (typeof value !== 'string') throw new AttributeError(path, 'must be a string');
      const max = type === 'text' ? Math.min(rules.maxLength ?? TEXT_MAX_LENGTH, TEXT_MAX_LENGTH) : rules.maxLength;
      if (max !== undefined && value.length > max) throw new AttributeError(path, `is longer than ${max} characters`);
      if (rules.minLength !== undefined && value.length < rules.minLength)
        throw new AttributeError(path, `is shorter than ${rules.minLength} characters`);
      checkPattern(rules.pattern, value, path);
      return value;
    }
    case 'slug':
      if (typeof value !== 'string' || !SLUG.test(value) || value.length > SHORT_MAX_LENGTH) {
        throw new AttributeError(path, 'must be a slug: lowercase letters and digits separated by single hyphens');
      }
      checkPattern(rules.pattern, value, path);
      return value;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new AttributeError(path, 'must be a number');
      if (rules.min !== undefined && value < rules.min) throw new AttributeError(path, `must be at least ${rules.min}`);
      if (rules.max !== undefined && value > rules.max) throw new AttributeError(path, `must be at most ${rules.max}`);
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw new AttributeError(path, 'must be true or false');
      return value;
    case 'date': {
      if (!isCalendarDate(value)) throw new AttributeError(path, `must be a date YYYY-MM-DD in the years ${YEARS}`);
      return value;
    }
    case 'datetime': {
      // Stored as UTC ISO with milliseconds so text order is time order (the index compares text).
      const ms = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN;
      if (Number.isNaN(ms)) throw new AttributeError(path, 'must be an ISO 8601 date-time');
      if (!inYearRange(ms)) throw new AttributeError(path, `must be a date-time in the years ${YEARS} (UTC)`);
      return new Date(ms).toISOString();
    }
    case 'select':
      if (typeof value !== 'string' || !field.options?.includes(value))
        throw new AttributeError(path, `must be one of ${(field.options ?? []).join(', ')}`);
      return value;
    case 'asset':
      if (typeof value !== 'string' || value.length > SHORT_MAX_LENGTH)
        throw new AttributeError(path, `must be an asset id (a string of at most ${SHORT_MAX_LENGTH} characters)`);
      found.assets.push({ field: path, ref: value });
      return value;
    case 'relation':
      if (!isUuid(value)) throw new AttributeError(path, 'must be the id (uuid) of an object');
      found.relations.push({ field: path, id: value.toLowerCase(), className: field.relation!.class });
      return value.toLowerCase();
    case 'json':
      return value;
    case 'component': {
      const fields = schema.components.get(field.component!);
      if (!fields) throw new AttributeError(path, `component "${field.component}" no longer exists`);
      return normalizeObject(value, fields, schema, path, found);
    }
    case 'array':
      throw new AttributeError(path, 'nested arrays are not supported');
  }
}

/**
 * A field's `validation.pattern` on the linear-time engine (compiled once per pattern). Definitions
 * are checked when stored; one stored before that check and refused by the engine fails the value.
 */
function checkPattern(pattern: string | undefined, value: string, path: string): void {
  if (pattern === undefined) return;
  let matches: boolean;
  try {
    matches = compileUserPattern(pattern).test(value);
  } catch (err) {
    if (err instanceof UserPatternError)
      throw new AttributeError(path, `the field's pattern cannot be used (${err.message}); correct the definition`);
    throw err;
  }
  if (!matches) throw new AttributeError(path, 'does not match the pattern');
}

/** The attribute value a unique field is indexed by (`data_unique_values.value`), or null when empty. */
export function uniqueValueOf(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
