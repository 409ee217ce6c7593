import type { Db, PluginContributions } from '../../../kernel/index.ts';
import { EraseLock } from './erase-lock.ts';
import { DataSubjectRequests } from './requests.ts';

/** The plugin's services: the request handling over the registry it collects (read on each request). */
export function createDataSubjectServices(deps: {
  db: Db;
  dataSubjectSources: readonly PluginContributions['dataSubjectSources'][];
}) {
  return { requests: new DataSubjectRequests(() => deps.dataSubjectSources), eraseLock: new EraseLock(deps.db) };
}

export type DataSubjectServices = ReturnType<typeof createDataSubjectServices>;
