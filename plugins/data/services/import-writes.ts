import { randomUUID } from 'node:crypto';
import { type Tx, isHttpError } from '../../../kernel/index.ts';
import { announceObjectBulk } from '../events.ts';
import type { ClassRow, ObjectRow } from '../model.ts';
import { findClassByName } from '../store/class-store.ts';
import {
  findGroupRowsOfClass,
  keyOwners,
  insertObjectRows,
  updateObjectRows,
  type NewObjectValues,
} from '../store/object-store.ts';
import { insertClaims, releaseClaims, uniqueKeyOf, type GroupEntry } from '../store/unique-store.ts';
import type { WriteContext } from './actor.ts';
import { assetReferenceRule } from './asset-references.ts';
import { AttributeError, type AssetValueRef, type RelationRef, isUuid, normalizeAttributes } from './attributes.ts';
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
} from './object-rules.ts';

/** Records one import call takes at most (the migration plugin sends batches of 250 by default). */
export const IMPORT_MAX_RECORDS = 2000;

/** One language row of an imported record. */
export interface ImportRowInput {
  locale: string;
  key: string | null;
  /** The source's path (Pimcore's folder path and key); default `/<key or id>`. */
  path?: string;
  /** The source's published state: kept only when the writer may publish. */
  published: boolean;
  attributes: Record<string, unknown>;
}

/** One record (a translation group) of an import: its language rows. */
export interface ImportRecordInput {
  /** The caller's id of the record (a Pimcore id), echoed in the result. */
  ref: string;
  /** The translation group this record was imported as before: an update instead of a create. */
  groupId?: string;
  /**
   * With `groupId`: the given attributes are set over the stored ones instead of replacing them (a
   * relations pass that fills in only the relation fields). The merged values pass the same checks.
   */
  merge?: boolean;
  rows: ImportRowInput[];
}

export interface ImportObjectsInput {
  className: string;
  /** false: everything is written as drafts, and records published here are left as they are (default true). */
  publish?: boolean;
  records: ImportRecordInput[];
}

export interface ImportRecordResult {
  ref: string;
  status: 'created' | 'updated' | 'unchanged' | 'skipped' | 'failed';
  /** The record's translation group (its first row's id for a new record). */
  groupId?: string;
  reason?: string;
}

interface Planned {
  input: ImportRecordInput;
  groupId: string;
  /** New rows (a new record, or a language a record did not have). */
  creates: NewObjectValues[];
  /** Existing rows with their new values. */
  updates: Array<{ before: ObjectRow; values: Pick<ObjectRow, 'key' | 'path' | 'published' | 'attributes'> }>;
  relations: RelationRef[];
  assets: AssetValueRef[];
  existing: boolean;
  unchangedRows: number;
}

const failedWith = (ref: string, reason: string): ImportRecordResult => ({ ref, status: 'failed', reason });

/**
 * Object writes of an import (the migration plugin, through `dataObjects.importObjects`): a batch of
 * records of one class, every value through the same checks as `POST /data-objects` (attributes,
 * keys, locales, sizes, relations, asset references, unique values), written with one multi-row
 * INSERT for the new rows, one INSERT for their unique claims and one UPDATE for changed rows, and
 * announced with ONE `object.bulk` event (`bulk.kind: import`) with the writer's change actor
 * (an import's is `import`). A record that fails a check is reported, never half-written: its rows
 * are left out whole. A writer without `objects:publish` writes drafts, and leaves records that are
 * published here as they are (`skipped`). Runs in the caller's transaction.
 */
export class ImportWrites {
  constructor(
    private readonly deps: DataServiceDeps,
    private readonly objects: Pick<ObjectService, 'mayPublish'>,
  ) {}

