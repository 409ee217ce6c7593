import type { PluginDeps } from '../../../kernel/index.ts';
import type { DataConfig } from '../config.ts';
import type { SchemaCache } from './schema-cache.ts';

/** The kernel services this plugin declares in its manifest (`needs`), with its typed config. */
export type DataNeeds = 'db' | 'audit' | 'recordHooks' | 'permissions' | 'clock' | 'config';
export type DataKernelDeps = PluginDeps<DataNeeds, never, typeof DataConfig>;

/** What this plugin's services share: the kernel services and the schema cache. */
export interface DataServiceDeps {
  kernel: DataKernelDeps;
  schema: SchemaCache;
}
