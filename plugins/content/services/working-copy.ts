import { forbidden, notFound, type Actor, type AuditContext, type Tx } from '../../../kernel/index.ts';
import type { DraftOwner, DraftRow, DraftStore } from '../store/drafts.ts';
import type { ContentDeps } from './deps.ts';
import { type ContentNode, walkNodes } from './node-tree.ts';
import { diffTrees } from './tree-diff.ts';

/**
 * Working copies of pages, snippets, templates and layouts (`content_drafts`), one rule for all:
 *
 * - a record that is live (a published page; every snippet, template and layout) saved by someone
 *   without `objects:publish` (while ENFORCE_PUBLISH_PERMISSION is on), or with `?draft=true`, keeps
 *   its live row: the save goes to its working copy;
 * - a publisher's save without `?draft=true` goes live as before and is carried into the working copy
 *   when there is one;
 * - staff reads show the working copy (`draft: { updatedAt, updatedBy }`), `?version=live` the live row;
 * - `publish-draft` (objects:publish) makes it live, `DELETE …/draft` discards it, both audited.
 */

/** Who saved the working copy and when, on a staff read. */
export interface DraftMeta {
  updatedAt: Date;
  updatedBy: string | null;
}
/** A record as staff reads show it: the working copy's fields over the live row. */
export type StaffRow<Row> = Row & { draft?: DraftMeta };

/** JSON with object keys sorted, so values read back from jsonb compare equal to those sent. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

export const sameFields = (a: Record<string, unknown>, b: Record<string, unknown>) => stableJson(a) === stableJson(b);

/** The staff view: the working copy's fields and time over the live row (its ETag is the copy's). */
export function withDraft<Row extends { updated_at: Date }>(row: Row, draft: DraftRow | null): StaffRow<Row> {
  if (!draft) return row;
  return {
    ...row,
    ...(draft.fields as Partial<Row>),
    updated_at: draft.updated_at,
    draft: { updatedAt: draft.updated_at, updatedBy: draft.updated_by },
  };
}

/** True when the actor may make changes live (or ENFORCE_PUBLISH_PERMISSION is off). */
export function mayPublish(kernel: ContentDeps, actor: Actor): boolean {
  return !kernel.pluginConfig.ENFORCE_PUBLISH_PERMISSION || kernel.permissions.allows(actor, 'objects:publish');
}

/** What one kind of record keeps in its working copy. */
export interface WorkingCopyKind {
  owner: DraftOwner;
  /** How messages name it: "page", "layout template". */
  label: string;
  /** The columns the working copy holds, with their API names (diff answers, the audit's `changed`). */
  columns: Record<string, string>;
  /** Columns that are derived from others and never reported as changed on their own. */
  derived?: readonly string[];
  /** API names of the fields holding node trees: a diff gives their node paths, not their values. */
  treeFields: readonly string[];
  /** The node trees of a record's fields, by the path prefix the diff names their nodes with. */
  trees(fields: Record<string, unknown>): Record<string, ContentNode>;
}

/** The working copies of one kind of record: the rule, the copy's bookkeeping, diff, promote, discard. */
export class WorkingCopies<Row extends { id: string; updated_at: Date }> {
  constructor(
    private readonly deps: { kernel: ContentDeps; drafts: DraftStore },
    readonly kind: WorkingCopyKind,
  ) {}

  /** The rule: whether this save goes to the working copy of a record that is (or has a copy of) live. */
  toCopy(actor: Actor, opts: { live: boolean; hasCopy: boolean; draft?: boolean }): boolean {
    return (opts.live || opts.hasCopy) && (opts.draft === true || !mayPublish(this.deps.kernel, actor));
  }

  mayPublish(actor: Actor): boolean {
    return mayPublish(this.deps.kernel, actor);
  }

  find(id: string, trx?: Tx, lock?: 'update'): Promise<DraftRow | null> {
    return this.deps.drafts.find(this.kind.owner, id, trx, lock);
  }

  missing(): Error {
    return notFound(`This ${this.kind.label} has no working copy`, 'DRAFT_NOT_FOUND');
  }

