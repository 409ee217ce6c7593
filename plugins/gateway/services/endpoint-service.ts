import { Type, type Static } from '@sinclair/typebox';
import {
  badRequest,
  conflict,
  inTransaction,
  isUniqueViolation,
  notFound,
  type Db,
  type SecretBox,
  type Tx,
} from '../../../kernel/index.ts';
import { RateLimit, type Endpoint } from '../model.ts';
import { HOP_BY_HOP } from '../outbound/outbound-http.ts';
import type { EndpointStore, EndpointWrite } from '../store/endpoint-store.ts';
import type { RouteStore } from '../store/route-store.ts';
import { AuthInput, AuthRead, redactedAuth, REQUIRED_SETTINGS, SECRET_FIELD, splitAuth } from './auth-types.ts';
import type { Presets } from './presets.ts';

export const SECRET_KEY_NAME = 'GATEWAY_SECRETS_ENCRYPTION_KEY';

export const EndpointName = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[A-Za-z0-9][A-Za-z0-9_-]*$',
  description: 'unique; letters, digits, _ and -',
});
const BaseUrl = Type.String({ minLength: 8, maxLength: 2000, pattern: '^https?://' });
const Headers = Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 2000 }), { maxProperties: 30 });

export const EndpointCreate = Type.Object(
  {
    name: EndpointName,
    baseUrl: Type.Optional(BaseUrl),
    auth: Type.Optional(AuthInput),
    rateLimit: Type.Optional(Type.Union([RateLimit, Type.Null()])),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 300_000 })),
    defaultHeaders: Type.Optional(Headers),
    preset: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'id of a vendor preset: base URL, auth type and routes come from it unless given',
      }),
    ),
  },
  { additionalProperties: false },
);
export type EndpointCreate = Static<typeof EndpointCreate>;

export const EndpointPatch = Type.Object(
  {
    name: Type.Optional(EndpointName),
    baseUrl: Type.Optional(BaseUrl),
    auth: Type.Optional(AuthInput),
    rateLimit: Type.Optional(Type.Union([RateLimit, Type.Null()])),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 300_000 })),
    defaultHeaders: Type.Optional(Headers),
  },
  { additionalProperties: false },
);
export type EndpointPatch = Static<typeof EndpointPatch>;

export const EndpointView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  baseUrl: Type.String(),
  auth: AuthRead,
  rateLimit: Type.Union([RateLimit, Type.Null()]),
  timeoutMs: Type.Integer(),
  defaultHeaders: Type.Record(Type.String(), Type.String()),
  presetId: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type EndpointView = Static<typeof EndpointView>;

