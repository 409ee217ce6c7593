/** JSON Schema (draft 2020-12 subset) of one sample answer, and a trimmed copy of the sample to store. */

const MAX_DEPTH = 20;
const MAX_PROPERTIES = 200;
const ARRAY_ITEMS_SAMPLED = 20;
const SAMPLE_ARRAY_ITEMS = 3;
const SAMPLE_STRING_CHARS = 500;

type Schema = Record<string, unknown>;

/** The schema of `value`; array items are merged from the first few elements. Depth-capped. */
export function inferSchema(value: unknown, depth = 0): Schema {
  if (value === null) return { type: 'null' };
  if (Array.isArray(value)) {
    if (depth >= MAX_DEPTH) return { type: 'array' };
    const items = value.slice(0, ARRAY_ITEMS_SAMPLED).map((v) => inferSchema(v, depth + 1));
    return items.length ? { type: 'array', items: items.reduce(mergeSchemas) } : { type: 'array' };
  }
  switch (typeof value) {
    case 'string':
      return { type: 'string', ...stringFormat(value) };
    case 'number':
      return { type: Number.isInteger(value) ? 'integer' : 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'object': {
      if (depth >= MAX_DEPTH) return { type: 'object' };
      const properties: Record<string, Schema> = {};
      for (const [k, v] of Object.entries(value as object).slice(0, MAX_PROPERTIES))
        properties[k] = inferSchema(v, depth + 1);
      return { type: 'object', properties, required: Object.keys(properties) };
    }
    default:
      return {};
  }
}

function stringFormat(s: string): Schema {
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(s) && !Number.isNaN(Date.parse(s))) return { format: 'date-time' };
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s)) return { format: 'uuid' };
  if (/^https?:\/\/\S+$/.test(s)) return { format: 'uri' };
  return {};
}

/** Two schemas of the same place: properties united (required only where both require), types widened. */
export function mergeSchemas(a: Schema, b: Schema): Schema {
  if (JSON.stringify(a) === JSON.stringify(b)) return a;
  if (a.type === 'object' && b.type === 'object') {
    const pa = (a.properties ?? {}) as Record<string, Schema>;
    const pb = (b.properties ?? {}) as Record<string, Schema>;
    const properties: Record<string, Schema> = { ...pa };
    for (const [k, v] of Object.entries(pb)) properties[k] = Object.hasOwn(pa, k) ? mergeSchemas(pa[k]!, v) : v;
    const ra = new Set((a.required ?? []) as string[]);
    return { type: 'object', properties, required: ((b.required ?? []) as string[]).filter((k) => ra.has(k)) };
  }
  if (a.type === 'array' && b.type === 'array') {
    if (a.items && b.items) return { type: 'array', items: mergeSchemas(a.items as Schema, b.items as Schema) };
    return { type: 'array', ...(a.items || b.items ? { items: a.items ?? b.items } : {}) };
  }
  if ((a.type === 'integer' && b.type === 'number') || (a.type === 'number' && b.type === 'integer'))
    return { type: 'number' };
  const types = [...new Set([a.type, b.type].flat().filter((t): t is string => typeof t === 'string'))];
  return types.length ? { type: types } : {};
}

/** The sample as stored: arrays cut to a few items, long strings shortened, depth-capped. */
export function trimSample(value: unknown, depth = 0): unknown {
  if (Array.isArray(value))
    return depth >= MAX_DEPTH ? [] : value.slice(0, SAMPLE_ARRAY_ITEMS).map((v) => trimSample(v, depth + 1));
  if (typeof value === 'string')
    return value.length > SAMPLE_STRING_CHARS ? value.slice(0, SAMPLE_STRING_CHARS) + '…' : value;
  if (value && typeof value === 'object') {
    if (depth >= MAX_DEPTH) return {};
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value).slice(0, MAX_PROPERTIES)) out[k] = trimSample(v, depth + 1);
    return out;
  }
  return value;
}
