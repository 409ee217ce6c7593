import type { Tx, ChangeActor, RecordHooks } from '../../kernel/index.ts';
import type { ObjectRow } from './model.ts';

/**
 * The record-change events this plugin announces (record type `object`), with the spec's kinds:
 * created, updated, published, unpublished, transitioned, deleted, bulk. Subscribers (object events,
 * search) run in the same transaction; a failing one fails the write.
 */
export type ObjectChangeKind =
  | 'created'
  | 'updated'
  | 'published'
  | 'unpublished'
  | 'transitioned'
  | 'deleted'
  | 'bulk';

export interface ObjectChangeInput {
  kind: Exclude<ObjectChangeKind, 'bulk'>;
  /** The row after the change (for `deleted`: as it was). */
  row: ObjectRow;
  className: string;
  actor: ChangeActor;
  /** Changed attribute names, plus `key`, `path`, `parent` when those changed (updated only). */
  changedFields?: string[];
  /** For `transitioned`. */
  transition?: { from: string | null; to: string };
  flags?: Record<string, string>;
}

export async function announceObjectChange(hooks: RecordHooks, trx: Tx, input: ObjectChangeInput): Promise<void> {
  const { row } = input;
  await hooks.announce(trx, {
    recordType: 'object',
    recordId: row.id,
    kind: input.kind,
    changedFields: input.changedFields,
    actor: input.actor,
    flags: input.flags,
    data: {
      class: { id: row.class_id, name: input.className },
      object: {
        id: row.id,
        translationGroupId: row.translation_group_id,
        locale: row.locale,
        key: row.key,
        published: row.published,
        workflowState: row.workflow_state,
        updatedAt: new Date(row.updated_at).toISOString(),
      },
      ...(input.transition ? { transition: input.transition } : {}),
    },
  });
}

/** One event for a whole bulk write, empty-class, import or retention purge: never one per row. */
export async function announceObjectBulk(
  hooks: RecordHooks,
  trx: Tx,
  input: {
    bulkKind: string;
    classId: string;
    className: string;
    ids: string[];
    actor: ChangeActor;
    flags?: Record<string, string>;
  },
): Promise<void> {
  if (input.ids.length === 0) return;
  await hooks.announce(trx, {
    recordType: 'object',
    recordId: input.classId,
    kind: 'bulk',
    actor: input.actor,
    flags: input.flags,
    data: {
      class: { id: input.classId, name: input.className },
      bulk: { kind: input.bulkKind, count: input.ids.length, firstIds: input.ids.slice(0, 10) },
    },
  });
}
