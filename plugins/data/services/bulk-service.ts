import { randomUUID } from 'node:crypto';
import { inTransaction, type Tx, badRequest, isHttpError } from '../../../kernel/index.ts';
import { announceObjectBulk } from '../events.ts';
import type { ClassRow, ObjectRow } from '../model.ts';
import { findClassById, findClassByName } from '../store/class-store.ts';
import {
  findGroupRows,
  findObjectsByKeys,
  insertObjects,
  updateObjectRow,
  type NewObjectValues,
} from '../store/object-store.ts';
import { findDraft, saveDraft } from '../store/draft-store.ts';
import { insertClaims, releaseClaims, uniqueKeyOf, type GroupEntry } from '../store/unique-store.ts';
import type { WriteContext } from './actor.ts';
import { assetReferenceRule } from './asset-references.ts';
import { AttributeError, isUuid, normalizeAttributes, type AssetValueRef, type RelationRef } from './attributes.ts';
import type { DataServiceDeps } from './deps.ts';
import type { ObjectService } from './object-service.ts';
import {
  assertObjectSize,
  changedAttributes,
  checkKey,
  checkLocale,
  claimUniqueValues,
  relationTargets,
  uniqueEntriesOf,
  withSharedFrom,
} from './object-rules.ts';

export const BULK_MAX = 500;

export interface BulkInput {
  classId?: string;
  className?: string;
  objects: Array<{ key?: string | null; locale?: string; attributes?: Record<string, unknown> }>;
  onConflict?: 'update';
}
export interface Rejected {
  index: number;
  field: string;
  reason: string;
}
export interface BulkResult {
  created: string[];
  updated: string[];
  unchanged: string[];
  rejected: Rejected[];
}

interface Item {
  index: number;
  key: string | null;
  locale: string;
  attributes: Record<string, unknown>;
  relations: RelationRef[];
  assets: AssetValueRef[];
  existing?: ObjectRow;
}

/**
 * Up to 500 drafts of one class per call in a few statements: rows are validated in memory, unique
 * values are claimed with one INSERT ... ON CONFLICT DO NOTHING RETURNING (rows whose claim lost are
 * rejected), new rows go in with one multi-row INSERT, and the whole call announces one
 * `object.bulk` event. With `onConflict: 'update'` a row whose key exists in that locale replaces
 * the attributes of the existing object instead.
 */
export class BulkService {
  constructor(
    private readonly deps: DataServiceDeps,
    /** Whether the writer's updates of published objects go live or to their working copies. */
    private readonly objects: Pick<ObjectService, 'mayPublish'>,
  ) {}

  async run(ctx: WriteContext, input: BulkInput): Promise<BulkResult> {
    if (input.objects.length === 0 || input.objects.length > BULK_MAX)
      throw badRequest(`objects takes 1 to ${BULK_MAX} entries`, 'objects');
    const components = await this.deps.schema.componentFields();
    return inTransaction(this.deps.kernel.db, ctx.trx, async (trx) => {
      const cls = await this.classFor(trx, input);
      const rejected: Rejected[] = [];
      const reject = (index: number, field: string, reason: string) => rejected.push({ index, field, reason });
      const items: Item[] = [];
      input.objects.forEach((raw, index) => {
        try {
          const relations: RelationRef[] = [];
          const assets: AssetValueRef[] = [];
          const locale = checkLocale(raw.locale ?? 'en', `objects.${index}.locale`);
          const key = checkKey(raw.key, `objects.${index}.key`);
          const attributes = normalizeAttributes(
            raw.attributes ?? {},
            { fields: cls.fields, components },
            relations,
            assets,
          );
          assertObjectSize(attributes, this.deps.kernel.pluginConfig.DATA_MAX_OBJECT_BYTES);
          items.push({ index, key, locale, attributes, relations, assets });
        } catch (err) {
          if (err instanceof AttributeError) reject(index, err.field, err.reason);
          else if (isHttpError(err)) reject(index, (err.field ?? '').replace(/^objects\.\d+\./, ''), err.message);
          else throw err;
        }
      });
      let accepted = await this.withValidRelations(trx, items, reject);
      accepted = await this.withReferableAssets(trx, ctx, accepted, reject);
      accepted = await this.matchKeys(trx, cls, accepted, input.onConflict === 'update', reject);
      const creates = accepted.filter((i) => !i.existing);
      const updates = accepted.filter((i) => i.existing);

      const rows = await this.claimForCreates(trx, cls, creates, reject);
      await insertObjects(trx, rows);
      const result: BulkResult = { created: rows.map((r) => r.id!), updated: [], unchanged: [], rejected };
      const live = this.objects.mayPublish(ctx);
      const drafted = new Set<string>();
      for (const item of updates) {
        const copy = live ? null : await this.savedAsWorkingCopy(trx, ctx, cls, item);
        if (copy === null) await this.updateOne(trx, cls, item, result, reject);
        else {
          result[copy].push(item.existing!.id);
          if (copy === 'updated') drafted.add(item.existing!.id);
        }
      }
      result.rejected.sort((a, b) => a.index - b.index);
      await announceObjectBulk(this.deps.kernel.recordHooks, trx, {
        bulkKind: 'bulk',
        classId: cls.id,
        className: cls.name,
        // Working copies are not announced: nothing live changed.
        ids: [...result.created, ...result.updated.filter((id) => !drafted.has(id))],
        actor: ctx.changeActor,
        flags: ctx.flags,
      });
      return result;
    });
  }

