import type { PluginDeps } from '../../../kernel/index.ts';
import type { MigrationConfig } from '../config.ts';
import { SourceStore } from '../store/source-store.ts';
import { ClassImportService } from './class-import.ts';
import { testSource } from './source-connection.ts';
import { SourceService } from './sources.ts';

export type MigrationDeps = PluginDeps<
  'db' | 'clock' | 'config' | 'audit' | 'secretBox' | 'outboundGuard' | 'permissions',
  'outboundFetch' | 'dataObjects',
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
  return {
    sources,
    classImports,
    test: (id: string) =>
      testSource(sources, outboundGuard, id, {
        connectTimeoutMs: pluginConfig.MIGRATION_CONNECT_TIMEOUT_MS,
        maxFileBytes,
      }),
  };
}

export type MigrationServices = ReturnType<typeof createMigrationServices>;
