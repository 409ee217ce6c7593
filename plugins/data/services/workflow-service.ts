import {
  type Actor,
  type Clock,
  type Db,
  inTransaction,
  type WriteOptions,
  badRequest,
  conflict,
  forbidden,
  notFound,
  type PermissionRegistry,
  type RecordHooks,
} from '../../../kernel/index.ts';
import { announceObjectChange } from '../events.ts';
import { toObjectDto, type ObjectDto } from '../model.ts';
import type { ObjectLocator } from '../store/object-registry.ts';
import { WorkflowStore } from '../store/workflow-store.ts';
import { changeActorOf } from './actor.ts';
import {
  currentPlace,
  normalizeWorkflow,
  requiredKeys,
  type Workflow,
  type WorkflowInput,
  type WorkflowTransition,
} from './workflow-definition.ts';

export interface WorkflowServiceDeps {
  db: Db;
  clock: Clock;
  permissions: PermissionRegistry;
  recordHooks: RecordHooks;
  /** Where objects live; without it every lookup asks the registry. */
  locator?: ObjectLocator;
}

/**
 * Class workflows and the transitions of objects. Access to a transition is checked here with the
 * caller's actor: it needs every key the transition declares (`objects:write` when it declares none).
 */
export class WorkflowService {
  private readonly store: WorkflowStore;

  constructor(private readonly deps: WorkflowServiceDeps) {
    this.store = new WorkflowStore({ db: deps.db, locator: deps.locator });
  }

  async getWorkflow(classId: string): Promise<Workflow> {
    const cls = await this.store.findClass(classId);
    if (!cls) throw notFound('Data class not found');
    if (!cls.workflow) throw notFound('This class has no workflow', 'NO_WORKFLOW');
    return cls.workflow;
  }

  async putWorkflow(classId: string, input: WorkflowInput): Promise<Workflow> {
    const workflow = normalizeWorkflow(input, (key) => this.deps.permissions.has(key));
    if (!(await this.store.setWorkflow(classId, workflow, this.deps.clock.now())))
      throw notFound('Data class not found');
    return workflow;
  }

  /** Removes the workflow; objects keep their `workflowState` (a workflow put back later finds them there). */
  async deleteWorkflow(classId: string): Promise<void> {
    if (!(await this.store.setWorkflow(classId, null, this.deps.clock.now()))) throw notFound('Data class not found');
  }

  /** The transitions that start from the object's place and whose keys the actor holds. */
  async availableTransitions(
    actor: Actor,
    objectId: string,
  ): Promise<{ place: string | null; transitions: WorkflowTransition[] }> {
    const found = await this.store.findObject(objectId);
    if (!found) throw notFound('Data object not found');
    if (!found.workflow) return { place: found.row.workflow_state, transitions: [] };
    const place = currentPlace(found.workflow, found.row.workflow_state);
    const transitions = found.workflow.transitions.filter(
      (t) => t.from.includes(place) && requiredKeys(t).every((key) => this.deps.permissions.allows(actor, key)),
    );
    return { place, transitions };
  }

  /**
   * Runs a transition: 404 unknown object, 400 unknown transition, 403 a declared key missing, 409
   * when it does not start from the object's place (also when a concurrent transition moved it first).
   */
  async runTransition(
    actor: Actor,
    objectId: string,
    name: string,
    flags?: Record<string, string>,
    opts: WriteOptions = {},
  ): Promise<ObjectDto> {
    const found = await this.store.findObject(objectId);
    if (!found) throw notFound('Data object not found');
    const { row, className, workflow } = found;
    if (!workflow) throw badRequest(`class "${className}" has no workflow`, 'transition', 'UNKNOWN_TRANSITION');
    const transition = workflow.transitions.find((t) => t.name === name);
    if (!transition) throw badRequest(`unknown transition "${name}"`, 'transition', 'UNKNOWN_TRANSITION');
    const missing = requiredKeys(transition).filter((key) => !this.deps.permissions.allows(actor, key));
    if (missing.length) throw forbidden(`Transition "${name}" needs ${missing.join(', ')}`);
    const from = currentPlace(workflow, row.workflow_state);
    if (!transition.from.includes(from)) {
      throw conflict(`transition "${name}" does not start from "${from}"`, 'TRANSITION_NOT_ALLOWED');
    }
    const changeActor = changeActorOf(actor);
    const moved = await inTransaction(this.deps.db, opts.trx, async (trx) => {
      const updated = await this.store.moveObject(trx, row, row.workflow_state, transition.to, this.deps.clock.now());
      if (!updated)
        throw conflict('the object changed its workflow state meanwhile; reload and retry', 'TRANSITION_NOT_ALLOWED');
      await announceObjectChange(this.deps.recordHooks, trx, {
        kind: 'transitioned',
        row: updated,
        className,
        actor: changeActor,
        transition: { from, to: transition.to },
        flags,
      });
      return updated;
    });
    return toObjectDto(moved, className);
  }
}
