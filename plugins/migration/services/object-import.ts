import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type mysql from 'mysql2/promise';
import {
  type Actor,
  type ChangeActor,
  type Db,
  type Logger,
  type OutboundGuard,
  type ServiceMap,
  type Tx,
  badRequest,
  isHttpError,
} from '../../../kernel/index.ts';
import { inDependencyOrder } from './class-import.ts';
import { type PimcoreDefinition, readClassFolder } from './class-files.ts';
import { type ImportField, type Lookups, type ValueNotes, assetIdsOf, fieldValue } from './object-values.ts';
import { connectSource } from './source-connection.ts';
import type { SourceService } from './sources.ts';
import { mapField } from './type-mapping.ts';
import type { Checkpoint, ImportJobRow, ImportStore, JobCounts } from '../store/import-store.ts';
import {
  type CellRow,
  type PimcoreAsset,
  type PimcoreObjectRow,
  PimcoreReader,
  type PimcoreRelation,
} from '../store/pimcore-reader.ts';
import { ReadAhead } from './read-ahead.ts';

type DataObjects = ServiceMap['dataObjects'];
type ImportRecord = Parameters<DataObjects['importObjects']>[1]['records'][number];

/** A class to import: its Pimcore id (table names), its name here and the fields both sides have. */
export interface ClassToImport {
  name: string;
  pimcoreId: string;
  fields: ImportField[];
  translated: boolean;
  slugs: boolean;
  /** Field collection and object brick fields: the items they may hold and those items' fields. */
  components: ComponentField[];
}

/** A `fieldcollections` or `objectbricks` field and the definitions of the items it allows. */
export interface ComponentField {
  name: string;
  kind: 'fieldcollection' | 'objectbrick';
  items: Array<{ key: string; fields: ImportField[] }>;
}

/** The source database went away (or refused us) mid-import: the job fails with the reason and can be resumed. */
export class SourceUnavailable extends Error {}

export interface ImporterDeps {
  db: Db;
  log: Logger;
  store: ImportStore;
  sources: SourceService;
  outboundGuard: Pick<OutboundGuard, 'assertAllowed'>;
  dataObjects: DataObjects | undefined;
  assetLibrary: ServiceMap['assetLibrary'] | undefined;
  batchSize: number;
  /** A class with at least this many objects in the source is bulk loaded (0: never). */
  bulkMinObjects: number;
  connectTimeoutMs: number;
  maxFileBytes: number;
  defaultLocale: string;
}

/** Pimcore's language codes (`de_AT`) as locales here (`de-AT`). */
const localeOf = (language: string) => language.replace(/_/g, '-');

const connectionProblem = (err: unknown): string | null => {
  const e = err as { code?: string; fatal?: boolean; errno?: number; message?: string };
  if (
    e.fatal ||
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'PROTOCOL_CONNECTION_LOST'].includes(e.code ?? '')
  )
    return `source database: ${e.code ? `${e.code}: ` : ''}${(e.message ?? String(err)).slice(0, 300)}`;
  return null;
};

/**
 * Reads a source's objects class by class in Pimcore id order, in batches of `batchSize`, and writes
 * each batch through the data plugin's `importObjects` in ONE transaction with its id-map rows,
 * the asset files it names and the job's checkpoint: a job cut off anywhere goes on after its last
 * committed batch, and an object is never written twice. Relations to objects not imported yet are
 * filled in by a second pass once every object exists.
 */
export class ObjectImporter {
  constructor(private readonly deps: ImporterDeps) {}

  data(): DataObjects {
    const data = this.deps.dataObjects;
    if (!data) throw badRequest('Importing objects needs the data plugin', undefined, 'DATA_PLUGIN_MISSING');
    return data;
  }

