import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { pino } from 'pino';
import { ManualClock, type Clock } from '../../kernel/clock.ts';
import { loadKernelConfig, type ServiceName } from '../../kernel/config.ts';
import type { DatabaseHandle, Db } from '../../kernel/database.ts';
import { createKernel, migrationSets, resolvePluginSet, type Kernel, type KernelOptions } from '../../kernel/kernel.ts';
import type { MigrationSet } from '../../kernel/migrations.ts';
import { openProcessLog } from '../../kernel/log-files.ts';
import { discoverPlugins, PROJECT_ROOT } from '../../kernel/loader.ts';
import type { MailMessage } from '../../kernel/mail.ts';
import type { PluginManifest } from '../../kernel/plugin.ts';
import type { RecordChange } from '../../kernel/record-hooks.ts';
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
  /** The kernel's clock; by default a `ManualClock` (wall time until the test advances it). */
  clock?: Clock;
  jobs?: boolean;
  /** A data folder of its own (CMS_DATA_DIR: stored files), removed on close; else the run's shared one. */
  ownDataDir?: boolean;
  /** A database the test prepared itself (e.g. migrated part way); closed with the kernel. */
  database?: DatabaseHandle;
}

/** A user with a ready session: `cookie` goes in a Cookie header as it is. */
export interface TestUser {
  id: string;
  email: string;
  password: string;
  cookie: string;
}

/**
 * The test harness: one kernel on its own database, with users and sessions, the clock it reads and
 * HTTP helpers. Plugin fixtures (`plugins/<id>/test/*-kernel.ts`) build on it.
 */
export interface TestKernel {
  kernel: Kernel;
  db: Db;
  /** CMS_DATA_DIR of this kernel. */
  dataDir: string;
  /** The clock the kernel reads: the one given, or a `ManualClock` (see `advanceClock`). */
  clock: Clock;
  /** Moves the kernel's clock forward; only for a `ManualClock` (the default). */
  advanceClock(ms: number): Promise<void>;
  inject(opts: InjectOptions): Promise<LightMyRequestResponse>;
  /** A request as `user` (its session cookie) or anonymous (`null`), with a JSON body. */
  call(
    method: string,
    url: string,
    user: Pick<TestUser, 'cookie'> | null,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  /** Creates a user with these roles (created on the fly from permission keys when `permissions` is given). */
  createUser(opts: { email?: string; password?: string; roles?: string[]; permissions?: string[] }): Promise<TestUser>;
  /** One user per name, each with the permission keys given (`{ reader: ['objects:read'] }`). */
  users<Name extends string>(permissions: Record<Name, string[]>): Promise<Record<Name, TestUser>>;
  /** A signed-in administrator (role admin), the same one on every call. */
  admin(): Promise<TestUser>;
  /** Another session of this user: a fresh `cms_session=<token>` cookie. */
  newSession(userId: string): Promise<string>;
  /** Every record change of this type announced from now on (the array fills as they come). */
  recordChanges(recordType: string): RecordChange[];
  /** A plugin's own services (`setup`'s result). */
  services<T>(pluginId: string): T;
  /** Runs a plugin's job now with the context the scheduler would give it. */
  runJob(pluginId: string, jobName: string): Promise<void>;
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
  let plugins: PluginManifest[] | undefined;
  if (opts.plugins) {
    const all = await discoverPlugins();
    plugins = opts.plugins.map((id) => {
      const p = all.find((x) => x.id === id);
      if (!p) throw new Error(`no plugin "${id}"`);
      return p;
    });
  }
  const ownDataDir = opts.ownDataDir ? await fs.mkdtemp(path.join(os.tmpdir(), 'cms-test-')) : undefined;
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    CMS_DATA_DIR: ownDataDir ?? path.join(PROJECT_ROOT, '.test-data', 'data'),
    ...opts.env,
  };
  const removeDataDir = () => (ownDataDir ? fs.rm(ownDataDir, { recursive: true, force: true }) : undefined);
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
  const clock = opts.clock ?? new ManualClock();
  // With LOG_DIR the process log as `cms start` opens it (files and all); else a plain logger.
  const processLog = env.LOG_DIR
    ? await openProcessLog(loadKernelConfig(env), selection.service, { stdout: false })
    : undefined;
  const kernel = await createKernel({
    ...selection,
    env,
    database,
    clock,
    logger: processLog?.logger ?? pino({ level: env.LOG_LEVEL }),
    logFiles: processLog?.files,
    jobs: opts.jobs ?? false,
  }).catch(async (err) => {
    await processLog?.files.close();
    await database.close();
    await removeDataDir();
    throw err;
  });
  const newSession = async (userId: string) =>
    `${SESSION_COOKIE}=${(await kernel.resolve('sessions').create(userId, {})).token}`;
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
    return { id, email, password, cookie: await newSession(id) };
  };
  let adminUser: Promise<TestUser> | undefined;
  return {
    kernel,
    db: database.db,
    dataDir: env.CMS_DATA_DIR,
    clock,
    async advanceClock(ms) {
      if (!(clock instanceof ManualClock)) throw new Error('advanceClock needs a ManualClock');
      clock.advance(ms);
      // The job engine compares due times with the database's clock: what waits comes due as the
      // kernel's clock says, so its due times move back by as much; what runs has run that much longer
      // (a claimed job's lease runs out by the kernel's clock).
      await database.db.raw(
        `UPDATE pgboss.job SET start_after = start_after - make_interval(secs => ?) WHERE state < 'active'`,
        [ms / 1000],
      );
      await database.db.raw(
        `UPDATE pgboss.job SET started_on = started_on - make_interval(secs => ?) WHERE state = 'active'`,
        [ms / 1000],
      );
      kernel.resolve('jobs').wake();
    },
    inject: (o) => kernel.app.inject(o),
    call: (method, url, user, body, headers = {}) =>
      kernel.app.inject({
        method: method as 'GET',
        url,
        payload: body as object,
        headers: { ...(user ? { cookie: user.cookie } : {}), ...headers },
      }),
    createUser,
    async users(permissions) {
      // One after the other, in the order given (as a test creating them itself would).
      const users: Record<string, TestUser> = {};
      for (const [name, keys] of Object.entries<string[]>(permissions))
        users[name] = await createUser({ permissions: keys });
      return users as Record<keyof typeof permissions, TestUser>;
    },
    admin: () => (adminUser ??= createUser({ roles: ['admin'] })),
    newSession,
    recordChanges(recordType) {
      const changes: RecordChange[] = [];
      kernel.resolve('recordHooks').subscribe(recordType, (change) => void changes.push(change));
      return changes;
    },
    services: <T>(pluginId: string) => kernel.pluginDeps(pluginId).services as T,
    runJob: (pluginId, jobName) => kernel.runJob(pluginId, jobName),
    async close() {
      await kernel.close();
      await processLog?.files.close();
      await database.close();
      await removeDataDir();
    },
  };
}

