import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { createKnex, type DatabaseHandle } from '../../../kernel/database.ts';
import { migrationSets } from '../../../kernel/kernel.ts';
import { discoverPlugins } from '../../../kernel/loader.ts';
import type { PluginManifest } from '../../../kernel/plugin.ts';
import type { Clock } from '../../../kernel/clock.ts';
import { createTestDatabase } from '../../../test/helpers/database.ts';
import { startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';

export const PLUGINS = ['data', 'client-api'];

export interface ClientKernelOptions {
  env?: Record<string, string>;
  extraPlugins?: PluginManifest[];
  clock?: Clock;
  /** A database shared with another kernel (the caller closes it). */
  database?: DatabaseHandle;
}

/** A database migrated for the data and client-api plugins, for several kernels at once. */
export async function sharedDatabase(): Promise<DatabaseHandle> {
  const all = await discoverPlugins();
  const handle = await createTestDatabase({ migrations: migrationSets(all.filter((p) => PLUGINS.includes(p.id))) });
  return handle;
}

/** A second handle on the same database: each kernel closes its own pool. */
export function sameDatabase(handle: DatabaseHandle): DatabaseHandle {
  const db = createKnex(handle.url, 5);
  return { db, url: handle.url, close: () => db.destroy() };
}

/**
 * A kernel with the data and client-api plugins (plus fixtures), an administrator, helpers to make
 * API clients through the admin API and to call /client/v1 with a key or token, and every `object`
 * record change collected in `changes`.
 */
export async function startClientKernel(opts: ClientKernelOptions = {}) {
  const t = await startTestKernel({
    plugins: PLUGINS,
    extraPlugins: opts.extraPlugins,
    env: opts.env,
    clock: opts.clock,
    database: opts.database,
  });
  const admin = await t.admin();
  const changes = t.recordChanges('object');

  const asAdmin = (method: string, url: string, body?: unknown) => t.call(method, url, admin, body);

  /** Creates a client through the admin API; `key` is the first key for a key client. */
  const createClient = async (
    body: Record<string, unknown>,
  ): Promise<{ id: string; key: string; body: Record<string, unknown> }> => {
    const res = await asAdmin('POST', '/api/v1/gateway/clients', {
      name: `client-${Math.random().toString(36).slice(2, 8)}`,
      authMode: 'key',
      ...body,
    });
    if (res.statusCode !== 201) throw new Error(`client create failed: ${res.statusCode} ${res.body}`);
    const json = res.json();
    return { id: json.id, key: json.key, body: json };
  };

  /** A call to /client/v1 with a key (Authorization: Bearer) unless headers say otherwise. */
  const asClient = (
    key: string | null,
    method: string,
    url: string,
    extra: Partial<InjectOptions> = {},
  ): Promise<LightMyRequestResponse> =>
    t.inject({
      method: method as 'GET',
      url,
      ...extra,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(extra.headers ?? {}) },
    });

  let n = 0;
  const createClass = async (fields: unknown[]): Promise<string> => {
    const name = `Cls${Date.now().toString(36)}${n++}`;
    const res = await asAdmin('POST', '/data-classes', { name, label: name, fields });
    if (res.statusCode !== 201) throw new Error(`class create failed: ${res.body}`);
    return name;
  };
  const createObject = async (
    className: string,
    attributes: Record<string, unknown>,
    published: boolean,
    key?: string,
  ): Promise<string> => {
    const res = await asAdmin('POST', '/data-objects', { className, attributes, published, key });
    if (res.statusCode !== 201) throw new Error(`object create failed: ${res.body}`);
    return res.json().id;
  };

  return { t, admin, changes, asAdmin, asClient, createClient, createClass, createObject, close: () => t.close() };
}

export type ClientKernel = Awaited<ReturnType<typeof startClientKernel>>;
export type { TestKernel };
