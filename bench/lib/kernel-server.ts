import { pino } from 'pino';
import { createKnex } from '../../kernel/database.ts';
import { createKernel, type Kernel } from '../../kernel/kernel.ts';
import { discoverPlugins } from '../../kernel/loader.ts';
import type { AnyPluginManifest } from '../../kernel/plugin.ts';
import { SESSION_COOKIE } from '../../kernel/sessions.ts';
import { portOf } from './child-server.ts';

export interface BenchKernel {
  kernel: Kernel;
  port: number;
  /** A new administrator's session cookie (`cms_session=...`). */
  adminCookie(): Promise<string>;
  /** Closes the kernel and its database pool. */
  stop(): Promise<void>;
}

/**
 * A benchmark's product server: the real kernel with the named plugins (all-in-one, production mode,
 * silent, jobs off) on the database the parent passes in BENCH_DATABASE_URL, listening on a free
 * loopback port. `env` adds to or overrides the defaults (e.g. a rate limit out of the way).
 */
export async function startBenchKernel(opts: {
  file: string;
  parent: string;
  plugins: readonly string[];
  env?: Record<string, string>;
  extraPlugins?: AnyPluginManifest[];
  pool?: number;
}): Promise<BenchKernel> {
  const url = process.env.BENCH_DATABASE_URL;
  if (!url || !process.send) throw new Error(`${opts.file} runs as a child of ${opts.parent}`);
  const pool = opts.pool ?? 10;
  const db = createKnex(url, pool);
  const kernel = await createKernel({
    service: 'all',
    env: {
      NODE_ENV: 'production',
      LOG_LEVEL: 'silent',
      HOST: '127.0.0.1',
      CMS_DATA_DIR: process.env.BENCH_DATA_DIR ?? '.bench-data',
      DATABASE_POOL_MAX: String(pool),
      ...opts.env,
    },
    plugins: (await discoverPlugins()).filter((p) => opts.plugins.includes(p.id)),
    extraPlugins: opts.extraPlugins,
    database: { db, url, close: () => db.destroy() },
    logger: pino({ level: 'silent' }),
    jobs: false,
  });
  await kernel.listen(0);
  return {
    kernel,
    port: portOf(kernel.app.server),
    async adminCookie() {
      const { id } = await kernel.resolve('users').create({
        email: `bench-${process.pid}@example.test`,
        password: `bench-${process.pid}-pw-long`,
        roles: ['admin'],
      });
      return `${SESSION_COOKIE}=${(await kernel.resolve('sessions').create(id, {})).token}`;
    },
    async stop() {
      await kernel.close();
      await db.destroy();
    },
  };
}
