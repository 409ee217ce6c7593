import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { badRequest } from '../../../kernel/index.ts';

const Field = Type.Object({
  name: Type.String({ pattern: '^[a-zA-Z][a-zA-Z0-9]{0,63}$' }),
  label: Type.String({ maxLength: 200 }),
  type: Type.Union([Type.Literal('text'), Type.Literal('secret'), Type.Literal('url')]),
  required: Type.Optional(Type.Boolean()),
  default: Type.Optional(Type.String({ maxLength: 2000 })),
});

const Auth = Type.Union([
  Type.Object({ type: Type.Literal('header'), name: Type.String(), value: Type.String() }),
  Type.Object({ type: Type.Literal('basic'), username: Type.String(), password: Type.String() }),
  Type.Object({ type: Type.Literal('bearer'), token: Type.String() }),
]);

const Where = Type.Union([Type.Object({ body: Type.String() }), Type.Object({ header: Type.String() })]);

/** A provider file (`plugins/mail/providers/*.json`, or a `mail-providers/` folder on CMS_PLUGIN_PATH). */
const ProviderFile = Type.Object({
  id: Type.String({ pattern: '^[a-z][a-z0-9-]{0,39}$' }),
  label: Type.String({ maxLength: 200 }),
  docs: Type.Optional(Type.String()),
  fields: Type.Array(Field, { maxItems: 32 }),
  request: Type.Object({
    method: Type.Union([Type.Literal('POST'), Type.Literal('PUT')]),
    /** Appended to the `baseUrl` field; every placeholder in it is URL-encoded. */
    path: Type.String({ maxLength: 500 }),
    auth: Auth,
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    body: Type.Object({ type: Type.Union([Type.Literal('json'), Type.Literal('form')]), template: Type.Unknown() }),
  }),
  response: Type.Object({ messageId: Type.Optional(Where), error: Type.Optional(Where) }),
});
export type MailProvider = Static<typeof ProviderFile>;

/** What a mail looks like to a provider's body template. */
export interface ProviderMessage {
  from: string;
  fromName?: string;
  /** `Name <address>` (or the address alone). */
  fromHeader: string;
  to: string[];
  cc: string[];
  replyTo?: string;
  subject: string;
  html?: string;
  text: string;
  messageId: string;
}

export interface ProviderRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

