import { randomUUID } from 'node:crypto';
import {
  acceptedTypes,
  minimalValue,
  oversizeString,
  PROBE_UUID,
  wrongTypeValue,
  type DocumentedRoute,
  type JsonSchema,
  type RouteParam,
} from '../helpers/openapi-routes.ts';

/** What a probe got back: the status and the documented error body's code and field. */
export interface Answer {
  status: number;
  code?: string;
  field?: string;
  body: string;
}

/** Why the answer is not the one the class expects, or null when it is. */
export type Expectation = (answer: Answer) => string | null;

export interface Probe {
  /** What is wrong, as failures show it: `query limit=abc`, `body.name: 64 chars`. */
  what: string;
  /** Path and query string, encoded. */
  url: string;
  /** The raw body, sent as application/json. */
  payload?: string;
  expect: Expectation;
}

/**
 * One class of bad input: the probes it makes for a route (none when the route has no input of that
 * kind). Adding a class is adding one entry to BAD_INPUT_CLASSES.
 */
export interface BadInputClass {
  name: string;
  /** Kernel codes answered before the handler, allowed only for the class that probes them. */
  kernelCodes?: string[];
  probes(route: DocumentedRoute): Probe[];
}

// ---- expectations -----------------------------------------------------------------------------

const names = (answer: Answer, field: string) => answer.field === field || (answer.field ?? '').startsWith(`${field}.`);

/** The route's schema refused it: 400 VALIDATION_FAILED, naming `field` when given. */
export const validation =
  (field?: string): Expectation =>
  (a) =>
    a.status === 400 && a.code === 'VALIDATION_FAILED' && (field === undefined || names(a, field))
      ? null
      : `expected 400 VALIDATION_FAILED${field ? ` naming ${field}` : ''}`;

/** The handler looked the id up and did not find it. */
export const notFound: Expectation = (a) =>
  a.status === 404 && a.code !== 'ROUTE_NOT_FOUND' ? null : "expected the handler's 404";

/** Refused by the schema naming the parameter, or not found by the handler (ids that are plain strings). */
const validationOrNotFound =
  (field: string): Expectation =>
  (a) =>
    validation(field)(a) === null || notFound(a) === null
      ? null
      : `expected 400 VALIDATION_FAILED naming ${field}, or the handler's 404`;

/** The handler answered, whatever it decided (the common rules still apply: no 5xx, no 401...). */
export const handled: Expectation = () => null;

/** Accepted or refused by the handler, but the unknown field is neither refused nor echoed back. */
const ignoredField =
  (name: string): Expectation =>
  (a) =>
    a.body.includes(name) ? `the answer mentions ${name}` : null;

export const kernelCode =
  (code: string, field?: string): Expectation =>
  (a) =>
    a.status === 400 && a.code === code && (field === undefined || a.field === field)
      ? null
      : `expected 400 ${code}${field ? ` naming ${field}` : ''}`;

// ---- building requests ------------------------------------------------------------------------

/** The URL of a route: path parameters a well-formed unknown id unless given, required query values minimal. */
export function urlFor(
  route: DocumentedRoute,
  opts: { params?: Record<string, string>; query?: Record<string, string>; rawQuery?: string } = {},
): string {
  const path = route.path.replace(
    /\{([^}]+)\}/g,
    (_, name: string) => opts.params?.[name] ?? encodeURIComponent(PROBE_UUID),
  );
  const query = new URLSearchParams();
  for (const p of route.query) {
    // Parameters with a default are filled in by the schema; the others get a minimal valid value.
    if (
      p.required &&
      (p.schema as { default?: unknown }).default === undefined &&
      !(opts.query && p.name in opts.query)
    ) {
      query.set(p.name, String(minimalValue(p.schema)));
    }
  }
  for (const [name, value] of Object.entries(opts.query ?? {})) query.set(name, value);
  const qs = [query.toString(), opts.rawQuery].filter(Boolean).join('&');
  return qs ? `${path}?${qs}` : path;
}

/** The route's body with only what its schema requires, as JSON (undefined when it takes none). */
const minimalBody = (route: DocumentedRoute) => (route.body ? JSON.stringify(minimalValue(route.body)) : undefined);

const bodyWith = (route: DocumentedRoute, change: Record<string, unknown>) =>
  JSON.stringify({ ...(minimalValue(route.body!) as Record<string, unknown>), ...change });

const topLevel = (route: DocumentedRoute): Array<[string, JsonSchema]> => Object.entries(route.body?.properties ?? {});

const isStrict = (schema: JsonSchema) => schema.additionalProperties === false;

// ---- values -----------------------------------------------------------------------------------

/** Path ids that are not ids: no slash, so the route itself still matches. */
const MALFORMED_IDS = ['not-a-uuid', `'"`, '-1', '1e999', '00000000-0000-4000-8000-00000000000g', 'id with spaces'];