  async run(ctx: WriteContext & { trx: Tx }, input: ImportObjectsInput): Promise<{ results: ImportRecordResult[] }> {
    const trx = ctx.trx;
    if (input.records.length > IMPORT_MAX_RECORDS)
      throw new Error(`importObjects takes at most ${IMPORT_MAX_RECORDS} records per call`);
    const cls = await findClassByName(trx, input.className, 'share');
    if (!cls) return { results: input.records.map((r) => failedWith(r.ref, `no class is named ${input.className}`)) };
    const components = await this.deps.schema.componentFields();
    const maySetLive = input.publish !== false && this.objects.mayPublish(ctx);
    const results = new Map<string, ImportRecordResult>();
    const groupIds = input.records.flatMap((r) => (r.groupId && isUuid(r.groupId) ? [r.groupId.toLowerCase()] : []));
    const stored = new Map<string, ObjectRow[]>();
    for (const row of await findGroupRowsOfClass(trx, cls.id, groupIds)) {
      const list = stored.get(row.translation_group_id) ?? [];
      list.push(row);
      stored.set(row.translation_group_id, list);
    }

    const planned: Planned[] = [];
    for (const record of input.records) {
      try {
        const plan = this.plan(cls, components, record, stored, maySetLive);
        if (plan === 'skipped')
          results.set(record.ref, {
            ref: record.ref,
            status: 'skipped',
            groupId: record.groupId,
            reason: 'published here; an import without objects:publish (or with publish: false) leaves it as it is',
          });
        else planned.push(plan);
      } catch (err) {
        if (err instanceof AttributeError)
          results.set(record.ref, failedWith(record.ref, `${err.field}: ${err.reason}`));
        else if (isHttpError(err))
          results.set(record.ref, failedWith(record.ref, `${err.field ?? ''}: ${err.message}`));
        else throw err;
      }
    }

    let accepted = await this.withValidRelations(trx, planned, results);
    accepted = await this.withReferableAssets(trx, ctx, accepted, results);
    accepted = await this.withFreeKeys(trx, cls, accepted, results);
    accepted = await this.claimNewRecords(trx, cls, accepted, results);
    // Records that existed: their claims change group by group (a second run; few unique fields).
    const updated: Planned[] = [];
    for (const plan of accepted) {
      if (!plan.existing || !cls.fields.some((f) => f.unique)) {
        updated.push(plan);
        continue;
      }
      try {
        await trx.transaction(async (sp) => {
          for (const u of plan.updates) await claimUniqueValues(sp, cls, u.before, u.values.attributes);
          for (const c of plan.creates) await claimUniqueValues(sp, cls, c, c.attributes);
        });
        updated.push(plan);
      } catch (err) {
        if (isHttpError(err) && err.code === 'UNIQUE_VIOLATION')
          results.set(plan.input.ref, failedWith(plan.input.ref, `attributes.${err.field}: ${err.message}`));
        else throw err;
      }
    }

    await insertObjectRows(
      trx,
      updated.flatMap((p) => p.creates),
    );
    await updateObjectRows(
      trx,
      cls.id,
      updated.flatMap((p) => p.updates.map((u) => ({ id: u.before.id, ...u.values }))),
    );
    const changedIds: string[] = [];
    for (const plan of updated) {
      const wrote = plan.creates.length + plan.updates.length > 0;
      results.set(plan.input.ref, {
        ref: plan.input.ref,
        status: !plan.existing ? 'created' : wrote ? 'updated' : 'unchanged',
        groupId: plan.groupId,
      });
      for (const row of plan.creates) changedIds.push(row.id!);
      for (const u of plan.updates) changedIds.push(u.before.id);
    }
    await announceObjectBulk(this.deps.kernel.recordHooks, trx, {
      bulkKind: 'import',
      classId: cls.id,
      className: cls.name,
      ids: changedIds,
      actor: ctx.changeActor,
      flags: ctx.flags,
    });
    return { results: input.records.map((r) => results.get(r.ref) ?? failedWith(r.ref, 'not written')) };
  }

