import type { PluginDeps } from '../../../kernel/index.ts';
import type { ContentConfig } from '../config.ts';

/** What the manifest declares: kernel services, and the data and gateway ports when loaded. */
export type ContentNeeds =
  | 'db'
  | 'readDb'
  | 'readReplica'
  | 'audit'
  | 'recordHooks'
  | 'permissions'
  | 'clock'
  | 'config'
  | 'mountedRoutes'
  | 'cacheNotices';
export type ContentOptional = 'dataObjects' | 'gatewayRoutes';
export type ContentDeps = PluginDeps<ContentNeeds, ContentOptional, typeof ContentConfig>;