  private async classFor(trx: Tx, input: BulkInput): Promise<ClassRow> {
    if (input.classId !== undefined) {
      if (!isUuid(input.classId)) throw badRequest('classId must be a uuid', 'classId');
      const cls = await findClassById(trx, input.classId, 'share');
      if (!cls) throw badRequest('No class has this id', 'classId');
      return cls;
    }
    if (input.className === undefined) throw badRequest('classId or className is required', 'classId');
    const cls = await findClassByName(trx, input.className, 'share');
    if (!cls) throw badRequest(`No class is named "${input.className}"`, 'className');
    return cls;
  }

  /** Every asset value sent must be a file the writer may reference (services/asset-references.ts). */
  private async withReferableAssets(
    trx: Tx,
    ctx: WriteContext,
    items: Item[],
    reject: (i: number, f: string, r: string) => void,
  ): Promise<Item[]> {
    const refs = items.flatMap((i) => i.assets);
    if (refs.length === 0) return items;
    const refused = await assetReferenceRule(trx, refs, ctx, this.deps.kernel.assetLibrary);
    return items.filter((item) => {
      const bad = item.assets.map(refused).find((r) => r !== null);
      if (bad) reject(item.index, bad.ref.field, bad.reason);
      return !bad;
    });
  }

  private async withValidRelations(
    trx: Tx,
    items: Item[],
    reject: (i: number, f: string, r: string) => void,
  ): Promise<Item[]> {
    const classOf = await relationTargets(
      trx,
      items.flatMap((i) => i.relations),
    );
    return items.filter((item) => {
      const bad = item.relations.find((r) => classOf.get(r.id) !== r.className);
      if (bad) reject(item.index, bad.field, `no object of class ${bad.className} has id ${bad.id}`);
      return !bad;
    });
  }

  /** Keys already used in the class (same locale) are updates or rejections; duplicates within the call lose. */
  private async matchKeys(
    trx: Tx,
    cls: ClassRow,
    items: Item[],
    update: boolean,
    reject: (i: number, f: string, r: string) => void,
  ): Promise<Item[]> {
    const keyed = items.filter((i) => i.key !== null);
    const existing = await findObjectsByKeys(
      trx,
      cls.id,
      keyed.map((i) => ({ key: i.key!, locale: i.locale })),
    );
    const byKey = new Map(existing.map((r) => [`${r.key}\u0000${r.locale}`, r]));
    const seen = new Set<string>();
    const out: Item[] = [];
    for (const item of items) {
      if (item.key === null) {
        out.push(item);
        continue;
      }
      const k = `${item.key}\u0000${item.locale}`;
      if (seen.has(k)) reject(item.index, 'key', 'key appears twice in this call');
      else if (byKey.has(k) && !update) reject(item.index, 'key', 'key is already in use in this class and locale');
      else {
        seen.add(k);
        out.push({ ...item, existing: byKey.get(k) });
      }
    }
    return out;
  }