  /** Checks one record's rows in memory and decides what is created and what is updated. */
  private plan(
    cls: ClassRow,
    components: Awaited<ReturnType<DataServiceDeps['schema']['componentFields']>>,
    record: ImportRecordInput,
    stored: ReadonlyMap<string, ObjectRow[]>,
    maySetLive: boolean,
  ): Planned | 'skipped' {
    if (record.rows.length === 0) throw new AttributeError('rows', 'a record needs at least one language row');
    const groupId = record.groupId?.toLowerCase();
    const before = groupId ? stored.get(groupId) : undefined;
    const existing = before !== undefined && before.length > 0;
    if (record.merge && !existing) throw new AttributeError('groupId', 'the record to complete is not here any more');
    if (existing && !maySetLive && before.some((r) => r.published)) return 'skipped';
    const newGroup = existing ? groupId! : randomUUID();
    const plan: Planned = {
      input: record,
      groupId: newGroup,
      creates: [],
      updates: [],
      relations: [],
      assets: [],
      existing,
      unchangedRows: 0,
    };
    const locales = new Set<string>();
    for (const [i, row] of record.rows.entries()) {
      const locale = checkLocale(row.locale, `rows.${i}.locale`);
      if (locales.has(locale)) throw new AttributeError(`rows.${i}.locale`, `language ${locale} appears twice`);
      locales.add(locale);
      const old = before?.find((r) => r.locale === locale);
      // A merge (the relations pass) changes attributes only: the stored key and path stay.
      if (record.merge && !old) continue;
      const key = record.merge && old ? old.key : checkKey(row.key, `rows.${i}.key`);
      const raw = record.merge && old ? { ...old.attributes, ...row.attributes } : row.attributes;
      const attributes = normalizeAttributes(raw, { fields: cls.fields, components }, plan.relations, plan.assets);
      assertObjectSize(attributes, this.deps.kernel.pluginConfig.DATA_MAX_OBJECT_BYTES);
      const published = maySetLive && row.published;
      if (old) {
        const path = record.merge ? old.path : (row.path ?? old.path);
        const same =
          old.key === key &&
          old.path === path &&
          (record.merge || old.published === published) &&
          changedAttributes(cls.fields, old.attributes, attributes).length === 0;
        if (same) plan.unchangedRows++;
        else
          plan.updates.push({
            before: old,
            values: { key, path, published: record.merge ? old.published : published, attributes },
          });
        continue;
      }
      // The first row of a new record names the group, as a record created through the API does.
      const id = !existing && plan.creates.length === 0 ? newGroup : randomUUID();
      plan.creates.push({
        id,
        class_id: cls.id,
        translation_group_id: newGroup,
        locale,
        key,
        parent_id: null,
        path: row.path ?? `/${key ?? id}`,
        published,
        attributes,
        created_by: null,
      });
    }
    return plan;
  }

  private async withValidRelations(
    trx: Tx,
    plans: Planned[],
    results: Map<string, ImportRecordResult>,
  ): Promise<Planned[]> {
    const classOf = await relationTargets(
      trx,
      plans.flatMap((p) => p.relations),
    );
    return plans.filter((p) => {
      const bad = p.relations.find((r) => classOf.get(r.id) !== r.className);
      if (bad)
        results.set(
          p.input.ref,
          failedWith(p.input.ref, `${bad.field}: no object of class ${bad.className} has id ${bad.id}`),
        );
      return !bad;
    });
  }

  private async withReferableAssets(
    trx: Tx,
    ctx: WriteContext,
    plans: Planned[],
    results: Map<string, ImportRecordResult>,
  ): Promise<Planned[]> {
    const refs = plans.flatMap((p) => p.assets);
    if (refs.length === 0) return plans;
    const refused = await assetReferenceRule(trx, refs, ctx, this.deps.kernel.assetLibrary);
    return plans.filter((p) => {
      const bad = p.assets.map(refused).find((r) => r !== null);
      if (bad) results.set(p.input.ref, failedWith(p.input.ref, `${bad.ref.field}: ${bad.reason}`));
      return !bad;
    });
  }

