import { ConfigError, loadKernelConfig, SERVICE_NAMES, type ServiceName } from '../kernel/config.ts';
import type { DatabaseHandle } from '../kernel/database.ts';
import type { Kernel } from '../kernel/kernel.ts';
import { openProcessLog } from '../kernel/log-files.ts';
import { bootstrapFirstAdmin } from './bootstrap.ts';
import { openDatabase } from './database.ts';

/**
 * Builds the kernel of one process the way `cms start` runs it: its database from DATABASE_URL or the
 * embedded cluster, and the first administrator created after the migrations of a first start.
 *
 * The database is opened first and the kernel (with every plugin and its dependencies) is imported
 * while it opens: starting the embedded cluster is another process's work, so the two overlap instead
 * of adding up. The kernel owns the handle from then on; a start that fails before handing it over
 * closes it here.
 */
async function createProcessKernel(service: ServiceName | 'all'): Promise<Kernel> {
  if (service !== 'all' && !SERVICE_NAMES.includes(service))
    throw new ConfigError(`unknown service "${service}"; one of ${SERVICE_NAMES.join(', ')}`);
  const config = loadKernelConfig(process.env);
  const { logger, files: logFiles } = await openProcessLog(config, service);
  const opening = openDatabase(config, logger);
  opening.catch(() => undefined); // whoever awaits it sees the failure; it is never left unhandled
  let handedOver = false;
  try {
    const { createKernel } = await import('../kernel/kernel.ts');
    return await createKernel({
      service,
      logger,
      logFiles,
      openDatabase: (): Promise<DatabaseHandle> => {
        handedOver = true;
        return opening;
      },
      afterMigrations: ({ users, config, logger }) => bootstrapFirstAdmin({ users, config, logger }),
    });
  } catch (err) {
    if (!handedOver) await opening.then((database) => database.close()).catch(() => undefined);
    throw err;
  }
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
