import { definePlugin } from '../../kernel/index.ts';
import { DataSubjectConfig } from './config.ts';
import { DATA_SUBJECT_PERMISSIONS } from './permissions.ts';
import type {} from './ports.ts';
import { dataSubjectRoutes } from './routes/requests.ts';
import { createDataSubjectServices } from './services/index.ts';

/**
 * Data-subject requests on core-api (`/data-subject/search|export|erase`, permission
 * `data_subject:manage`): what the installation holds about a person, found by a whole value such as
 * an e-mail address, exported as one JSON download and erased (a dry run unless asked otherwise). It
 * owns the registry `dataSubjectSources` (item type in ports.ts): the data plugin contributes objects,
 * assets files, mail the mail log, identity staff accounts (reported only). It stores nothing.
 */
export default definePlugin({
  id: 'data-subject',
  processes: ['core-api'],
  needs: ['db', 'audit', 'clock', 'secretBox', 'dataSubjectSources'],
  collects: ['dataSubjectSources'],
  permissions: DATA_SUBJECT_PERMISSIONS,
  config: DataSubjectConfig,
  setup: createDataSubjectServices,
  routes: dataSubjectRoutes,
});
