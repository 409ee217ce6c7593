import type { PluginDeps } from '../../../kernel/index.ts';
import type { MigrationConfig } from '../config.ts';
import { SourceStore } from '../store/source-store.ts';
import { ImportStore } from '../store/import-store.ts';
import { ClassImportService } from './class-import.ts';
import { ComponentExtraction } from './component-extract.ts';
import { DocumentImporter } from './document-import.ts';
import { ImportJobs } from './import-jobs.ts';
import { ObjectImporter } from './object-import.ts';
import { testSource } from './source-connection.ts';
import { SourceService } from './sources.ts';

export type MigrationDeps = PluginDeps<
  'db' | 'clock' | 'config' | 'audit' | 'secretBox' | 'outboundGuard' | 'permissions' | 'jobs',
  'outboundFetch' | 'dataObjects' | 'assetLibrary' | 'documentImportTargets',
  typeof MigrationConfig
>;

export function createMigrationServices(deps: MigrationDeps) {
  const { db, clock, audit, secretBox, outboundGuard, outboundFetch, permissions, pluginConfig } = deps;
  const sources = new SourceService({
    db,
    audit,
    secretBox,
    store: new SourceStore(db, clock),
    outboundGuard,
    outboundFetch,
  });
  const maxFileBytes = pluginConfig.MIGRATION_CLASS_FILE_MAX_BYTES;
  const classImports = new ClassImportService({
    db,
    audit,
    permissions,
    sources,
    dataObjects: deps.dataObjects,
    maxFileBytes,
  });
  const components = new ComponentExtraction({
    db,
    audit,
    permissions,
    sources,
    dataObjects: deps.dataObjects,
    maxFileBytes,
  });
  const store = new ImportStore(db, clock);
  const importer = new ObjectImporter({
    db,
    log: deps.log,
    store,
    sources,
    outboundGuard,
    dataObjects: deps.dataObjects,
    assetLibrary: deps.assetLibrary,
    batchSize: pluginConfig.MIGRATION_IMPORT_BATCH_OBJECTS,
    bulkMinObjects: pluginConfig.MIGRATION_IMPORT_BULK_MIN_OBJECTS,
    connectTimeoutMs: pluginConfig.MIGRATION_CONNECT_TIMEOUT_MS,
    maxFileBytes,
    defaultLocale: pluginConfig.MIGRATION_DEFAULT_LOCALE,
  });
  const imports = new ImportJobs({
    db,
    audit,
    jobs: deps.jobs,
    permissions,
    store,
    sources,
    importer,
    inlineMax: pluginConfig.MIGRATION_IMPORT_INLINE_MAX_OBJECTS,
  });
  const documents = new DocumentImporter({
    db,
    audit,
    permissions,
    sources,
    store,
    importer,
    targets: deps.documentImportTargets ?? [],
    assetLibrary: deps.assetLibrary,
    maxDocuments: pluginConfig.MIGRATION_IMPORT_INLINE_MAX_OBJECTS,
  });
  return {
    sources,
    classImports,
    components,
    imports,
    documents,
    test: (id: string) =>
      testSource(sources, outboundGuard, id, {
        connectTimeoutMs: pluginConfig.MIGRATION_CONNECT_TIMEOUT_MS,
        maxFileBytes,
      }),
  };
}

export type MigrationServices = ReturnType<typeof createMigrationServices>;