/**
 * Polls `check` until it passes: returns what it returned once it neither throws nor returns `false`.
 * After `timeoutMs` it throws the last error (or says that `what` did not happen). For something the
 * code does on its own timer or in another process; when a test can run the work itself (`runJob`)
 * or await a promise the code resolves, it does that instead.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  {
    timeoutMs = 5_000,
    intervalMs = 20,
    what = 'the condition',
  }: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<Exclude<T, false>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let failure: unknown;
    try {
      const result = await check();
      if (result !== false) return result as Exclude<T, false>;
      failure = new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    } catch (err) {
      failure = err;
    }
    if (Date.now() >= deadline) throw failure;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Waits until a query on this database is blocked on a lock another transaction holds: the positive
 * sign that a request has reached the point where it waits for that transaction.
 */
export function blockedOnLock(db: Db, timeoutMs = 5_000): Promise<true> {
  return eventually(
    async () => {
      const { rows } = await db.raw(
        "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
      );
      return rows[0].n > 0;
    },
    { timeoutMs, what: 'a query waiting for a lock' },
  );
}

/** The raw Set-Cookie header for `cms_session`, if the answer set one. */
export function sessionSetCookie(res: LightMyRequestResponse): string | undefined {
  const header = res.headers['set-cookie'];
  const all = Array.isArray(header) ? header : header ? [header] : [];
  return all.find((c) => c.startsWith(`${SESSION_COOKIE}=`));
}

/** `cms_session=<token>` from an answer, ready for a Cookie header. */
export function cookieOf(res: LightMyRequestResponse): string {
  const raw = sessionSetCookie(res);
  if (!raw) throw new Error(`no session cookie in answer ${res.statusCode} ${res.body}`);
  return raw.split(';')[0];
}

/** Collects the mails the kernel's mail port sends. */
export function mailbox(t: TestKernel) {
  const messages: MailMessage[] = [];
  const waiters: Array<(m: MailMessage) => void> = [];
  const stop = t.kernel.resolve('mail').onSent((m) => {
    messages.push(m);
    for (const w of waiters.splice(0)) w(m);
  });
  return {
    messages,
    stop,
    /** The next mail sent to `to` (or already received since `from`), failing after `timeoutMs`. */
    async next(to: string, timeoutMs = 2000): Promise<MailMessage> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.find((m) => m.to === to);
        if (found) {
          messages.splice(messages.indexOf(found), 1);
          return found;
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
  };
}

/** The audit rows of one action (and target), oldest first. */
export function auditRows(t: TestKernel, action: string, targetId?: string) {
  const q = t.db('audit_log').where({ action }).orderBy('id');
  if (targetId) void q.andWhere({ target_id: targetId });
  return q.select('*');
}
