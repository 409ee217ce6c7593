import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { HTTP_METHODS, RateLimit } from '../model.ts';
import { AUTH_TYPES, type AuthInput } from './auth-types.ts';
import { parseTemplate } from './path-template.ts';

const PresetRoute = Type.Object(
  {
    method: Type.Union(HTTP_METHODS.map((m) => Type.Literal(m))),
    path: Type.String({ minLength: 1, maxLength: 2000 }),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);

/** A vendor preset file (`presets/<id>.json`): what an endpoint made from it starts with. */
export const PresetFile = Type.Object(
  {
    id: Type.Optional(Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,63}$' })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    docsUrl: Type.Optional(Type.String({ pattern: '^https?://', maxLength: 2000 })),
    baseUrl: Type.String({ pattern: '^https?://', maxLength: 2000 }),
    // The auth type and whichever non-secret settings the vendor fixes (token URL, header name, ...);
    // the rest comes with the request that creates an endpoint from the preset.
    auth: Type.Optional(
      Type.Object(
        {
          type: Type.Union(AUTH_TYPES.map((t) => Type.Literal(t))),
          headerName: Type.Optional(Type.String({ maxLength: 100 })),
          paramName: Type.Optional(Type.String({ maxLength: 100 })),
          tokenUrl: Type.Optional(Type.String({ pattern: '^https?://', maxLength: 2000 })),
          scope: Type.Optional(Type.String({ maxLength: 1000 })),
          audience: Type.Optional(Type.String({ maxLength: 1000 })),
          clientAuth: Type.Optional(Type.Union([Type.Literal('basic'), Type.Literal('body')])),
        },
        { additionalProperties: false },
      ),
    ),
    rateLimit: Type.Optional(RateLimit),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 300_000 })),
    defaultHeaders: Type.Optional(Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 2000 }))),
    routes: Type.Optional(Type.Array(PresetRoute, { maxItems: 500 })),
  },
  { additionalProperties: false },
);
type PresetFile = Static<typeof PresetFile>;

export interface Preset {
  id: string;
  name: string;
  description: string | null;
  docsUrl: string | null;
  baseUrl: string;
  /** Auth type and its non-secret settings; the secret is given when an endpoint is created. */
  auth: { type: AuthInput['type'] } & Record<string, string>;
  rateLimit?: RateLimit;
  timeoutMs?: number;
  defaultHeaders?: Record<string, string>;
  routes: Static<typeof PresetRoute>[];
  file: string;
}

export class PresetError extends Error {}

/** The vendor presets found at start (`extensions.files('presets', '.json')`), validated; a bad file stops start-up naming it. */
export class Presets {
  private readonly byId = new Map<string, Preset>();

  constructor(files: readonly string[]) {
    for (const file of files) {
      const preset = loadPreset(file);
      const existing = this.byId.get(preset.id);
      if (existing)
        throw new PresetError(`Gateway preset ${file}: id "${preset.id}" is already used by ${existing.file}`);
      this.byId.set(preset.id, preset);
    }
  }

  list(): Preset[] {
    return [...this.byId.values()];
  }

  get(id: string): Preset | undefined {
    return this.byId.get(id);
  }
}

function loadPreset(file: string): Preset {
  const fail = (why: string) => new PresetError(`Gateway preset ${file}: ${why}`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw fail(`not valid JSON (${(err as Error).message})`);
  }
  const first = Value.Errors(PresetFile, raw).First();
  if (first) throw fail(`${first.path || '/'} ${first.message}`);
  const p = raw as PresetFile;
  const auth = (p.auth ?? { type: 'none' }) as Preset['auth'];
  (p.routes ?? []).forEach((r, i) => {
    try {
      parseTemplate(r.path);
    } catch (err) {
      throw fail(`/routes/${i}/path ${(err as Error).message}`);
    }
  });
  const id = p.id ?? path.basename(file, '.json');
  if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(id))
    throw fail(`the file name gives the id "${id}", which is not lower-case letters, digits and -`);
  return {
    id,
    name: p.name ?? id,
    description: p.description ?? null,
    docsUrl: p.docsUrl ?? null,
    baseUrl: p.baseUrl,
    auth,
    rateLimit: p.rateLimit,
    timeoutMs: p.timeoutMs,
    defaultHeaders: p.defaultHeaders,
    routes: p.routes ?? [],
    file,
  };
}