  /**
   * The classes to import, relation targets first: each must have been imported as a class already
   * (400 CLASS_NOT_IMPORTED otherwise). Fields are those whose mapping matches the class here.
   */
  async classes(
    sourceId: string,
    only?: readonly string[] | null,
  ): Promise<{ classes: ClassToImport[]; warnings: string[] }> {
    const source = await this.deps.sources.get(sourceId);
    const folder = await readClassFolder(source.classPath, this.deps.maxFileBytes);
    const defs = folder.filter((d) => d.kind === 'class');
    const componentDefs = folder.filter((d) => d.kind !== 'class');
    if (only) {
      const missing = only.find((n) => !defs.some((d) => d.name === n));
      if (missing !== undefined)
        throw badRequest(`No class file defines a class named "${missing}"`, 'classes', 'CLASS_NOT_IN_SOURCE');
    }
    const chosen: PimcoreDefinition[] = inDependencyOrder(only ? defs.filter((d) => only.includes(d.name)) : defs);
    const data = this.data();
    const warnings: string[] = [];
    const known = new Set<string>();
    for (const d of defs) if (await data.classByName(d.name)) known.add(d.name);
    const out: ClassToImport[] = [];
    for (const def of chosen) {
      const here = await data.classByName(def.name);
      if (!here)
        throw badRequest(
          `Class ${def.name} is not here yet: import the classes first (import-classes)`,
          'classes',
          'CLASS_NOT_IMPORTED',
        );
      const fields: ImportField[] = [];
      for (const f of def.fields) {
        const target = mapField(f, known).mapped.field;
        if (!target) continue;
        const mine = here.fields.find((x) => x.name === target.name);
        if (!mine || mine.type !== target.type) {
          warnings.push(`${def.name}.${f.name}: the class here has no ${target.type} field of this name; not imported`);
          continue;
        }
        fields.push({ source: f, target });
      }
      const components: ComponentField[] = [];
      for (const f of fields) {
        const kind =
          f.source.pimcoreType === 'fieldcollections'
            ? ('fieldcollection' as const)
            : f.source.pimcoreType === 'objectbricks'
              ? ('objectbrick' as const)
              : null;
        if (!kind) continue;
        const allowed = Object.values((f.source.settings.allowedTypes ?? {}) as Record<string, unknown>).filter(
          (v): v is string => typeof v === 'string',
        );
        const items = componentDefs
          .filter((d) => d.kind === kind && (allowed.length === 0 || allowed.includes(d.name)))
          .map((d) => ({
            key: d.pimcoreId,
            fields: d.fields
              .filter((x) => !x.translated)
              .flatMap((x) => {
                const t = mapField(x, known).mapped.field;
                return t ? [{ source: x, target: t }] : [];
              }),
          }));
        if (items.some((i) => componentDefs.find((d) => d.pimcoreId === i.key)?.fields.some((x) => x.translated)))
          warnings.push(`${def.name}.${f.source.name}: localized fields inside ${kind}s are not imported`);
        components.push({ name: f.source.name, kind, items });
      }
      out.push({
        name: def.name,
        pimcoreId: def.pimcoreId,
        fields,
        translated: fields.some((f) => f.source.translated),
        slugs: fields.some((f) => f.source.pimcoreType === 'urlSlug'),
        components,
      });
    }
    return { classes: out, warnings };
  }

  async connect(sourceId: string): Promise<mysql.Connection> {
    try {
      return await connectSource(this.deps.sources, this.deps.outboundGuard, sourceId, this.deps.connectTimeoutMs);
    } catch (err) {
      if (isHttpError(err)) throw err;
      throw new SourceUnavailable(connectionProblem(err) ?? `source database: ${(err as Error).message}`);
    }
  }

  async count(conn: mysql.Connection, classes: readonly ClassToImport[]): Promise<number> {
    return new PimcoreReader(conn).countObjects(classes.map((c) => c.pimcoreId));
  }