/** What an administrator sees: the credential only as `{ set: true }`. */
export function endpointView(e: Endpoint): EndpointView {
  return {
    id: e.id,
    name: e.name,
    baseUrl: e.baseUrl,
    auth: redactedAuth(e.authType, e.authConfig, e.sealedSecret !== null),
    rateLimit: e.rateLimit,
    timeoutMs: e.timeoutMs,
    defaultHeaders: e.defaultHeaders,
    presetId: e.presetId,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string) => UUID.test(s);

/** Endpoint administration: the rules of names, base URLs, credentials (sealed here) and presets. */
export class EndpointService {
  constructor(
    private readonly deps: {
      db: Db;
      endpoints: EndpointStore;
      routes: RouteStore;
      secretBox: SecretBox;
      presets: Presets;
      defaultTimeoutMs: number;
      /** Called after a committed change, so caches (limiters, tokens) drop the endpoint. */
      changed: (endpointId: string) => void;
    },
  ) {}

  list(): Promise<Endpoint[]> {
    return this.deps.endpoints.list();
  }

  async get(id: string, trx?: Tx): Promise<Endpoint> {
    const found = isUuid(id) ? await this.deps.endpoints.findById(id, trx) : undefined;
    if (!found) throw notFound('No such endpoint', 'ENDPOINT_NOT_FOUND');
    return found;
  }

  async create(input: EndpointCreate): Promise<Endpoint> {
    const preset = input.preset !== undefined ? this.deps.presets.get(input.preset) : undefined;
    if (input.preset !== undefined && !preset) throw badRequest(`No preset "${input.preset}"`, 'preset');
    const baseUrl = input.baseUrl ?? preset?.baseUrl;
    if (!baseUrl) throw badRequest('baseUrl is required (or a preset that has one)', 'baseUrl');
    if (preset && input.auth && input.auth.type !== preset.auth.type)
      throw badRequest(`Preset "${preset.id}" uses auth type ${preset.auth.type}`, 'auth.type');
    if (preset && !input.auth && preset.auth.type !== 'none')
      throw badRequest(`Preset "${preset.id}" needs auth of type ${preset.auth.type} with its credentials`, 'auth');
    // The request's settings win over the preset's; the preset fills what the vendor fixes (token URL, header name).
    const auth = input.auth ? ({ ...(preset?.auth ?? {}), ...input.auth } as AuthInput) : ({ type: 'none' } as const);
    const { type, config, secret } = checkedAuth(auth);
    if (SECRET_FIELD[type] && secret === undefined)
      throw badRequest(`Auth type ${type} needs its ${SECRET_FIELD[type]}`, `auth.${SECRET_FIELD[type]}`);
    const write: EndpointWrite = {
      name: input.name,
      baseUrl: checkedBaseUrl(baseUrl),
      authType: type,
      authConfig: config,
      sealedSecret: secret === undefined ? null : this.seal(secret),
      rateLimit: input.rateLimit ?? preset?.rateLimit ?? null,
      timeoutMs: input.timeoutMs ?? preset?.timeoutMs ?? this.deps.defaultTimeoutMs,
      defaultHeaders: checkedHeaders({ ...preset?.defaultHeaders, ...input.defaultHeaders }),
      presetId: preset?.id ?? null,
    };
    try {
      return await inTransaction(this.deps.db, undefined, async (trx) => {
        const endpoint = await this.deps.endpoints.insert(write, trx);
        for (const r of preset?.routes ?? []) {
          await this.deps.routes.insert(
            {
              endpointId: endpoint.id,
              name: r.name ?? null,
              method: r.method,
              path: r.path,
              description: r.description ?? null,
            },
            trx,
          );
        }
        return endpoint;
      });
    } catch (err) {
      throw uniqueName(err);
    }
  }

  async update(id: string, patch: EndpointPatch): Promise<Endpoint> {
    const current = await this.get(id);
    const write: Partial<EndpointWrite> = {};
    if (patch.name !== undefined) write.name = patch.name;
    if (patch.baseUrl !== undefined) write.baseUrl = checkedBaseUrl(patch.baseUrl);
    if (patch.rateLimit !== undefined) write.rateLimit = patch.rateLimit;
    if (patch.timeoutMs !== undefined) write.timeoutMs = patch.timeoutMs;
    if (patch.defaultHeaders !== undefined) write.defaultHeaders = checkedHeaders(patch.defaultHeaders);
    if (patch.auth !== undefined) {
      const { type, config, secret } = checkedAuth(patch.auth);
      write.authType = type;
      write.authConfig = config;
      const field = SECRET_FIELD[type];
      if (!field) write.sealedSecret = null;
      else if (secret !== undefined) write.sealedSecret = this.seal(secret);
      // Same type and no new secret: the stored one stays (the read form never carries it back).
      else if (type !== current.authType || current.sealedSecret === null)
        throw badRequest(`Auth type ${type} needs its ${field}`, `auth.${field}`);
    }
    let updated: Endpoint | undefined;
    try {
      updated = await this.deps.endpoints.update(id, write);
    } catch (err) {
      throw uniqueName(err);
    }
    if (!updated) throw notFound('No such endpoint', 'ENDPOINT_NOT_FOUND');
    this.deps.changed(id);
    return updated;
  }

  /** Deletes the endpoint and its routes. */
  async delete(id: string): Promise<void> {
    if (!isUuid(id) || !(await this.deps.endpoints.delete(id)))
      throw notFound('No such endpoint', 'ENDPOINT_NOT_FOUND');
    this.deps.changed(id);
  }

  private seal(secret: string): string {
    return this.deps.secretBox.encrypt(SECRET_KEY_NAME, secret);
  }
}

function checkedAuth(auth: AuthInput) {
  const split = splitAuth(auth);
  for (const name of REQUIRED_SETTINGS[split.type]) {
    if (!split.config[name]) throw badRequest(`Auth type ${split.type} needs ${name}`, `auth.${name}`);
  }
  return split;
}

function checkedBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badRequest('baseUrl is not a URL', 'baseUrl');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw badRequest('baseUrl must be http or https', 'baseUrl');
  if (url.username || url.password) throw badRequest('baseUrl must not carry credentials; use auth', 'baseUrl');
  if (url.search || url.hash) throw badRequest('baseUrl has no query or fragment; use routes and auth', 'baseUrl');
  return url.toString().replace(/\/+$/, '');
}

const RESERVED_HEADERS = new Set(['authorization', 'cookie', 'x-cms-key', 'x-cms-site-key', 'proxy-authorization']);

function checkedHeaders(headers: Record<string, string>): Record<string, string> {
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/.test(name))
      throw badRequest(`Header name "${name}" is not allowed`, 'defaultHeaders');
    if (RESERVED_HEADERS.has(lower) || HOP_BY_HOP.has(lower))
      throw badRequest(`Header "${name}" cannot be a default header; credentials go in auth`, `defaultHeaders.${name}`);
    if (/[\r\n\0]/.test(value)) throw badRequest(`Header "${name}" has a line break`, `defaultHeaders.${name}`);
  }
  return headers;
}

function uniqueName(err: unknown): unknown {
  if (isUniqueViolation(err)) return conflict('An endpoint with this name exists', 'UNIQUE_VIOLATION', 'name');
  return err;
}
