import type { PluginDeps } from '../../../kernel/index.ts';
import type { FigmaConfig } from '../config.ts';
import { FigmaSettingsStore } from '../store/settings-store.ts';
import { FigmaClient } from './figma-client.ts';
import { FigmaImporter } from './importer.ts';
import { FigmaSettingsService } from './settings.ts';

type Deps = PluginDeps<
  'db' | 'clock' | 'config' | 'audit' | 'secretBox' | 'permissions' | 'assetLibrary' | 'designImportTargets',
  'outboundFetch',
  typeof FigmaConfig
>;

/** The plugin's one set of services. */
export function createFigmaServices(deps: Deps) {
  const cfg = deps.pluginConfig;
  const settings = new FigmaSettingsService({
    db: deps.db,
    audit: deps.audit,
    secretBox: deps.secretBox,
    store: new FigmaSettingsStore(deps.db, deps.clock),
    log: deps.log,
    apiUrl: cfg.FIGMA_API_URL,
  });
  const client = new FigmaClient({
    baseUrl: cfg.FIGMA_API_URL,
    timeoutMs: cfg.FIGMA_TIMEOUT_MS,
    maxFileBytes: cfg.FIGMA_MAX_FILE_BYTES,
    maxImageBytes: cfg.FIGMA_MAX_IMAGE_BYTES,
    outbound: deps.outboundFetch,
  });
  const importer = new FigmaImporter({
    db: deps.db,
    client,
    settings,
    permissions: deps.permissions,
    assetLibrary: deps.assetLibrary,
    targets: deps.designImportTargets,
    maxImages: cfg.FIGMA_MAX_IMAGES,
    log: deps.log,
  });
  return { settings, importer };
}
