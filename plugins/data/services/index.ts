import type { RouteRateLimit } from '../../../kernel/index.ts';
import { ObjectLocator } from '../store/object-registry.ts';
import { BatchService } from './batch-service.ts';
import { BulkLoads } from './bulk-loads.ts';
import { BulkService } from './bulk-service.ts';
import { ClassService } from './class-service.ts';
import { ComponentService } from './component-service.ts';
import { DraftService } from './drafts.ts';
import { IndexBuilds } from './index-builds.ts';
import { ImportWrites } from './import-writes.ts';
import type { DataKernelDeps, DataServiceDeps } from './deps.ts';
import { ObjectReadService } from './object-read-service.ts';
import { ObjectService } from './object-service.ts';
import { PreparedReads } from '../store/prepared-reads.ts';
import { PreviewService } from './preview-service.ts';
import { PublicReadCache } from './public-read-cache.ts';
import { PublicReadService } from './public-read-service.ts';
import { QueryService } from './query-service.ts';
import { ScheduleService } from './schedules.ts';
import { ReadCacheNotices } from './read-cache-notices.ts';
import { SchemaCache } from './schema-cache.ts';
import { WorkflowService } from './workflow-service.ts';

/**
 * The plugin's services, built once per process by the manifest's `setup`: routes, jobs and what the
 * plugin provides share these instances (one schema cache, one read cache).
 */
export function createDataServices(kernel: DataKernelDeps) {
  const locator = new ObjectLocator();
  const indexBuilds = new IndexBuilds(kernel.jobs);
  const schema = new SchemaCache(kernel.db);
  const readCache = new PublicReadCache(kernel.pluginConfig.PUBLIC_DATA_READ_CACHE_BYTES);
  const changes = new ReadCacheNotices({
    db: kernel.db,
    log: kernel.log,
    cache: readCache,
    schema,
    replica: kernel.readReplica,
  });
  const deps: DataServiceDeps = { kernel, schema, locator, indexBuilds, changes };
  const objects = new ObjectService(deps);
  const query = new QueryService(deps);
  const drafts = new DraftService(deps, objects);
  const schedules = new ScheduleService(deps, objects, drafts);
  return {
    classes: new ClassService(deps),
    components: new ComponentService(deps),
    objects,
    drafts,
    schedules,
    reads: new ObjectReadService(deps),
    bulk: new BulkService(deps, objects),
    imports: new ImportWrites(deps, objects),
    bulkLoads: new BulkLoads(deps),
    batch: new BatchService(deps, objects, drafts),
    query,
    /** Class definitions kept in memory (the provided `dataObjects.classById` reads them). */
    schema,
    // Public reads come from the replica when there is one (DATABASE_READ_URL); the rest from the primary.
    publicReads: new PublicReadService(deps, query, readCache, new PreparedReads(kernel.readDb), kernel.readDb),
    // The same reads for staff previews: the primary, and no cache (one filled from the replica could
    // hold an answer older than the editor's last write).
    primaryReads: new PublicReadService(deps, query, new PublicReadCache(0), new PreparedReads(kernel.db), kernel.db),
    readCache,
    changes,
    workflows: new WorkflowService({ ...kernel, locator }),
    previews: new PreviewService({ ...kernel, locator }, drafts),
    publicCacheControl: kernel.pluginConfig.PUBLIC_DATA_CACHE_CONTROL,
    /** Every public read route shares one count per client address (`config.rateLimit`). */
    publicRateLimit: {
      key: 'address',
      bucket: 'data:public',
      windowMs: 60_000,
      limit: kernel.pluginConfig.PUBLIC_DATA_RATE_LIMIT_PER_MINUTE,
      message: 'Too many requests to the public data API; try again later',
    } satisfies RouteRateLimit,
  };
}

export type DataServices = ReturnType<typeof createDataServices>;
