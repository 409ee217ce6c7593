/**
 * A schema validation failure as a sentence a person can act on. Ajv's own text ("body/name must NOT
 * have fewer than 1 characters", 'params/id must match format "uuid"') reached the dashboard's people
 * word for word; the answer's `field` still names the input, this only rewords the message.
 */

/** The part of an Ajv error the sentence reads. */
export interface SchemaProblem {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** Where the value was: fastify's `validationContext`. */
const PLACES: Record<string, string> = {
  body: 'The field',
  params: 'The path parameter',
  querystring: 'The query parameter',
  headers: 'The header',
};

const FORMATS: Record<string, string> = {
  uuid: 'a UUID (like 0b6f5a4e-1c2d-4e3f-8a9b-0c1d2e3f4a5b)',
  email: 'an email address',
  uri: 'an absolute URL',
  'uri-reference': 'a URL',
  'date-time': 'a date and time (ISO 8601, like 2026-12-04T09:30:00Z)',
  date: 'a date (YYYY-MM-DD)',
  time: 'a time (HH:MM:SS)',
  hostname: 'a host name',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
};

const TYPES: Record<string, string> = {
  string: 'text',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'null',
};

function typeName(type: unknown): string {
  const types = Array.isArray(type) ? type : String(type).split(',');
  return types.map((t) => TYPES[String(t)] ?? String(t)).join(' or ');
}

function plural(n: unknown, one: string, many: string): string {
  return `${n} ${Number(n) === 1 ? one : many}`;
}

/** What the value must be or do, after "The field "x" ". */
function rule(problem: SchemaProblem): string {
  const p = problem.params;
  switch (problem.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'minLength':
      return Number(p.limit) === 1
        ? 'must not be empty'
        : `must be at least ${plural(p.limit, 'character', 'characters')} long`;
    case 'maxLength':
      return `must be at most ${plural(p.limit, 'character', 'characters')} long`;
    case 'format':
      return `must be ${FORMATS[String(p.format)] ?? `in the ${String(p.format)} format`}`;
    case 'type':
      return `must be ${typeName(p.type)}`;
    case 'enum':
      return `must be one of: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'minimum':
      return `must be at least ${p.limit}`;
    case 'maximum':
      return `must be at most ${p.limit}`;
    case 'exclusiveMinimum':
      return `must be more than ${p.limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${p.limit}`;
    case 'multipleOf':
      return `must be a multiple of ${p.multipleOf}`;
    case 'pattern':
      return `does not have the expected form (the pattern ${String(p.pattern)})`;
    case 'minItems':
      return Number(p.limit) === 1
        ? 'must not be an empty list'
        : `must have at least ${plural(p.limit, 'item', 'items')}`;
    case 'maxItems':
      return `must have at most ${plural(p.limit, 'item', 'items')}`;
    case 'uniqueItems':
      return `must not repeat an item (items ${p.j} and ${p.i} are the same)`;
    case 'minProperties':
      return `must have at least ${plural(p.limit, 'entry', 'entries')}`;
    case 'maxProperties':
      return `must have at most ${plural(p.limit, 'entry', 'entries')}`;
    case 'anyOf':
    case 'oneOf':
      return 'does not match any of the allowed shapes';
    default:
      return problem.message ?? 'is not valid';
  }
}

/**
 * The sentence for the first problem of a failed validation: `field` is the dotted path the answer
 * names (empty for the whole body or query), `context` fastify's `validationContext`.
 */
export function validationSentence(
  problem: SchemaProblem,
  field: string | undefined,
  context: string | undefined,
): string {
  const place = PLACES[context ?? 'body'] ?? 'The value';
  if (!field) {
    const whole = context === 'querystring' ? 'The query' : context === 'params' ? 'The path' : 'The request body';
    return `${whole} ${rule(problem)}.`;
  }
  return `${place} "${field}" ${rule(problem)}.`;
}
