import type { AuditContext, Tx, WriteOptions } from '../../../kernel/index.ts';
import { type ClassRow, toObjectDto, type ObjectDto } from '../model.ts';
import type { WriteContext } from './actor.ts';
import { isUuid } from './attributes.ts';
import { toStaffDto } from './drafts.ts';
import type { DataServices } from './index.ts';
import type { CreateObjectInput, UpdateObjectInput, WriteGuard } from './object-service.ts';
import type { BulkLoadStart } from './bulk-loads.ts';
import type { ImportObjectsInput, ImportRecordResult } from './import-writes.ts';
import type { CachedAnswer } from './public-read-cache.ts';
import type { QueryInput } from './query-service.ts';

/**
 * What the data plugin offers other plugins (manifest `provides: dataObjects`): published reads for
 * the gateway and site renderers, and object writes that join a caller's transaction (`ctx.trx`), so
 * an import can write pages, objects and assets all or nothing. Access checks stay with the caller's
 * route; record-change events are announced here as on the plugin's own routes.
 */
export interface DataObjectsApi {
  /** One published object; a draft answers the same 404 as an unknown id. */
  getPublished(id: string): Promise<ObjectDto>;
  /** A page of published objects of a class, with the public API's filters and sorts. */
  queryPublished(
    input: QueryInput,
  ): Promise<{ objects: ObjectDto[]; hasMore: boolean; total?: number; nextCursor?: string }>;
  /**
   * The public API's answers as JSON text (`body`) with their ETag, unparsed: the one published object
   * (`ObjectDto`) and the page (`{ objects, hasMore, total?, nextCursor? }`). While the read cache
   * holds an answer, every call returns the *same* object, so a caller that reshapes answers can keep
   * its own form in a `WeakMap` keyed by it: a change of the class's objects gives a new object.
   */
  publishedAnswer(id: string, opts?: PublishedReadOptions): Promise<PublishedAnswer>;
  publishedPageAnswer(input: QueryInput, opts?: PublishedReadOptions): Promise<PublishedAnswer>;
  /** A class's name and fields from the in-memory definitions (no query once read), or null. */
  classById(id: string): Promise<ClassSummary | null>;
  /** The same by name (an import asks whether a class of its name exists), or null. */
  classByName(name: string): Promise<ClassSummary | null>;
  /** Every class's name (an API client's scope is checked against them). */
  classNames(): Promise<string[]>;
  /** A component's name and fields, or null (an import asks whether one of its name exists). */
  componentByName(name: string): Promise<ComponentSummary | null>;
  /**
   * Creates a component as `POST /data-components` does (same checks), in the caller's transaction
   * when `opts.trx` is given. Access checks stay with the caller.
   */
  createComponent(
    input: { name: string; label?: string; fields: unknown[] },
    opts?: WriteOptions,
  ): Promise<ComponentSummary>;
  /**
   * Creates a class as `POST /data-classes` does (same checks, its `data_class.create` audit row),
   * in the caller's transaction when `opts.trx` is given. Access checks stay with the caller.
   */
  createClass(
    ctx: AuditContext,
    input: { name: string; label?: string; fields: unknown[] },
    opts?: WriteOptions,
  ): Promise<ClassSummary>;
  /**
   * Checks a published query against its class without running it: throws the 400 the public query
   * route would answer (`filters.0.op`, `orderBy.0.field`, `locale`...), so a caller can refuse a
   * stored query when it is saved rather than when it is read.
   */
  checkPublishedQuery(input: QueryInput): Promise<void>;
  /** `guard`: a new language joins only a record whose rows it allows (else the unknown-group 400). */
  create(ctx: WriteContext, input: CreateObjectInput, guard?: WriteGuard): Promise<ObjectDto>;
  /** `guard`: a row it does not allow answers the missing-object 404 before any check of the input. */
  update(ctx: WriteContext, id: string, input: UpdateObjectInput, guard?: WriteGuard): Promise<ObjectDto>;
  remove(ctx: WriteContext, id: string): Promise<void>;
  /**
   * An import's batch of records of one class (services/import-writes.ts), in the caller's
   * transaction: every value passes the API's checks, new rows go in with one INSERT, and the batch
   * is announced with one `object.bulk` event (`bulk.kind: import`) with `ctx.changeActor`. A record
   * that fails is reported in its result and not written; without `objects:publish` new rows are drafts.
   */
  importObjects(ctx: WriteContext & { trx: Tx }, input: ImportObjectsInput): Promise<{ results: ImportRecordResult[] }>;
  /**
   * An import about to write `expected` objects into a class (services/bulk-loads.ts): when the class
   * holds fewer, its partition's field indexes are dropped until `finishBulkLoad` builds them again
   * (`deferred: true`); reads stay right meanwhile, only slower. A build of them is due
   * `DATA_BULK_LOAD_HOLD_SECONDS` later whatever happens to the import; `holdBulkLoad` moves it later.
   */
  beginBulkLoad(className: string, expected: number): Promise<BulkLoadStart>;
  holdBulkLoad(className: string): Promise<void>;
  /** Builds the class's field indexes (CONCURRENTLY) and analyzes its partition; again after a crash is fine. */
  finishBulkLoad(className: string, signal?: AbortSignal): Promise<void>;
}