  /** The working-copy fields of a row (column names). */
  fieldsOf(row: Partial<Row> | Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const column of Object.keys(this.kind.columns)) {
      const value = (row as Record<string, unknown>)[column];
      if (value !== undefined) out[column] = value;
    }
    return out;
  }

  /** What a save starts from: the copy's fields over the live row's. */
  current(live: Row, draft: DraftRow | null): Record<string, unknown> {
    return { ...this.fieldsOf(live), ...(draft?.fields ?? {}) };
  }

  /**
   * Stores `next` (the copy's fields, already validated as a live save is) as the working copy of
   * `live`: nothing changed stores nothing; a copy equal to live is removed. Nothing is announced.
   */
  async store(
    trx: Tx,
    actor: Actor,
    live: Row,
    draft: DraftRow | null,
    next: Record<string, unknown>,
  ): Promise<DraftRow | null> {
    const fields = this.fieldsOf(next);
    if (draft && sameFields(fields, draft.fields)) return draft;
    if (sameFields(fields, this.fieldsOf(live))) {
      if (draft) await this.deps.drafts.remove(this.kind.owner, live.id, trx);
      return null;
    }
    return this.deps.drafts.save(this.kind.owner, live.id, fields, actor.type === 'user' ? actor.id : null, trx);
  }

  /** A staff read: the working copy unless `version` is `live`. */
  async view(row: Row, version: 'live' | 'draft' = 'draft'): Promise<StaffRow<Row>> {
    return withDraft(row, version === 'live' ? null : await this.find(row.id));
  }

  /** API names of the fields in which the working copy differs from the live row. */
  changed(live: Row, draft: DraftRow): string[] {
    const fields = this.fieldsOf(live);
    return Object.entries(this.kind.columns)
      .filter(
        ([column]) =>
          !this.kind.derived?.includes(column) &&
          stableJson(fields[column] ?? null) !== stableJson(draft.fields[column] ?? null),
      )
      .map(([, name]) => name);
  }

  /** `GET …/draft/diff`: the changed fields, their values other than trees, and the trees' node paths. */
  diff(live: Row, draft: DraftRow | null) {
    if (!draft) throw this.missing();
    const changed = this.changed(live, draft);
    const liveFields = this.fieldsOf(live);
    const copy = { ...liveFields, ...draft.fields };
    const liveTrees = this.kind.trees(liveFields);
    const copyTrees = this.kind.trees(copy);
    const content = { added: [] as string[], removed: [] as string[], changed: [] as string[] };
    const paths = (tree: ContentNode) => {
      const out: string[] = [];
      walkNodes(tree, 'content', (_node, path) => out.push(path));
      return out;
    };
    for (const prefix of new Set([...Object.keys(liveTrees), ...Object.keys(copyTrees)])) {
      const [from, to] = [liveTrees[prefix], copyTrees[prefix]];
      // A tree only one side has: all its nodes are added (or removed).
      const d =
        from && to
          ? diffTrees(from, to)
          : { added: to ? paths(to) : [], removed: from ? paths(from) : [], changed: [] };
      const name = (path: string) => (prefix ? `${prefix}.${path}` : path);
      content.added.push(...d.added.map(name));
      content.removed.push(...d.removed.map(name));
      content.changed.push(...d.changed.map(name));
    }
    const columnOf = new Map(Object.entries(this.kind.columns).map(([column, name]) => [name, column]));
    return {
      changed,
      fields: changed
        .filter((field) => !this.kind.treeFields.includes(field))
        .map((field) => ({ field, live: liveFields[columnOf.get(field)!], draft: copy[columnOf.get(field)!] })),
      content,
    };
  }

  /** 403 PUBLISH_FORBIDDEN unless the actor may publish. */
  checkPublisher(actor: Actor): void {
    if (!this.mayPublish(actor)) throw forbidden('Publishing needs objects:publish', 'PUBLISH_FORBIDDEN');
  }

  /**
   * Makes `draft` live on `before` (locked by the caller) through `apply` (the record's live save) and
   * removes it; audited as `<owner>.publish_draft` with the changed fields.
   */
  async promote(
    trx: Tx,
    ctx: AuditContext,
    before: Row,
    draft: DraftRow,
    apply: (fields: Record<string, unknown>) => Promise<Row>,
    label: (row: Row) => string,
  ): Promise<Row> {
    const changed = this.changed(before, draft);
    await this.deps.drafts.remove(this.kind.owner, before.id, trx);
    const row = await apply(draft.fields);
    await this.deps.kernel.audit.record(
      ctx,
      {
        action: `${this.kind.owner}.publish_draft`,
        targetType: this.kind.owner,
        targetId: before.id,
        targetLabel: label(row),
        after: { changed, draftUpdatedBy: draft.updated_by },
      },
      trx,
    );
    return row;
  }

  /** `DELETE …/draft` on `before` (locked by the caller): the live record stays; audited `<owner>.discard_draft`. */
  async discard(trx: Tx, ctx: AuditContext, before: Row, label: string): Promise<void> {
    const draft = await this.find(before.id, trx, 'update');
    if (!draft) throw this.missing();
    await this.deps.drafts.remove(this.kind.owner, before.id, trx);
    await this.deps.kernel.audit.record(
      ctx,
      {
        action: `${this.kind.owner}.discard_draft`,
        targetType: this.kind.owner,
        targetId: before.id,
        targetLabel: label,
        before: { changed: this.changed(before, draft), draftUpdatedBy: draft.updated_by },
      },
      trx,
    );
  }
}
