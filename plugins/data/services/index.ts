import { BatchService } from './batch-service.ts';
import { BulkService } from './bulk-service.ts';
import { ClassService } from './class-service.ts';
import { ComponentService } from './component-service.ts';
import { dataSettingsOf, type DataKernelDeps, type DataServiceDeps } from './deps.ts';
import { ObjectReadService } from './object-read-service.ts';
import { ObjectService } from './object-service.ts';
import { PublicRateLimit } from './public-rate-limit.ts';
import { QueryService } from './query-service.ts';
import { SchemaCache } from './schema-cache.ts';

/** The services behind this plugin's routes, built once per process from the plugin's deps. */
export function createDataServices(kernel: DataKernelDeps) {
  const deps: DataServiceDeps = { kernel, schema: new SchemaCache(kernel.db), settings: dataSettingsOf(kernel.pluginConfig) };
  const objects = new ObjectService(deps);
  return {
    classes: new ClassService(deps),
    components: new ComponentService(deps),
    objects,
    reads: new ObjectReadService(deps),
    bulk: new BulkService(deps),
    batch: new BatchService(deps, objects),
    query: new QueryService(deps),
    publicRateLimit: new PublicRateLimit(deps.settings.publicRateLimitPerMinute),
  };
}

export type DataServices = ReturnType<typeof createDataServices>;
