import path from 'node:path';
import type { PluginDeps } from '../../../kernel/index.ts';
import type { BundlesConfig } from '../config.ts';
import type { ExportDeps } from './export.ts';
import type { ImportDeps } from './import.ts';
import { ImportSlots } from './import-slots.ts';

export type BundleNeeds =
  | 'db'
  | 'audit'
  | 'permissions'
  | 'clock'
  | 'config'
  | 'websiteBundleParts'
  | 'websiteBundleFiles';

/** The plugin's services: export and import read the registries when a request comes (never in setup). */
export function createBundleServices(deps: PluginDeps<BundleNeeds, never, typeof BundlesConfig>) {
  const cfg = deps.pluginConfig;
  const limits = {
    maxBytes: cfg.BUNDLE_MAX_BYTES,
    maxEntries: cfg.BUNDLE_MAX_ENTRIES,
    maxUncompressedBytes: cfg.BUNDLE_MAX_UNCOMPRESSED_BYTES,
    maxRatio: cfg.BUNDLE_MAX_RATIO,
  };
  const parts = () => deps.websiteBundleParts;
  const files = () => deps.websiteBundleFiles[0];
  const now = () => deps.clock.now();
  const exportDeps: ExportDeps = { parts, files, now };
  const importDeps: ImportDeps = { db: deps.db, audit: deps.audit, log: deps.log, parts, files, limits };
  const slots = new ImportSlots({
    perUser: cfg.BUNDLE_IMPORTS_PER_USER,
    global: cfg.BUNDLE_IMPORTS_GLOBAL,
    budgetMs: cfg.BUNDLE_IMPORT_TIME_BUDGET_MS,
  });
  return {
    exportDeps,
    importDeps,
    limits,
    slots,
    budgetMs: cfg.BUNDLE_IMPORT_TIME_BUDGET_MS,
    now,
    permissions: deps.permissions,
    tmpDir: path.join(path.resolve(deps.config.CMS_DATA_DIR), 'tmp', 'bundles'),
  };
}

export type BundleServices = ReturnType<typeof createBundleServices>;