  /** A key is unique per class and language: taken by another record here, or twice in the batch, fails the record. */
  private async withFreeKeys(
    trx: Tx,
    cls: ClassRow,
    plans: Planned[],
    results: Map<string, ImportRecordResult>,
  ): Promise<Planned[]> {
    const pairs = plans.flatMap((p) =>
      [...p.creates, ...p.updates.map((u) => ({ ...u.before, key: u.values.key }))].flatMap((r) =>
        r.key === null ? [] : [{ key: r.key, locale: r.locale }],
      ),
    );
    const taken = new Map(
      (await keyOwners(trx, cls.id, pairs)).map((r) => [`${r.key}\u0000${r.locale}`, r.translation_group_id]),
    );
    const inBatch = new Set<string>();
    return plans.filter((p) => {
      const rows = [...p.creates, ...p.updates.map((u) => ({ ...u.before, key: u.values.key }))];
      for (const r of rows) {
        if (r.key === null) continue;
        const k = `${r.key}\u0000${r.locale}`;
        const owner = taken.get(k);
        if ((owner !== undefined && owner !== p.groupId) || inBatch.has(k)) {
          results.set(
            p.input.ref,
            failedWith(p.input.ref, `key: "${r.key}" is already in use in this class and language ${r.locale}`),
          );
          return false;
        }
      }
      for (const r of rows) if (r.key !== null) inBatch.add(`${r.key}\u0000${r.locale}`);
      return true;
    });
  }

  /** The unique values of new records, claimed in one statement; a record with a lost claim fails whole. */
  private async claimNewRecords(
    trx: Tx,
    cls: ClassRow,
    plans: Planned[],
    results: Map<string, ImportRecordResult>,
  ): Promise<Planned[]> {
    if (!cls.fields.some((f) => f.unique)) return plans;
    const entriesOf = (p: Planned): GroupEntry[] => {
      const seen = new Set<string>();
      const out: GroupEntry[] = [];
      for (const row of p.creates)
        for (const e of uniqueEntriesOf(cls, row.attributes, row.locale)) {
          const entry = { ...e, translation_group_id: p.groupId };
          if (!seen.has(uniqueKeyOf(entry))) out.push(entry);
          seen.add(uniqueKeyOf(entry));
        }
      return out;
    };
    const fresh = plans.filter((p) => !p.existing).map((p) => ({ p, entries: entriesOf(p) }));
    const inBatch = new Set<string>();
    const contenders = fresh.filter(({ p, entries }) => {
      const clash = entries.find((e) => inBatch.has(uniqueKeyOf(e)));
      if (clash) {
        results.set(
          p.input.ref,
          failedWith(p.input.ref, `attributes.${clash.field}: ${clash.field} is already in use`),
        );
        return false;
      }
      for (const e of entries) inBatch.add(uniqueKeyOf(e));
      return true;
    });
    const won = await insertClaims(
      trx,
      cls.id,
      contenders.flatMap((c) => c.entries),
    );
    const losers = contenders.filter((c) => c.entries.some((e) => !won.has(uniqueKeyOf(e))));
    for (const { p, entries } of losers) {
      const lost = entries.find((e) => !won.has(uniqueKeyOf(e)))!;
      results.set(p.input.ref, failedWith(p.input.ref, `attributes.${lost.field}: ${lost.field} is already in use`));
    }
    await releaseClaims(
      trx,
      cls.id,
      losers.flatMap((c) => c.entries.filter((e) => won.has(uniqueKeyOf(e)))),
    );
    const lostPlans = new Set(losers.map((l) => l.p));
    const failedFresh = new Set(fresh.filter((f) => !contenders.includes(f)).map((f) => f.p));
    return plans.filter((p) => !lostPlans.has(p) && !failedFresh.has(p));
  }
}
