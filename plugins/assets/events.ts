import type { ChangeActor, RecordHooks, Tx } from '../../kernel/index.ts';
import { assetIdentity, type AssetRow } from './model.ts';

/**
 * The record-change events this plugin announces (record type `asset`), in the writer's transaction:
 * created, updated, moved, deleted, bulk. They carry ids and metadata, never file contents.
 */
export type AssetChangeKind = 'created' | 'updated' | 'moved' | 'deleted';

export interface AssetChangeInput {
  kind: AssetChangeKind;
  /** The row after the change (for `deleted`: as it was). */
  row: AssetRow;
  actor: ChangeActor;
  changedFields?: string[];
  /** For `moved`: the path before. */
  from?: string;
}

export const assetSummary = (row: AssetRow) => ({
  ...assetIdentity(row),
  version: row.version,
  metadata: row.metadata,
  updatedAt: new Date(row.updated_at).toISOString(),
});

export async function announceAssetChange(hooks: RecordHooks, trx: Tx, input: AssetChangeInput): Promise<void> {
  await hooks.announce(trx, {
    recordType: 'asset',
    recordId: input.row.id,
    kind: input.kind,
    changedFields: input.changedFields,
    actor: input.actor,
    data: { asset: assetSummary(input.row), ...(input.from !== undefined ? { from: input.from } : {}) },
  });
}

/** One event for a change of many assets (a folder deleted with everything under it): never one per row. */
export async function announceAssetBulk(
  hooks: RecordHooks,
  trx: Tx,
  input: { kind: string; rows: readonly AssetRow[]; actor: ChangeActor; folder?: string },
): Promise<void> {
  await hooks.announce(trx, {
    recordType: 'asset',
    recordId: input.rows[0]?.id ?? '',
    kind: 'bulk',
    actor: input.actor,
    data: {
      bulk: { kind: input.kind, count: input.rows.length, firstIds: input.rows.slice(0, 10).map((r) => r.id) },
      ...(input.folder !== undefined ? { folder: input.folder } : {}),
    },
  });
}