  /** Claims the unique values of new rows in one statement; rows with a lost claim are rejected. */
  private async claimForCreates(
    trx: Tx,
    cls: ClassRow,
    items: Item[],
    reject: (i: number, f: string, r: string) => void,
  ): Promise<NewObjectValues[]> {
    const planned = items.map((item) => {
      const id = randomUUID();
      const entries: GroupEntry[] = uniqueEntriesOf(cls, item.attributes, item.locale).map((e) => ({
        ...e,
        translation_group_id: id,
      }));
      return { item, id, entries };
    });
    const inCall = new Set<string>();
    const contenders = planned.filter((p) => {
      const clash = p.entries.find((e) => inCall.has(uniqueKeyOf(e)));
      if (clash) {
        reject(p.item.index, `attributes.${clash.field}`, `${clash.field} is already in use`);
        return false;
      }
      for (const e of p.entries) inCall.add(uniqueKeyOf(e));
      return true;
    });
    const won = await insertClaims(
      trx,
      cls.id,
      contenders.flatMap((p) => p.entries),
    );
    const winners = contenders.filter((p) => {
      const lost = p.entries.find((e) => !won.has(uniqueKeyOf(e)));
      if (lost) reject(p.item.index, `attributes.${lost.field}`, `${lost.field} is already in use`);
      return !lost;
    });
    const losers = contenders.filter((p) => !winners.includes(p));
    await releaseClaims(
      trx,
      cls.id,
      losers.flatMap((p) => p.entries.filter((e) => won.has(uniqueKeyOf(e)))),
    );
    return winners.map(({ item, id }) => ({
      id,
      class_id: cls.id,
      translation_group_id: id,
      locale: item.locale,
      key: item.key,
      parent_id: null,
      path: `/${item.key ?? id}`,
      published: false,
      attributes: item.attributes,
      created_by: null,
    }));
  }

  /**
   * A writer without objects:publish replacing a published object's attributes (or one that has a
   * working copy) writes its working copy, as a PATCH does; null for other objects.
   */
  private async savedAsWorkingCopy(
    trx: Tx,
    ctx: WriteContext,
    cls: ClassRow,
    item: Item,
  ): Promise<'updated' | 'unchanged' | null> {
    const before = item.existing!;
    const draft = await findDraft(trx, before.id, 'update');
    if (!before.published && !draft) return null;
    const base = draft ?? before;
    if (changedAttributes(cls.fields, base.attributes, item.attributes).length === 0) return 'unchanged';
    await saveDraft(trx, {
      object_id: before.id,
      class_id: before.class_id,
      key: base.key,
      parent_id: base.parent_id,
      path: base.path,
      attributes: item.attributes,
      updated_by: ctx.changeActor.id,
    });
    return 'updated';
  }

  /** Replaces an existing object's attributes (savepoint: a lost unique claim rejects only this row). */
  private async updateOne(
    trx: Tx,
    cls: ClassRow,
    item: Item,
    result: BulkResult,
    reject: (i: number, f: string, r: string) => void,
  ): Promise<void> {
    const before = item.existing!;
    if (changedAttributes(cls.fields, before.attributes, item.attributes).length === 0) {
      result.unchanged.push(before.id);
      return;
    }
    try {
      await trx.transaction(async (sp) => {
        await claimUniqueValues(sp, cls, before, item.attributes);
        await updateObjectRow(sp, before, { attributes: item.attributes });
        // Shared fields follow to the other languages; the call's single bulk event covers them.
        for (const other of await findGroupRows(sp, before.translation_group_id)) {
          if (other.id === before.id) continue;
          const attributes = withSharedFrom(cls, other.attributes, item.attributes);
          if (changedAttributes(cls.fields, other.attributes, attributes).length > 0)
            await updateObjectRow(sp, other, { attributes });
        }
      });
      result.updated.push(before.id);
    } catch (err) {
      if (isHttpError(err) && err.code === 'UNIQUE_VIOLATION')
        reject(item.index, `attributes.${err.field}`, err.message);
      else throw err;
    }
  }
}
