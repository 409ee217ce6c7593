import type { PluginContributions } from '../../../kernel/index.ts';
import { DataSubjectRequests } from './requests.ts';

/** The plugin's services: the request handling over the registry it collects (read on each request). */
export function createDataSubjectServices(deps: {
  dataSubjectSources: readonly PluginContributions['dataSubjectSources'][];
}) {
  return { requests: new DataSubjectRequests(() => deps.dataSubjectSources) };
}

export type DataSubjectServices = ReturnType<typeof createDataSubjectServices>;