function badQueryValues(p: RouteParam): string[] {
  const types = acceptedTypes(p.schema);
  const { minimum, maximum } = p.schema;
  if (types.has('integer') || types.has('number')) {
    return [
      'abc',
      ...(types.has('integer') ? ['1.5'] : []),
      ...(minimum !== undefined ? [String(minimum - 1)] : []),
      ...(maximum !== undefined ? [String(maximum + 1)] : []),
      '99999999999999999999',
      '-99999999999999999999',
    ];
  }
  if (types.has('boolean')) return ['maybe', '2'];
  if (p.schema.enum || p.schema.anyOf) return ['no-such-value'];
  return [];
}

const UNCAPPED_STRING = 'x'.repeat(100_000);
const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty'];
const OUT_OF_RANGE_DATES = ['-004714-01-01T00:00:00Z', '+275760-09-13T00:00:00Z', '0000-00-00'];
const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};

// ---- the classes ------------------------------------------------------------------------------

export const BAD_INPUT_CLASSES: BadInputClass[] = [
  {
    name: 'malformed path ids',
    probes: (route) =>
      route.pathParams.flatMap((p) =>
        MALFORMED_IDS.map((id) => ({
          what: `${p.name}=${id}`,
          url: urlFor(route, { params: { [p.name]: encodeURIComponent(id) } }),
          payload: minimalBody(route),
          expect: p.schema.format === 'uuid' ? validation(p.name) : validationOrNotFound(p.name),
        })),
      ),
  },
  {
    name: 'well-formed unknown ids',
    probes: (route) =>
      route.pathParams.flatMap((p) =>
        [PROBE_UUID, randomUUID()].map((id) => ({
          what: `${p.name}=${id}`,
          url: urlFor(route, { params: { [p.name]: id } }),
          payload: minimalBody(route),
          expect: notFound,
        })),
      ),
  },
  {
    name: 'bad query values',
    probes: (route) =>
      route.query.flatMap((p) =>
        badQueryValues(p).map((value) => ({
          what: `query ${p.name}=${value}`,
          url: urlFor(route, { query: { [p.name]: value } }),
          // A valid body where the route takes one (a PATCH with ?draft=): only the query is wrong.
          payload: minimalBody(route),
          expect: validation(p.name),
        })),
      ),
  },
  {
    name: 'wrong body types',
    probes: (route) =>
      route.body
        ? [[], 'probe', null, 1, true].map((body) => ({
            what: `body ${JSON.stringify(body)}`,
            url: urlFor(route),
            payload: JSON.stringify(body),
            expect: validation(),
          }))
        : [],
  },
  {
    name: 'wrong field types',
    probes: (route) =>
      topLevel(route).flatMap(([name, schema]) => {
        const wrong = wrongTypeValue(schema);
        if (wrong === undefined) return [];
        return [
          {
            what: `body.${name}: ${JSON.stringify(wrong)}`,
            url: urlFor(route),
            payload: bodyWith(route, { [name]: wrong }),
            expect: validation(name),
          },
        ];
      }),
  },
  {
    name: 'oversize strings',
    probes: (route) => [
      ...[...route.pathParams, ...route.query].flatMap((p) => {
        const value = oversizeString(p.schema);
        if (value === undefined) return [];
        const where = route.pathParams.includes(p) ? { params: { [p.name]: value } } : { query: { [p.name]: value } };
        return [
          {
            what: `${p.name}: ${value.length} chars`,
            url: urlFor(route, where),
            payload: minimalBody(route),
            expect: validation(p.name),
          },
        ];
      }),
      ...topLevel(route).flatMap(([name, schema]) => {
        const types = acceptedTypes(schema);
        if (types.has('array') && schema.maxItems !== undefined) {
          const items = Array.from({ length: schema.maxItems + 1 }, () => minimalValue(schema.items ?? {}));
          return [
            {
              what: `body.${name}: ${items.length} items`,
              url: urlFor(route),
              payload: bodyWith(route, { [name]: items }),
              expect: validation(name),
            },
          ];
        }
        if (!types.has('string')) return [];
        const capped = oversizeString(schema);
        // Without a cap the handler decides; it must still answer with its own 4xx or accept it.
        const value = capped ?? UNCAPPED_STRING;
        return [
          {
            what: `body.${name}: ${value.length} chars`,
            url: urlFor(route),
            payload: bodyWith(route, { [name]: value }),
            expect: capped ? validation(name) : handled,
          },
        ];
      }),
    ],
  },
  {
    name: 'unknown fields',
    probes: (route) => [
      // Every route, even one without input: an unknown query parameter is refused or ignored.
      {
        what: 'query probeUnknownField=1',
        url: urlFor(route, { rawQuery: 'probeUnknownField=1' }),
        payload: minimalBody(route),
        expect: handled,
      },
      ...(route.body
        ? [
            {
              what: 'body.probeUnknownField',
              url: urlFor(route),
              payload: bodyWith(route, { probeUnknownField: 1 }),
              expect: isStrict(route.body) ? validation() : ignoredField('probeUnknownField'),
            },
          ]
        : []),
    ],
  },
  {
    name: 'NUL character',
    kernelCodes: ['NUL_CHARACTER'],
    probes: (route) => {
      const firstString = topLevel(route).find(([, schema]) => acceptedTypes(schema).has('string'))?.[0];
      return [
        ...route.pathParams.map((p) => ({
          what: `${p.name}=%00`,
          url: urlFor(route, { params: { [p.name]: '%00' } }),
          payload: minimalBody(route),
          expect: kernelCode('NUL_CHARACTER', p.name),
        })),
        ...route.query.map((p) => ({
          what: `query ${p.name}=%00`,
          url: urlFor(route, { query: { [p.name]: '\u0000' } }),
          expect: kernelCode('NUL_CHARACTER', p.name),
        })),
        ...(route.body
          ? [
              firstString
                ? {
                    what: `body.${firstString}: "a\\u0000b"`,
                    url: urlFor(route),
                    payload: bodyWith(route, { [firstString]: 'a\u0000b' }),
                    expect: kernelCode('NUL_CHARACTER', firstString),
                  }
                : {
                    what: 'body key "probe\\u0000"',
                    url: urlFor(route),
                    payload: bodyWith(route, { 'probe\u0000': 1 }),
                    expect: kernelCode('NUL_CHARACTER', 'probe\u0000'),
                  },
            ]
          : []),
      ];
    },
  },
  {
    // Names that are properties of every plain object: a lookup of user text in one finds them.
    name: 'prototype property names',
    probes: (route) => [
      ...PROTOTYPE_NAMES.map((name) => ({
        what: `query ${name}=1`,
        url: urlFor(route, { rawQuery: `${name}=1` }),
        payload: minimalBody(route),
        expect: handled,
      })),
      ...(route.body
        ? PROTOTYPE_NAMES.map((name) => ({
            what: `body key ${name}`,
            url: urlFor(route),
            payload: JSON.stringify({
              ...(minimalValue(route.body!) as Record<string, unknown>),
              [name]: { probe: 1 },
            }),
            expect: handled,
          }))
        : []),
    ],
  },
  {
    name: 'deep nesting',
    kernelCodes: ['TOO_DEEP'],
    probes: (route) =>
      route.body
        ? [
            {
              what: 'body nested 100 deep',
              url: urlFor(route),
              payload: bodyWith(route, { probe: nested(100) }),
              expect: kernelCode('TOO_DEEP'),
            },
            {
              what: 'body nested 100,000 deep',
              url: urlFor(route),
              payload: `{"probe":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`,
              expect: kernelCode('TOO_DEEP'),
            },
          ]
        : [],
  },
  {
    name: 'lone surrogates',
    kernelCodes: ['INVALID_TEXT'],
    probes: (route) => {
      const firstString = topLevel(route).find(([, schema]) => acceptedTypes(schema).has('string'))?.[0];
      if (!route.body) return [];
      // Written as JSON escapes: the text on the wire is valid UTF-8, the parsed string is not.
      const field = firstString ?? 'probe';
      return [
        {
          what: `body.${field}: "a\\ud800"`,
          url: urlFor(route),
          payload: bodyWith(route, { [field]: 'SURROGATE' }).replace('"SURROGATE"', '"a\\ud800"'),
          expect: kernelCode('INVALID_TEXT', field),
        },
      ];
    },
  },
  {
    name: 'out-of-range numbers and dates',
    probes: (route) => [
      ...route.query.flatMap((p) => {
        const types = acceptedTypes(p.schema);
        if (types.has('integer') || types.has('number'))
          return ['1e400', '-1e400', 'Infinity', 'NaN'].map((v) => ({
            what: `query ${p.name}=${v}`,
            url: urlFor(route, { query: { [p.name]: v } }),
            expect: validation(p.name),
          }));
        if (
          p.schema.format === 'date-time' ||
          p.schema.format === 'date' ||
          ['from', 'to', 'since', 'until'].includes(p.name)
        ) {
          return OUT_OF_RANGE_DATES.map((v) => ({
            what: `query ${p.name}=${v}`,
            url: urlFor(route, { query: { [p.name]: v } }),
            expect: handled,
          }));
        }
        return [];
      }),
      ...topLevel(route).flatMap(([name, schema]) => {
        const types = acceptedTypes(schema);
        if (types.has('integer') || types.has('number')) {
          return [
            {
              what: `body.${name}: 1e400`,
              url: urlFor(route),
              payload: bodyWith(route, { [name]: 'NUMBER' }).replace('"NUMBER"', '1e400'),
              expect: validation(name),
            },
          ];
        }
        if (types.has('string'))
          return OUT_OF_RANGE_DATES.slice(0, 1).map((v) => ({
            what: `body.${name}: ${v}`,
            url: urlFor(route),
            payload: bodyWith(route, { [name]: v }),
            expect: handled,
          }));
        return [];
      }),
    ],
  },
  {
    name: 'huge offsets',
    probes: (route) => [
      ...route.query
        .filter((p) => p.name === 'offset')
        .map((p) => ({
          what: 'query offset=100000000000000000000',
          url: urlFor(route, { query: { [p.name]: '100000000000000000000' } }),
          expect: validation('offset'),
        })),
      ...topLevel(route)
        .filter(([name]) => name === 'offset')
        .map(([name]) => ({
          what: 'body.offset: 1e20',
          url: urlFor(route),
          payload: bodyWith(route, { [name]: 1e20 }),
          expect: validation(name),
        })),
    ],
  },
  {
    name: 'malformed JSON',
    kernelCodes: ['INVALID_JSON'],
    probes: (route) =>
      route.body
        ? [{ what: 'body {"probe":', url: urlFor(route), payload: '{"probe":', expect: kernelCode('INVALID_JSON') }]
        : [],
  },
];

