import { definePlugin } from '../../kernel/index.ts';
import { SystemLogsConfig } from './config.ts';
import { SYSTEM_LOGS_PERMISSIONS } from './permissions.ts';
import { logRoutes } from './routes/logs.ts';
import { segmentRoutes, storeReadRoutes } from './routes/store.ts';
import { createSystemLogs } from './services/index.ts';

/**
 * The system logs: every process's log files (written by the kernel's logger when LOG_DIR is set),
 * their storage on the asset-processor, which core-api and the gateway ship theirs to in the split
 * deployment (LOG_STORE_URL), and the tail and download core-api serves (`/api/v1/system/logs`).
 * Which of these a process mounts follows from which process it is: core-api reads (and passes the
 * gateway's files on), the asset-processor stores, all-in-one does both; the gateway only ships.
 */
export default definePlugin({
  id: 'system-logs',
  processes: ['core-api', 'asset-processor', 'gateway'],
  needs: ['logFiles', 'config', 'clock'],
  permissions: SYSTEM_LOGS_PERMISSIONS,
  config: SystemLogsConfig,
  setup: ({ logFiles, config, pluginConfig }) => createSystemLogs({ logFiles, config, settings: pluginConfig }),
  async routes(app, { services, clock }) {
    const source = services.logFiles.source;
    if (source === 'core-api' || source === 'all-in-one') await logRoutes(app, services, () => clock.now());
    if (source === 'asset-processor' || source === 'all-in-one') {
      await segmentRoutes(app, services);
      await storeReadRoutes(app, services);
    } else if (source === 'core-api' && services.segments) await segmentRoutes(app, services); // the gateway's way in
  },
  // A timer of each process, not a schedule: every process ships the lines of its own log files, so
  // every process must run it (a schedule would run in one process of the cluster).
  jobs: [
    // core-api and the gateway with LOG_STORE_URL: new lines reach the store within about 30 s.
    {
      name: 'ship',
      firstRunAfterMs: 5_000,
      intervalMs: 30_000,
      run: async ({ services }) => services.shipper?.ship(),
    },
  ],
});