export type PublishedAnswer = Readonly<CachedAnswer>;

/** A component as other plugins see it: the same shape as a class. */
export type ComponentSummary = ClassSummary;

export interface ClassSummary {
  id: string;
  name: string;
  label: string;
  /** What a form for the class needs too (the content plugin's form block): rules, options. */
  fields: Array<{
    name: string;
    type: string;
    label?: string;
    required?: boolean;
    options?: string[];
    validation?: { min?: number; max?: number; minLength?: number; maxLength?: number };
  }>;
}

/** Where a published read comes from. */
export interface PublishedReadOptions {
  /**
   * A staff preview (the canvas): read the primary, past the read cache, never the read replica,
   * so an editor sees the write they just made.
   */
  primary?: boolean;
}

export function dataObjectsApi(data: DataServices): DataObjectsApi {
  return {
    // The public routes' answers, cached and invalidated the same way; parsed anew for each caller.
    getPublished: async (id) => JSON.parse((await data.publicReads.byId(id)).body),
    queryPublished: async (input) => JSON.parse((await data.publicReads.page(input)).body),
    publishedAnswer: (id, opts) => (opts?.primary ? data.primaryReads : data.publicReads).byId(id),
    publishedPageAnswer: (input, opts) => (opts?.primary ? data.primaryReads : data.publicReads).page(input),
    async classById(id) {
      const cls = isUuid(id) ? await data.schema.classById(id.toLowerCase()) : null;
      return cls ? summaryOf(cls) : null;
    },
    async classByName(name) {
      const cls = await data.schema.classByName(name);
      return cls ? summaryOf(cls) : null;
    },
    async classNames() {
      return (await data.classes.list()).map((cls) => cls.name);
    },
    async componentByName(name) {
      const found = (await data.components.list()).find((c) => c.name === name);
      return found ? summaryOf(found) : null;
    },
    async createComponent(input, opts) {
      return summaryOf(await data.components.create(input, opts));
    },
    async createClass(ctx, input, opts) {
      return summaryOf(await data.classes.create(ctx, input, opts));
    },
    async checkPublishedQuery(input) {
      data.query.plan(await data.query.classNamed(input.className), input, 'public');
    },
    async create(ctx, input, guard) {
      const { row, className } = await data.objects.create(ctx, input, guard);
      return toObjectDto(row, className);
    },
    async update(ctx, id, input, guard) {
      const { row, className, draft } = await data.objects.update(ctx, id, input, guard);
      return toStaffDto(row, className, draft);
    },
    remove: (ctx, id) => data.objects.remove(ctx, id),
    importObjects: (ctx, input) => data.imports.run(ctx, input),
    beginBulkLoad: (className, expected) => data.bulkLoads.begin(className, expected),
    holdBulkLoad: (className) => data.bulkLoads.hold(className),
    finishBulkLoad: (className, signal) => data.bulkLoads.finish(className, signal),
  };
}

function summaryOf(cls: Pick<ClassRow, 'id' | 'name' | 'label' | 'fields'>): ClassSummary {
  const fields = cls.fields.map((f) => {
    const { pattern: _, ...validation } = f.validation ?? {};
    return {
      name: f.name,
      type: f.type,
      ...(f.label ? { label: f.label } : {}),
      ...(f.required ? { required: true } : {}),
      ...(f.options ? { options: [...f.options] } : {}),
      ...(f.validation ? { validation } : {}),
    };
  });
  return { id: cls.id, name: cls.name, label: cls.label, fields };
}
