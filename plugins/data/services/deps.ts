import type { PluginDeps } from '../../../kernel/index.ts';
import type { DataConfig } from '../config.ts';
import type { ObjectLocator } from '../store/object-registry.ts';
import type { IndexBuilds } from './index-builds.ts';
import type { ReadCacheNotices } from './read-cache-notices.ts';
import type { SchemaCache } from './schema-cache.ts';

/** The kernel services this plugin declares in its manifest (`needs`), with its typed config. */
export type DataNeeds =
  | 'db'
  | 'readDb'
  | 'readReplica'
  | 'audit'
  | 'recordHooks'
  | 'permissions'
  | 'clock'
  | 'config'
  | 'jobs';
/** Services used when their plugin is loaded: `assetLibrary` resolves asset references (batch `resolve-assets`). */
export type DataOptional = 'assetLibrary';
export type DataKernelDeps = PluginDeps<DataNeeds, DataOptional, typeof DataConfig>;

/**
 * What this plugin's services share: the kernel services, the schema cache, where objects live (id ->
 * class, cached for reads) and the queue of index builds.
 */
export interface DataServiceDeps {
  kernel: DataKernelDeps;
  schema: SchemaCache;
  locator: ObjectLocator;
  indexBuilds: IndexBuilds;
  /** Change notices that keep every process's read and schema caches in line (pg_notify in the write's transaction). */
  changes: ReadCacheNotices;
}
