import type { Db, Tx } from '../../../kernel/index.ts';
import type { ObjectRow } from '../model.ts';
import type { Workflow } from '../services/workflow-definition.ts';
import { REGISTRY, type ObjectLocator } from './object-registry.ts';

/** A class as the workflow code needs it. */
export interface WorkflowClassRow {
  id: string;
  name: string;
  workflow: Workflow | null;
}

/** An object with the name and workflow of its class. */
export interface ObjectWithWorkflow {
  row: ObjectRow;
  className: string;
  workflow: Workflow | null;
}

const OBJECT_COLUMNS = [
  'o.id',
  'o.class_id',
  'o.translation_group_id',
  'o.locale',
  'o.key',
  'o.parent_id',
  'o.path',
  'o.published',
  'o.workflow_state',
  'o.attributes',
  'o.created_by',
  'o.created_at',
  'o.updated_at',
];

/** Workflow definitions (`data_classes.workflow`) and object workflow states. */
export class WorkflowStore {
  constructor(private readonly deps: { db: Db; locator?: ObjectLocator }) {}

  private get locator(): ObjectLocator {
    return this.deps.locator ?? REGISTRY;
  }

  async findClass(id: string): Promise<WorkflowClassRow | null> {
    const row = await this.deps.db('data_classes').where({ id }).first('id', 'name', 'workflow');
    return (row as WorkflowClassRow | undefined) ?? null;
  }

  /** Stores (or with null removes) a class's workflow; false when the class does not exist. */
  async setWorkflow(classId: string, workflow: Workflow | null, now: Date): Promise<boolean> {
    const updated = await this.deps
      .db('data_classes')
      .where({ id: classId })
      .update({ workflow: workflow === null ? null : JSON.stringify(workflow), updated_at: now });
    return updated > 0;
  }

  async findObject(id: string, trx?: Tx): Promise<ObjectWithWorkflow | null> {
    const q = trx ?? this.deps.db;
    const classId = (await this.locator.classesOf(q, [id])).get(id);
    if (!classId) return null;
    const row = await q('data_objects as o')
      .join('data_classes as c', 'c.id', 'o.class_id')
      .where('o.class_id', classId)
      .where('o.id', id)
      .first([...OBJECT_COLUMNS, 'c.name as class_name', 'c.workflow as class_workflow']);
    if (!row) return null;
    const { class_name, class_workflow, ...object } = row as ObjectRow & {
      class_name: string;
      class_workflow: Workflow | null;
    };
    return { row: object, className: class_name, workflow: class_workflow };
  }

  /**
   * Moves an object to `to` only if its state is still `from` (null included): of two concurrent
   * transitions from the same state, exactly one matches. Returns the updated row, or null.
   */
  async moveObject(
    trx: Tx,
    object: Pick<ObjectRow, 'id' | 'class_id'>,
    from: string | null,
    to: string,
    now: Date,
  ): Promise<ObjectRow | null> {
    const rows: ObjectRow[] = await trx('data_objects')
      .where({ class_id: object.class_id, id: object.id })
      .whereRaw('workflow_state is not distinct from ?::text', [from])
      .update({ workflow_state: to, updated_at: now })
      .returning(OBJECT_COLUMNS.map((c) => c.slice(2)));
    return rows[0] ?? null;
  }
}
