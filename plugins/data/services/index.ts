import { FieldIndexBuilds } from '../store/field-index-builds.ts';
import { ObjectLocator } from '../store/object-registry.ts';
import { BatchService } from './batch-service.ts';
import { BulkService } from './bulk-service.ts';
import { ClassService } from './class-service.ts';
import { ComponentService } from './component-service.ts';
import type { DataKernelDeps, DataServiceDeps } from './deps.ts';
import { ObjectReadService } from './object-read-service.ts';
import { ObjectService } from './object-service.ts';
import { PreviewService } from './preview-service.ts';
import { PublicRateLimit } from './public-rate-limit.ts';
import { QueryService } from './query-service.ts';
import { SchemaCache } from './schema-cache.ts';
import { WorkflowService } from './workflow-service.ts';

/**
 * The plugin's services, built once per process by the manifest's `setup`: routes, jobs and what the
 * plugin provides share these instances (one schema cache, one rate limiter).
 */
export function createDataServices(kernel: DataKernelDeps) {
  const locator = new ObjectLocator();
  const indexBuilds = new FieldIndexBuilds({ db: kernel.db, log: kernel.log });
  const deps: DataServiceDeps = { kernel, schema: new SchemaCache(kernel.db), locator, indexBuilds };
  const objects = new ObjectService(deps);
  return {
    classes: new ClassService(deps),
    components: new ComponentService(deps),
    objects,
    reads: new ObjectReadService(deps),
    bulk: new BulkService(deps),
    batch: new BatchService(deps, objects),
    query: new QueryService(deps),
    workflows: new WorkflowService({ ...kernel, locator }),
    previews: new PreviewService({ ...kernel, locator }),
    indexBuilds,
    publicCacheControl: kernel.pluginConfig.PUBLIC_DATA_CACHE_CONTROL,
    publicRateLimit: new PublicRateLimit(kernel.pluginConfig.PUBLIC_DATA_RATE_LIMIT_PER_MINUTE, () => kernel.clock.now().getTime()),
  };
}

export type DataServices = ReturnType<typeof createDataServices>;
