import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { pino } from 'pino';
import type { Clock } from '../../kernel/clock.ts';
import { loadKernelConfig, type ServiceName } from '../../kernel/config.ts';
import type { DatabaseHandle, Db } from '../../kernel/database.ts';
import { createKernel, migrationSets, resolvePluginSet, type Kernel, type KernelOptions } from '../../kernel/kernel.ts';
import type { MigrationSet } from '../../kernel/migrations.ts';
import { discoverPlugins, PROJECT_ROOT } from '../../kernel/loader.ts';
import type { PluginManifest } from '../../kernel/plugin.ts';
import { SESSION_COOKIE } from '../../kernel/sessions.ts';
import { createTestDatabase } from './database.ts';

export interface TestKernelOptions {
  service?: ServiceName | 'all';
  /** Plugin ids to load (default: the service's own set from the plugins folder). */
  plugins?: string[];
  extraPlugins?: PluginManifest[];
  env?: Record<string, string>;
  /** Start on an empty database (migrations run by the kernel itself). */
  fresh?: boolean;
  clock?: Clock;
  jobs?: boolean;
  /** A database the test prepared itself (e.g. migrated part way); closed with the kernel. */
  database?: DatabaseHandle;
}

export interface TestKernel {
  kernel: Kernel;
  db: Db;
  inject(opts: InjectOptions): Promise<LightMyRequestResponse>;
  /** Creates a user with these roles (created on the fly from permission keys when `permissions` is given). */
  createUser(opts: {
    email?: string;
    password?: string;
    roles?: string[];
    permissions?: string[];
  }): Promise<{ id: string; email: string; password: string; cookie: string }>;
  /** A signed-in administrator (role admin). */
  admin(): Promise<{ id: string; email: string; password: string; cookie: string }>;
  close(): Promise<void>;
}

/**
 * The migrations of exactly the plugin set this kernel will load, as the kernel resolves it. When
 * that fails the kernel start fails too, with its own message; any template does until then.
 */
async function migrationsOf(
  selection: Pick<KernelOptions, 'service' | 'plugins' | 'extraPlugins'>,
  env: Record<string, string>,
): Promise<MigrationSet[] | undefined> {
  try {
    return migrationSets(await resolvePluginSet(selection, loadKernelConfig(env)));
  } catch {
    return undefined;
  }
}

/**
 * Boots a kernel with a chosen plugin set on its own database, migrated with exactly that set's
 * migrations (or empty with `fresh`); no port is opened.
 */
export async function startTestKernel(opts: TestKernelOptions = {}): Promise<TestKernel> {
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    CMS_DATA_DIR: path.join(PROJECT_ROOT, '.test-data', 'data'),
    ...opts.env,
  };
  let plugins: PluginManifest[] | undefined;
  if (opts.plugins) {
    const all = await discoverPlugins();
    plugins = opts.plugins.map((id) => {
      const p = all.find((x) => x.id === id);
      if (!p) throw new Error(`no plugin "${id}"`);
      return p;
    });
  }
  const selection = {
    service: opts.plugins ? 'all' : (opts.service ?? 'all'),
    plugins,
    extraPlugins: opts.extraPlugins,
  } as const;
  const database =
    opts.database ??
    (await createTestDatabase({
      fresh: opts.fresh,
      migrations: opts.fresh ? undefined : await migrationsOf(selection, env),
    }));
  const kernel = await createKernel({
    ...selection,
    env,
    database,
    clock: opts.clock,
    logger: pino({ level: env.LOG_LEVEL }),
    jobs: opts.jobs ?? false,
  }).catch(async (err) => {
    await database.close();
    throw err;
  });
  let adminUser: Awaited<ReturnType<TestKernel['createUser']>> | undefined;
  const createUser: TestKernel['createUser'] = async (u) => {
    const email = u.email ?? `user-${randomBytes(4).toString('hex')}@example.test`;
    const password = u.password ?? `pw-${randomBytes(8).toString('hex')}`;
    const roles = [...(u.roles ?? [])];
    if (u.permissions) {
      const name = `role-${randomBytes(4).toString('hex')}`;
      await database.db('roles').insert({ name, permissions: u.permissions });
      roles.push(name);
    }
    const { id } = await kernel.resolve('users').create({ email, password, roles, displayName: email });
    const session = await kernel.resolve('sessions').create(id, {});
    return { id, email, password, cookie: `${SESSION_COOKIE}=${session.token}` };
  };
  return {
    kernel,
    db: database.db,
    inject: (o) => kernel.app.inject(o),
    createUser,
    admin: async () => (adminUser ??= await createUser({ roles: ['admin'] })),
    async close() {
      await kernel.close();
      await database.close();
    },
  };
}
