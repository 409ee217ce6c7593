import path from 'node:path';
import { ConfigError } from '../kernel/config.ts';
import { connectDatabase, databasePasswordProblem, openDatabaseUrl, type DatabaseOpener } from '../kernel/database.ts';
import { ensureEmbeddedAppRole } from '../kernel/database-roles.ts';
import { startEmbeddedPostgres } from './embedded-postgres.ts';

const EMBEDDED_APP_ROLE = 'cms_app';

/**
 * Opens the database of DATABASE_URL or, when unset, of the embedded cluster under CMS_DATA_DIR: the
 * one a running process (a server next to this command) already serves, or one started here and
 * stopped again by `close()`. Every command of the runtime opens its database here; the kernel gets
 * this function as its `openDatabase` and never knows about the cluster.
 */
export const openDatabase: DatabaseOpener = async (config, logger) => {
  // The production guard comes first: the embedded default is for development and test only.
  const problem = databasePasswordProblem(config);
  if (problem) throw new ConfigError(problem);
  if (config.DATABASE_URL) return openDatabaseUrl(config, logger);
  const cluster = await startEmbeddedPostgres({
    dir: path.join(config.CMS_DATA_DIR, 'postgres'),
    port: config.EMBEDDED_PG_PORT,
    logger,
  });
  let ownerUrl: string;
  let url: URL;
  try {
    await cluster.ensureDatabase('cms');
    // The superuser owns the schema and migrates; the processes connect as an unprivileged role.
    ownerUrl = cluster.urlFor('cms');
    const appPassword = await ensureEmbeddedAppRole(
      cluster.urlFor('postgres'),
      path.join(config.CMS_DATA_DIR, 'postgres', 'pg-app-password'),
      EMBEDDED_APP_ROLE,
    );
    url = new URL(ownerUrl);
    url.username = EMBEDDED_APP_ROLE;
    url.password = encodeURIComponent(appPassword);
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  logger.info(
    { port: cluster.port, attached: cluster.attached },
    'using embedded PostgreSQL (set DATABASE_URL to use your own)',
  );
  return connectDatabase(url.toString(), {
    ownerUrl,
    poolMax: config.DATABASE_POOL_MAX,
    logger,
    afterClose: () => cluster.stop(),
  });
};
