import type { PluginDeps } from '../../../kernel/plugin.ts';
import type { SchemaCache } from './schema-cache.ts';

/** The kernel services this plugin declares in its manifest (`needs`). */
export type DataKernelDeps = PluginDeps<'db' | 'audit' | 'recordHooks' | 'permissions' | 'clock' | 'config'>;

/** The plugin's settings (manifest `config`), parsed from the environment at start. */
export interface DataSettings {
  enforcePublishPermission: boolean;
  publicRateLimitPerMinute: number;
}

export function dataSettingsOf(pluginConfig: Record<string, unknown>): DataSettings {
  const flag = String(pluginConfig.ENFORCE_PUBLISH_PERMISSION ?? '1');
  return {
    enforcePublishPermission: flag === '1' || flag === 'true',
    publicRateLimitPerMinute: Number(pluginConfig.PUBLIC_DATA_RATE_LIMIT_PER_MINUTE ?? 600),
  };
}

/** What this plugin's services share: the kernel services, the schema cache and the settings. */
export interface DataServiceDeps {
  kernel: DataKernelDeps;
  schema: SchemaCache;
  settings: DataSettings;
}
