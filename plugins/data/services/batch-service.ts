import { conflict, forbidden, inTransaction } from '../../../kernel/index.ts';
import { announceObjectChange } from '../events.ts';
import type { ObjectRow } from '../model.ts';
import { findClassById } from '../store/class-store.ts';
import { findObjectsByIds, setPublished } from '../store/object-store.ts';
import type { WriteContext } from './actor.ts';
import type { DataServiceDeps } from './deps.ts';
import type { DraftService } from './drafts.ts';
import type { ObjectService } from './object-service.ts';
import { parseIds } from './object-read-service.ts';

export type BatchAction = 'publish' | 'unpublish' | 'delete' | 'resolve-assets';
export interface BatchResult {
  id: string;
  status: 'published' | 'unpublished' | 'unchanged' | 'deleted' | 'not_found' | 'resolved';
  /** `resolve-assets`: each asset field's value resolved (null for an unknown reference). */
  assets?: Record<string, unknown>;
}

/**
 * Actions on several objects in one transaction. Each row that actually changes announces its own
 * event (published, unpublished, deleted); unknown ids are reported, not fatal.
 */
export class BatchService {
  constructor(
    private readonly deps: DataServiceDeps,
    private readonly objects: ObjectService,
    private readonly drafts: DraftService,
  ) {}

  async run(ctx: WriteContext, rawIds: readonly string[], action: BatchAction): Promise<BatchResult[]> {
    const ids = parseIds(rawIds);
    if (action === 'resolve-assets') return this.resolveAssets(ids);
    if ((action === 'publish' || action === 'unpublish') && !this.objects.mayPublish(ctx)) {
      throw forbidden(`${action} needs objects:publish`, 'PUBLISH_FORBIDDEN');
    }
    return inTransaction(this.deps.kernel.db, ctx.trx, async (trx) => {
      const rows = await findObjectsByIds(trx, ids, { lock: 'update' });
      const found = new Set(rows.map((r) => r.id));
      const results = new Map<string, BatchResult['status']>(
        ids.map((id) => [id, found.has(id) ? 'unchanged' : 'not_found']),
      );
      const names = await this.classNames(rows);
      if (action === 'delete') {
        for (const [classId, group] of groupBy(rows))
          await this.objects.deleteRows(trx, names.get(classId)!, group, ctx);
        for (const row of rows) results.set(row.id, 'deleted');
      } else {
        // Publishing promotes working copies first (object.updated), then sets the flag (object.published).
        if (action === 'publish') {
          const drafts = await this.drafts.draftsOf(trx, rows);
          for (const row of rows) {
            const draft = drafts.get(row.id);
            if (!draft) continue;
            const cls = (await findClassById(trx, row.class_id, 'share'))!;
            await this.drafts.promote(trx, ctx, row, cls, draft);
            results.set(row.id, 'published');
          }
        }
        const changed = await setPublished(trx, rows, action === 'publish');
        for (const row of changed) {
          results.set(row.id, action === 'publish' ? 'published' : 'unpublished');
          await announceObjectChange(this.deps.kernel.recordHooks, trx, {
            kind: action === 'publish' ? 'published' : 'unpublished',
            row,
            className: names.get(row.class_id)!,
            actor: ctx.changeActor,
            flags: ctx.flags,
          });
        }
      }
      return ids.map((id) => ({ id, status: results.get(id)! }));
    });
  }

  /** Each object's asset fields (top level, and arrays of assets) resolved through the asset plugin. */
  private async resolveAssets(ids: string[]): Promise<BatchResult[]> {
    const library = this.deps.kernel.assetLibrary;
    if (!library)
      throw conflict('Asset references cannot be resolved: the asset plugin is not installed', 'ASSETS_UNAVAILABLE');
    const rows = await findObjectsByIds(this.deps.kernel.db, ids);
    const fieldsOf = new Map<string, string[]>();
    for (const classId of new Set(rows.map((r) => r.class_id))) {
      const fields = (await this.deps.schema.classById(classId))?.fields ?? [];
      fieldsOf.set(
        classId,
        fields.filter((f) => f.type === 'asset' || (f.type === 'array' && f.of === 'asset')).map((f) => f.name),
      );
    }
    const refs = new Set<string>();
    for (const row of rows)
      for (const name of fieldsOf.get(row.class_id)!)
        for (const v of [row.attributes[name]].flat()) if (typeof v === 'string') refs.add(v);
    const resolved = await library.resolve([...refs]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => {
      const row = byId.get(id);
      if (!row) return { id, status: 'not_found' };
      const assets: Record<string, unknown> = {};
      for (const name of fieldsOf.get(row.class_id)!) {
        const value = row.attributes[name];
        const one = (v: unknown) => (typeof v === 'string' ? (resolved.get(v) ?? null) : null);
        assets[name] = Array.isArray(value)
          ? value.map(one)
          : value === undefined || value === null
            ? null
            : one(value);
      }
      return { id, status: 'resolved', assets };
    });
  }

  private async classNames(rows: readonly ObjectRow[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const classId of new Set(rows.map((r) => r.class_id)))
      out.set(classId, (await this.deps.schema.classById(classId))?.name ?? '');
    return out;
  }
}

function groupBy(rows: readonly ObjectRow[]): Map<string, ObjectRow[]> {
  const out = new Map<string, ObjectRow[]>();
  for (const row of rows) out.set(row.class_id, [...(out.get(row.class_id) ?? []), row]);
  return out;
}