/**
 * Routes truly exempt from a class's expectation (the common rules still apply to them), each with
 * the reason. An entry no probe uses fails the test, so the list cannot go stale.
 */
export const EXEMPT: Array<{ route: string; class: string; probe?: string; reason: string }> = [
  // An optional body: the route takes a JSON null like no body at all (`request.body ??= {}`), so the
  // handler goes on and answers for the path id (404) or the signed-in user (enrolment starts).
  ...[
    'POST /auth/mfa/setup',
    'POST /auth/users/{id}/reset-password',
    'POST /data-objects/{id}/preview-link',
    'POST /migration-sources/{id}/preview-classes',
    'POST /migration-sources/{id}/import-classes',
    'POST /migration-sources/{id}/extract-components',
    'POST /migration-sources/{id}/import-objects',
  ].map((route) => ({
    route,
    class: 'wrong body types',
    probe: 'body null',
    reason: 'optional body: null means no body',
  })),
  // The client surface ignores staff sessions: a schema-valid request without a client credential answers
  // 401 before any lookup. plugins/client-api/test/bad-input.test.ts sends these classes with a key.
  ...[
    'GET /client/v1/data/{class}',
    'POST /client/v1/data/{class}',
    'GET /client/v1/data/{class}/{id}',
    'PATCH /client/v1/data/{class}/{id}',
    'POST /client/v1/automations/{endpoint}/{*}',
    ...['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => `${m} /client/v1/gateway/{endpoint}/{*}`),
  ].flatMap((route) =>
    ['malformed path ids', 'well-formed unknown ids'].map((cls) => ({
      route,
      class: cls,
      reason: 'client credentials, not sessions; probed with a key in the plugin',
    })),
  ),
  // The publish runner routes take the bearer PUBLISH_RUNNER_TOKEN, not sessions: a schema-valid call
  // without it answers 401 before any lookup. plugins/publish/test/publish.test.ts sends unknown ids with it.
  ...[
    'GET /publish/jobs/{id}/runner/pages',
    'GET /publish/jobs/{id}/runner/page',
    'POST /publish/jobs/{id}/runner/files',
    'GET /publish/jobs/{id}/runner/files/{fileId}',
    'POST /publish/jobs/{id}/runner/progress',
    'POST /publish/jobs/{id}/runner/finish',
  ].map((route) => ({
    route,
    class: 'well-formed unknown ids',
    reason: 'runner credential (bearer token), not sessions; probed with the token in the plugin',
  })),
  // The asset service's data-subject routes take the service token only (core-api's data-subject
  // plugin, which audits and rate-limits, is their one caller): a session gets 401 before the body is
  // read. plugins/data-subject/test/split.test.ts sends bad bodies with the token.
  ...['find', 'records', 'erase'].flatMap((name) =>
    [
      'wrong body types',
      'wrong field types',
      'oversize strings',
      'unknown fields',
      'NUL character',
      'deep nesting',
      'lone surrogates',
      'malformed JSON',
    ].map((cls) => ({
      route: `POST /api/v1/dam/data-subject/${name}`,
      class: cls,
      reason: 'service token only, not sessions; probed with the token in the plugin',
    })),
  ),
];

/**
 * Server bugs the probe found, left for the code's owners: these probes are expected to fail this
 * way, and the test fails once one of them passes, so the entry goes with the fix.
 */
export const KNOWN_FAILURES: Array<{ route: string; class: string; probe: string; status: number; issue: string }> = [];