  /**
   * Runs a job from its checkpoint until it is done ('finished'), the signal asks it to stop between
   * batches ('aborted'), or its row says it is no longer this run's (cancelled, or another run moved
   * the checkpoint: 'stopped').
   */
  async run(
    job: ImportJobRow,
    classes: readonly ClassToImport[],
    conn: mysql.Connection,
    opts: { signal?: AbortSignal; progress?: (done: number, total: number) => Promise<void> } = {},
  ): Promise<'finished' | 'aborted' | 'stopped'> {
    const reader = new PimcoreReader(conn);
    const actor = actorOf(job);
    const ctx = { actor, changeActor: { type: 'import', id: job.actor.id } as ChangeActor };
    let cp: Checkpoint = job.checkpoint;
    let done = job.done;
    const sourceRoot = (await this.deps.sources.get(job.source_id)).assetsPath;
    const read = async <T>(what: () => Promise<T>): Promise<T> => {
      try {
        return await what();
      } catch (err) {
        const problem = connectionProblem(err);
        if (problem) throw new SourceUnavailable(problem);
        throw err;
      }
    };
    const ahead = new ReadAhead<SourceBatch>();
    let heldAt = performance.now();
    while (cp.phase !== 'done') {
      if (opts.signal?.aborted) return 'aborted';
      const cls = classes[cp.classIndex];
      if (!cls) {
        const next: Checkpoint =
          cp.phase === 'objects'
            ? { phase: 'relations', classIndex: 0, lastId: 0 }
            : { phase: 'done', classIndex: 0, lastId: 0 };
        if (!(await this.commit(job.id, cp, next, async () => EMPTY))) return 'stopped';
        cp = next;
        continue;
      }
      if (cp.phase === 'objects') {
        if (cp.lastId === 0 && !cp.bulk) cp = { ...cp, bulk: await this.beginBulk(reader, cls) };
        else if (cp.bulk && performance.now() - heldAt > HOLD_EVERY_MS) {
          await this.data().holdBulkLoad(cls.name);
          heldAt = performance.now();
        }
        const { rows, localized, relations, slugs, componentRows } = await ahead.take(cp.classIndex, cp.lastId, () =>
          read(() => this.readBatch(reader, cls, cp.lastId)),
        );
        if (rows.length === 0) {
          // Every object of the class is in: its field indexes are built (again, after a crash) before
          // the checkpoint moves on, so an import never ends with a class left unindexed.
          try {
            await this.data().finishBulkLoad(cls.name, opts.signal);
          } catch (err) {
            if (opts.signal?.aborted) return 'aborted';
            throw err;
          }
          const next = { phase: 'objects' as const, classIndex: cp.classIndex + 1, lastId: 0 };
          if (!(await this.commit(job.id, cp, next, async () => EMPTY))) return 'stopped';
          cp = next;
          continue;
        }
        const ids = rows.map((r) => r.id);
        const assetIds = rows.flatMap((r) => [
          ...assetIdsOf(
            cls.fields,
            r.store,
            relations.filter((x) => x.srcId === r.id),
          ),
          ...[...(localized.get(r.id)?.values() ?? [])].flatMap((l) => assetIdsOf(cls.fields, l, [])),
        ]);
        const known = await this.deps.store.mapped(this.deps.db, job.source_id, 'asset', assetIds);
        const assetRows = await read(() => reader.assets(assetIds.filter((id) => !known.has(id))));
        const next: Checkpoint = {
          phase: 'objects',
          classIndex: cp.classIndex,
          lastId: ids[ids.length - 1]!,
          ...(cp.bulk ? { bulk: true } : {}),
        };
        // The next page is read from the source while this one is written (the source and PostgreSQL
        // work at once); its asset lookups wait for this commit, so a file is never imported twice.
        ahead.start(next.classIndex, next.lastId, () => read(() => this.readBatch(reader, cls, next.lastId)));
        const ok = await this.commit(job.id, cp, next, async (trx) => {
          const warnings: string[] = [];
          const assets = await this.importAssets(trx, job, sourceRoot, assetRows, known, ctx.changeActor, warnings);
          const objects = await this.deps.store.mapped(trx, job.source_id, 'object', [
            ...ids,
            ...relations.map((r) => r.destId),
          ]);
          const built = rows.map((r) =>
            this.record(
              cls,
              r,
              localized.get(r.id),
              relations.filter((x) => x.srcId === r.id),
              slugs.get(r.id),
              {
                asset: (id) => assets.get(id),
                object: (id) => objects.get(id),
              },
              job.publish,
              objects.get(r.id),
              componentRows.get(r.id),
            ),
          );
          for (const b of built)
            for (const id of new Set(b.notes.missingAssets))
              warnings.push(`object ${b.record.ref}: asset ${id} is missing in assetsPath`);
          const { results } = await this.data().importObjects(
            { ...ctx, trx },
            { className: cls.name, publish: job.publish, records: built.map((b) => b.record) },
          );
          const counts: JobCounts = { created: 0, updated: 0, skipped: 0, failed: 0 };
          const failed: Array<{ sourceId: string; reason: string }> = [];
          const remember: Parameters<ImportStore['remember']>[2][number][] = [];
          results.forEach((res, i) => {
            if (res.status === 'failed') {
              counts.failed++;
              failed.push({ sourceId: res.ref, reason: res.reason ?? 'failed' });
              return;
            }
            if (res.status === 'created') counts.created++;
            else if (res.status === 'skipped' || res.status === 'unchanged') counts.skipped++;
            else counts.updated++;
            if (res.groupId)
              remember.push({
                kind: 'object',
                pimcoreId: Number(res.ref),
                targetId: res.groupId,
                className: cls.name,
                pending: built[i].notes.pendingObjects.length > 0,
              });
          });
          await this.deps.store.remember(trx, job.source_id, remember);
          return { done: rows.length, counts, failed, warnings };
        });
        if (!ok) return 'stopped';
        cp = next;
        done += rows.length;
        await opts.progress?.(done, job.total);
        continue;
      }
      // The relations pass: objects whose relations named objects not imported at the time.
      const pending = await this.deps.store.pendingRelations(
        this.deps.db,
        job.source_id,
        cls.name,
        cp.lastId,
        this.deps.batchSize,
      );
      if (pending.length === 0) {
        const next = { phase: 'relations' as const, classIndex: cp.classIndex + 1, lastId: 0 };
        if (!(await this.commit(job.id, cp, next, async () => EMPTY))) return 'stopped';
        cp = next;
        continue;
      }
      const ids = pending.map((p) => p.pimcoreId);
      const [relations, localized] = await read(() =>
        Promise.all([
          reader.relations(cls.pimcoreId, ids),
          cls.translated
            ? reader.localized(cls.pimcoreId, ids)
            : Promise.resolve(new Map<number, Map<string, CellRow>>()),
        ]),
      );
      const next = { phase: 'relations' as const, classIndex: cp.classIndex, lastId: ids[ids.length - 1] };
      const ok = await this.commit(job.id, cp, next, async (trx) => {
        const warnings: string[] = [];
        const objects = await this.deps.store.mapped(
          trx,
          job.source_id,
          'object',
          relations.map((r) => r.destId),
        );
        const assets = await this.deps.store.mapped(
          trx,
          job.source_id,
          'asset',
          relations.filter((r) => r.type === 'asset').map((r) => r.destId),
        );
        const relationFields = cls.fields.filter((f) => f.source.pimcoreType.endsWith('Relation'));
        const records: ImportRecord[] = pending.map((p) => {
          const mine = relations.filter((r) => r.srcId === p.pimcoreId);
          const notes: ValueNotes = { missingAssets: [], pendingObjects: [] };
          const lookups: Lookups = { asset: (id) => assets.get(id), object: (id) => objects.get(id) };
          const rows = this.languages(cls, localized.get(p.pimcoreId)).map((lang) => {
            const attributes: Record<string, unknown> = {};
            for (const f of relationFields) {
              const v = fieldValue(f, {}, relationsFor(mine, f, lang), undefined, lookups, notes);
              attributes[f.source.name] = v ?? null;
            }
            return { locale: localeOf(lang), key: null, published: false, attributes };
          });
          for (const id of new Set(notes.pendingObjects))
            warnings.push(`object ${p.pimcoreId}: a relation names object ${id}, which is not imported; left out`);
          return { ref: String(p.pimcoreId), groupId: p.targetId, merge: true, rows };
        });
        const { results } = await this.data().importObjects(
          { ...ctx, trx },
          { className: cls.name, publish: job.publish, records },
        );
        const failed = results
          .filter((r) => r.status === 'failed')
          .map((r) => ({ sourceId: r.ref, reason: `relations: ${r.reason ?? 'failed'}` }));
        await this.deps.store.clearPending(trx, job.source_id, ids);
        return { done: 0, counts: { created: 0, updated: 0, skipped: 0, failed: 0 }, failed, warnings };
      });
      if (!ok) return 'stopped';
      cp = next;
    }
    return 'finished';
  }

