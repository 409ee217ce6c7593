import { ConfigError, SERVICE_NAMES, type ServiceName } from '../kernel/config.ts';
import { createKernel, type Kernel } from '../kernel/kernel.ts';
import { bootstrapFirstAdmin } from './bootstrap.ts';
import { openDatabase } from './database.ts';

/**
 * Builds the kernel of one process the way `cms start` runs it: its database from DATABASE_URL or the
 * embedded cluster, and the first administrator created after the migrations of a first start.
 */
export async function createProcessKernel(service: ServiceName | 'all'): Promise<Kernel> {
  if (service !== 'all' && !SERVICE_NAMES.includes(service))
    throw new ConfigError(`unknown service "${service}"; one of ${SERVICE_NAMES.join(', ')}`);
  return createKernel({
    service,
    openDatabase,
    afterMigrations: ({ users, config, logger }) => bootstrapFirstAdmin({ users, config, logger }),
  });
}

/** `cms start`: builds the process, listens, and stops cleanly on SIGTERM or SIGINT. */
export async function startProcess(service: ServiceName | 'all'): Promise<void> {
  const started = Date.now();
  const kernel = await createProcessKernel(service);
  const address = await kernel.listen();
  kernel.app.log.info(
    { service, address, plugins: kernel.plugins.map((p) => p.id), startMs: Date.now() - started },
    'listening',
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    kernel.app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    await kernel.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