const PLACEHOLDER = /\{\{\s*([a-zA-Z][a-zA-Z0-9_.]*)\s*\}\}/g;
const WHOLE = /^\{\{\s*([a-zA-Z][a-zA-Z0-9_.]*)\s*\}\}$/;
const MAX_TEMPLATE_DEPTH = 16;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** A value by dotted path from a scope made of plain objects (own properties only). */
function lookup(scope: Record<string, unknown>, dotted: string): unknown {
  let value: unknown = scope;
  for (const part of dotted.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

const isEmpty = (v: unknown) =>
  v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0) || Number.isNaN(v);

/**
 * Fills a body template: `"{{path}}"` alone is the value itself (a list stays a list), placeholders
 * inside text are replaced by text, `{ "$each": path, "value": ... }` maps a list (the element is
 * `item`), an object with `"$if": path` is kept only when that value is set; empty values, objects and
 * lists are left out, so an optional part (cc, html) simply does not appear.
 */
export function fillTemplate(template: unknown, scope: Record<string, unknown>, depth = 0): unknown {
  if (depth > MAX_TEMPLATE_DEPTH) throw new Error('provider template nested too deep');
  if (typeof template === 'string') {
    const whole = WHOLE.exec(template);
    if (whole) {
      const v = lookup(scope, whole[1]!);
      return isEmpty(v) ? undefined : v;
    }
    const out = template.replace(PLACEHOLDER, (_, p: string) => {
      const v = lookup(scope, p);
      return isEmpty(v) ? '' : String(v);
    });
    return out === '' ? undefined : out;
  }
  if (Array.isArray(template)) {
    const out = template.map((t) => fillTemplate(t, scope, depth + 1)).filter((v) => !isEmpty(v));
    return out.length ? out : undefined;
  }
  if (typeof template === 'object' && template !== null) {
    const t = template as Record<string, unknown>;
    if (typeof t.$each === 'string') {
      const list = lookup(scope, t.$each);
      if (!Array.isArray(list)) return undefined;
      const out = list.map((item) => fillTemplate(t.value, { ...scope, item }, depth + 1)).filter((v) => !isEmpty(v));
      return out.length ? out : undefined;
    }
    if (typeof t.$if === 'string' && isEmpty(lookup(scope, t.$if))) return undefined;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(t)) {
      if (k === '$if') continue;
      const filled = fillTemplate(v, scope, depth + 1);
      if (!isEmpty(filled)) out[k] = filled;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return template;
}

/** The installed HTTP mail providers, read once from their JSON files; a bad file stops the start naming it. */
export class ProviderCatalog {
  private readonly byId = new Map<string, MailProvider>();

  constructor(folders: string[]) {
    for (const folder of folders) {
      let names: string[];
      try {
        names = readdirSync(folder).filter((n) => n.endsWith('.json'));
      } catch {
        continue;
      }
      for (const name of names.sort()) {
        const file = path.join(folder, name);
        const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
        if (!Value.Check(ProviderFile, parsed)) {
          const first = [...Value.Errors(ProviderFile, parsed)][0];
          throw new Error(`mail provider file ${file}: ${first?.path ?? ''} ${first?.message ?? 'invalid'}`);
        }
        if (parsed.id === 'smtp') throw new Error(`mail provider file ${file}: the id smtp is the built-in SMTP`);
        if (!parsed.fields.some((f) => f.name === 'baseUrl' && f.type === 'url'))
          throw new Error(`mail provider file ${file}: needs a field baseUrl of type url`);
        this.byId.set(parsed.id, parsed);
      }
    }
  }

  list(): MailProvider[] {
    return [...this.byId.values()].sort((a, b) => a.id.localeCompare(b.id));
  }

  get(id: string): MailProvider | undefined {
    return this.byId.get(id);
  }
}

/**
 * Checks a `providerConfig` against the provider's fields: unknown fields, over-long values and bad
 * URLs are refused naming the field; secrets are split off (a blank one means "keep the stored one").
 */
export function splitProviderConfig(
  provider: MailProvider,
  input: Record<string, unknown>,
  storedSecrets: Record<string, string>,
): { plain: Record<string, string>; secrets: Record<string, string>; secretsChanged: boolean } {
  const plain: Record<string, string> = {};
  const secrets: Record<string, string> = {};
  let secretsChanged = false;
  const known = new Map(provider.fields.map((f) => [f.name, f]));
  for (const key of Object.keys(input)) {
    if (!known.has(key)) throw badRequest(`${provider.label} has no setting ${key}`, `providerConfig.${key}`);
  }
  for (const field of provider.fields) {
    const name = `providerConfig.${field.name}`;
    const raw = input[field.name];
    if (raw !== undefined && raw !== null && typeof raw !== 'string') throw badRequest(`${name} must be text`, name);
    const value = typeof raw === 'string' ? raw.trim() : '';
    if (value.length > 2000) throw badRequest(`${name} is longer than 2000 characters`, name);
    // Values go into request headers and bodies: a line break would split a header, and a key is plain ASCII.
    if (CONTROL.test(value)) throw badRequest(`${name} must be one line without control characters`, name);
    if (field.type === 'secret' && !PRINTABLE_ASCII.test(value))
      throw badRequest(`${name} must be printable ASCII (as API keys and tokens are)`, name);
    if (field.type === 'secret') {
      if (value) {
        secrets[field.name] = value;
        if (storedSecrets[field.name] !== value) secretsChanged = true;
      } else if (storedSecrets[field.name]) secrets[field.name] = storedSecrets[field.name]!;
      if (field.required && !secrets[field.name]) throw badRequest(`${name} is required`, name);
      continue;
    }
    const effective = value || field.default || '';
    if (field.required && !effective) throw badRequest(`${name} is required`, name);
    if (field.type === 'url' && effective) {
      let url: URL;
      try {
        url = new URL(effective);
      } catch {
        throw badRequest(`${name} is not a URL`, name);
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw badRequest(`${name} must be http(s)`, name);
      if (url.username || url.password)
        throw badRequest(`${name} must not hold credentials (user:password@); the key goes in its own field`, name);
    }
    if (value) plain[field.name] = value;
  }
  return { plain, secrets, secretsChanged };
}

/** The HTTP request that sends `message` through `provider` with its stored config and secrets. */
export function buildProviderRequest(
  provider: MailProvider,
  config: Record<string, string>,
  message: ProviderMessage,
): ProviderRequest {
  const values: Record<string, string> = {};
  for (const f of provider.fields) {
    const v = config[f.name] ?? f.default;
    if (v !== undefined) values[f.name] = v;
  }
  const scope = { ...message, toList: message.to.join(', '), ccList: message.cc.join(', '), config: values };
  const fill = (s: string) => String(fillTemplate(s, scope) ?? '');
  const base = (values.baseUrl ?? '').replace(/\/+$/, '');
  const urlPath = provider.request.path.replace(PLACEHOLDER, (_, p: string) =>
    encodeURIComponent(String(lookup(scope, p) ?? '')),
  );
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(provider.request.headers ?? {})) headers[k.toLowerCase()] = fill(v);
  const auth = provider.request.auth;
  if (auth.type === 'header') headers[auth.name.toLowerCase()] = fill(auth.value);
  else if (auth.type === 'bearer') headers.authorization = `Bearer ${fill(auth.token)}`;
  else
    headers.authorization = `Basic ${Buffer.from(`${fill(auth.username)}:${fill(auth.password)}`).toString('base64')}`;
  const filled = (fillTemplate(provider.request.body.template, scope) ?? {}) as Record<string, unknown>;
  let body: string;
  if (provider.request.body.type === 'json') {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(filled);
  } else {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(filled)) {
      for (const item of Array.isArray(v) ? v : [v])
        form.append(k, typeof item === 'string' ? item : JSON.stringify(item));
    }
    body = form.toString();
  }
  return { method: provider.request.method, url: `${base}${urlPath}`, headers, body };
}

/** A provider's message id or error text, read where its file says. */
export function readAnswer(
  where: Static<typeof Where> | undefined,
  headers: Record<string, string>,
  body: string,
): string | undefined {
  if (!where) return undefined;
  if ('header' in where) return headers[where.header.toLowerCase()];
  try {
    const v = lookup(JSON.parse(body) as Record<string, unknown>, where.body);
    return v === undefined || v === null ? undefined : String(v);
  } catch {
    return undefined;
  }
}