  /**
   * A class about to be imported from its first object: with at least `bulkMinObjects` objects in the
   * source, the data plugin is asked to bulk load it (it decides by the objects the class holds here).
   */
  private async beginBulk(reader: PimcoreReader, cls: ClassToImport): Promise<boolean> {
    if (this.deps.bulkMinObjects === 0) return false;
    const expected = await reader.countObjects([cls.pimcoreId]).catch((err) => {
      const problem = connectionProblem(err);
      if (problem) throw new SourceUnavailable(problem);
      throw err;
    });
    if (expected < this.deps.bulkMinObjects) return false;
    const { deferred, indexes, reason } = await this.data().beginBulkLoad(cls.name, expected);
    this.deps.log.info(
      { class: cls.name, expected, indexes, reason },
      deferred ? 'bulk load: field indexes built after the objects' : 'bulk load: the class keeps its indexes',
    );
    return deferred;
  }

  /** A page of a class's objects after `afterId` with their localized rows, relations, slugs and components. */
  private async readBatch(reader: PimcoreReader, cls: ClassToImport, afterId: number): Promise<SourceBatch> {
    const rows = await reader.objectsAfter(cls.pimcoreId, afterId, this.deps.batchSize);
    const ids = rows.map((r) => r.id);
    if (ids.length === 0)
      return { rows, localized: new Map(), relations: [], slugs: new Map(), componentRows: new Map() };
    const [localized, relations, slugs, componentRows] = await Promise.all([
      cls.translated ? reader.localized(cls.pimcoreId, ids) : Promise.resolve(new Map<number, Map<string, CellRow>>()),
      reader.relations(cls.pimcoreId, ids),
      cls.slugs ? reader.slugs(ids) : Promise.resolve(new Map<number, Map<string, string>>()),
      this.componentRows(reader, cls, ids),
    ]);
    return { rows, localized, relations, slugs, componentRows };
  }

