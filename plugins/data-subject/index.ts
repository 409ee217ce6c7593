import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../kernel/index.ts';
import { DataSubjectConfig } from './config.ts';
import { DATA_SUBJECT_PERMISSIONS } from './permissions.ts';
import type {} from './ports.ts';
import { dataSubjectRoutes, DATA_SUBJECT_PREFIX } from './routes/requests.ts';
import { createDataSubjectServices } from './services/index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Data-subject requests on core-api (`/data-subject/search|export|erase`, permission
 * `data_subject:manage`): what the installation holds about a person, found by a whole value such as
 * an e-mail address, exported as one JSON download and erased (a dry run unless asked otherwise). It
 * owns the registry `dataSubjectSources` (item type in ports.ts): the data plugin contributes objects,
 * assets files, mail the mail log, identity staff accounts (reported only), and `assetReferences`
 * (who else uses a file before an erase removes it). It stores one row per real erase run.
 */
export default definePlugin({
  id: 'data-subject',
  processes: ['core-api'],
  needs: ['db', 'audit', 'clock', 'secretBox', 'dataSubjectSources', 'assetReferences'],
  collects: ['dataSubjectSources', 'assetReferences'],
  permissions: DATA_SUBJECT_PERMISSIONS,
  config: DataSubjectConfig,
  // The profile blocks every data subject route, declared or not (the specification's point 6).
  sandbox: { blockedPaths: [DATA_SUBJECT_PREFIX] },
  // Real erases from before their first deletion (services/erase-runs.ts): the only thing it stores.
  migrations: path.join(here, 'migrations'),
  setup: createDataSubjectServices,
  routes: dataSubjectRoutes,
});
