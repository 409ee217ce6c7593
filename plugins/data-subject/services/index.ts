import type { AuditWriter, Clock, Db, PluginContributions } from '../../../kernel/index.ts';
import { EraseLock } from '../store/erase-lock.ts';
import { EraseRuns } from './erase-runs.ts';
import { DataSubjectRequests } from './requests.ts';

/** The plugin's services: the request handling over the registry it collects (read on each request). */
export function createDataSubjectServices(deps: {
  db: Db;
  audit: AuditWriter;
  clock: Clock;
  dataSubjectSources: readonly PluginContributions['dataSubjectSources'][];
  assetReferences: readonly PluginContributions['assetReferences'][];
}) {
  return {
    requests: new DataSubjectRequests(
      () => deps.dataSubjectSources,
      () => deps.assetReferences,
    ),
    eraseLock: new EraseLock(deps.db),
    eraseRuns: new EraseRuns(deps),
  };
}

export type DataSubjectServices = ReturnType<typeof createDataSubjectServices>;