  /**
   * One batch's transaction: the job row is locked and must still be running at the checkpoint this
   * run read (a cancel, or another run that moved on, stops this one before anything is written);
   * then the batch's writes and the new checkpoint commit together.
   */
  private async commit(
    jobId: string,
    expected: Checkpoint,
    next: Checkpoint,
    write: (trx: Tx) => Promise<BatchOutcome>,
  ): Promise<boolean> {
    return this.deps.db.transaction(async (trx) => {
      const row = await this.deps.store.getJob(jobId, trx, true);
      const at = row?.checkpoint;
      const same =
        at && at.phase === expected.phase && at.classIndex === expected.classIndex && at.lastId === expected.lastId;
      if (row?.state !== 'running' || !same) return false;
      const outcome = await write(trx);
      await this.deps.store.checkpoint(trx, jobId, next, outcome);
      return true;
    });
  }

  /** The languages of a record: those with localized rows (the default first), else the default. */
  private languages(cls: ClassToImport, localized: Map<string, CellRow> | undefined): string[] {
    const def = this.deps.defaultLocale.replace(/-/g, '_');
    const langs = cls.translated && localized && localized.size > 0 ? [...localized.keys()] : [def];
    return langs.sort((a, b) => (a === def ? -1 : b === def ? 1 : a.localeCompare(b)));
  }

  private record(
    cls: ClassToImport,
    row: { id: number; key: string; path: string; published: boolean; store: CellRow },
    localized: Map<string, CellRow> | undefined,
    relations: PimcoreRelation[],
    slugs: Map<string, string> | undefined,
    lookups: Lookups,
    publish: boolean,
    groupId: string | undefined,
    components?: Map<string, unknown>,
  ): { record: ImportRecord; notes: ValueNotes } {
    const notes: ValueNotes = { missingAssets: [], pendingObjects: [] };
    const rows = this.languages(cls, localized).map((lang) => {
      const attributes: Record<string, unknown> = {};
      for (const f of cls.fields) {
        const source = f.source.translated ? (localized?.get(lang) ?? {}) : row.store;
        const v = fieldValue(f, source, relationsFor(relations, f, lang), slugs, lookups, notes);
        if (v !== undefined) attributes[f.source.name] = v;
      }
      for (const [name, value] of components ?? []) attributes[name] = value;
      const folder = row.path.endsWith('/') ? row.path : `${row.path}/`;
      return {
        locale: localeOf(lang),
        key: row.key === '' ? null : row.key,
        path: `${folder}${row.key}`,
        published: publish && row.published,
        attributes,
      };
    });
    return { record: { ref: String(row.id), ...(groupId ? { groupId } : {}), rows }, notes };
  }

  /**
   * Field collection and object brick values of a batch's objects: object id -> field -> value.
   * A collection is a list of items `{ type, ...fields }` in Pimcore's order; bricks are an object
   * of brick name -> fields. Item fields are read like the class's own (relations and localized
   * fields inside items are not). An object without rows of a field gets no value for it.
   */
  private async componentRows(
    reader: PimcoreReader,
    cls: ClassToImport,
    ids: readonly number[],
  ): Promise<Map<number, Map<string, unknown>>> {
    const out = new Map<number, Map<string, unknown>>();
    const none: Lookups = { asset: () => undefined, object: () => undefined };
    for (const field of cls.components) {
      const byObject = new Map<number, Array<{ index: number; item: Record<string, unknown> }>>();
      for (const def of field.items) {
        for (const r of await reader.componentRows(field.kind, def.key, cls.pimcoreId, ids)) {
          if (r.fieldname !== field.name) continue;
          const item: Record<string, unknown> = field.kind === 'fieldcollection' ? { type: def.key } : {};
          const notes: ValueNotes = { missingAssets: [], pendingObjects: [] };
          for (const f of def.fields) {
            const v = fieldValue(f, r.row, [], undefined, none, notes);
            if (v !== undefined) item[f.source.name] = v;
          }
          const list = byObject.get(r.id) ?? [];
          list.push({ index: r.index, item: field.kind === 'objectbrick' ? { [def.key]: item } : item });
          byObject.set(r.id, list);
        }
      }
      for (const [id, list] of byObject) {
        const value =
          field.kind === 'fieldcollection'
            ? list.sort((a, b) => a.index - b.index).map((x) => x.item)
            : Object.assign({}, ...list.map((x) => x.item));
        const fieldsOf = out.get(id) ?? new Map<string, unknown>();
        fieldsOf.set(field.name, value);
        out.set(id, fieldsOf);
      }
    }
    return out;
  }

  /**
   * Library files for the batch's asset ids not imported before: copied from `assetsPath` (their
   * Pimcore path under it, never outside it) through the asset plugin's `importFile`, in the batch's
   * transaction. A file that is not there is a warning on the object, never a failure.
   */
  async importAssets(
    trx: Tx,
    job: Pick<ImportJobRow, 'source_id'>,
    root: string | null,
    rows: PimcoreAsset[],
    known: Map<number, string>,
    actor: ChangeActor,
    warnings: string[],
  ): Promise<Map<number, string>> {
    const out = new Map(known);
    if (rows.length === 0) return out;
    const library = this.deps.assetLibrary;
    const base = root ? await realpath(root).catch(() => null) : null;
    const remember: Array<{ kind: 'asset'; pimcoreId: number; targetId: string }> = [];
    for (const a of rows) {
      if (a.type === 'folder' || !a.filename) continue;
      const relative = `${a.path.replace(/^\/+/, '')}${a.filename}`;
      if (!library || !base) continue;
      const file = path.resolve(base, relative);
      const real = await realpath(file).catch(() => null);
      if (!real?.startsWith(`${base}${path.sep}`) || !(await stat(real)).isFile()) continue;
      try {
        const stored = await library.importFile({ file: real, path: relative, visibility: 'public', actor }, trx);
        out.set(a.id, stored.id);
        remember.push({ kind: 'asset', pimcoreId: a.id, targetId: stored.id });
      } catch (err) {
        if (!isHttpError(err)) throw err;
        warnings.push(`asset ${a.id} (${relative}): ${err.message}`);
      }
    }
    await this.deps.store.remember(trx, job.source_id, remember);
    return out;
  }
}

/** How often a bulk load tells the data plugin it goes on (its hold lasts DATA_BULK_LOAD_HOLD_SECONDS). */
const HOLD_EVERY_MS = 60_000;

/** What one page of the source holds for a batch. */
interface SourceBatch {
  rows: PimcoreObjectRow[];
  localized: Map<number, Map<string, CellRow>>;
  relations: PimcoreRelation[];
  slugs: Map<number, Map<string, string>>;
  componentRows: Map<number, Map<string, unknown>>;
}

interface BatchOutcome {
  done: number;
  counts: JobCounts;
  failed: Array<{ sourceId: string; reason: string }>;
  warnings: string[];
}
const EMPTY: BatchOutcome = {
  done: 0,
  counts: { created: 0, updated: 0, skipped: 0, failed: 0 },
  failed: [],
  warnings: [],
};

/** A field's relations: object-level ones, or those of one language inside localized fields. */
function relationsFor(all: readonly PimcoreRelation[], f: ImportField, lang: string): PimcoreRelation[] {
  return all.filter(
    (r) =>
      r.fieldname === f.source.name &&
      (f.source.translated ? r.ownertype === 'localizedfield' && r.position === lang : r.ownertype === 'object'),
  );
}

/** The job's actor as it was when it started (its permissions then). */
export function actorOf(job: ImportJobRow): Actor {
  return {
    type: 'user',
    id: job.actor.id,
    email: job.actor.email,
    displayName: job.actor.displayName,
    roles: job.actor.roles,
    permissions: new Set(job.actor.permissions),
  };
}
