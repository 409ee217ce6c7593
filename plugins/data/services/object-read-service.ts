import { badRequest, notFound } from '../../../kernel/index.ts';
import { toObjectDto, type ObjectDto, type ObjectRow } from '../model.ts';
import { fetchByIds, fetchPage, type SqlCondition } from '../store/object-query-store.ts';
import { findGroupRows, findObjectById } from '../store/object-store.ts';
import { isUuid } from './attributes.ts';
import type { DataServiceDeps } from './deps.ts';
import { checkLocale } from './object-rules.ts';

export const BATCH_MAX_IDS = 100;

/** Object reads for the admin and public routes; class names come from the schema cache. */
export class ObjectReadService {
  constructor(private readonly deps: DataServiceDeps) {}

  async toDtos(rows: readonly ObjectRow[]): Promise<ObjectDto[]> {
    const out: ObjectDto[] = [];
    for (const row of rows) {
      const cls = await this.deps.schema.classById(row.class_id);
      out.push(toObjectDto(row, cls?.name ?? ''));
    }
    return out;
  }

  /** One object; the public audience gets the same 404 for drafts as for unknown ids. */
  async get(id: string, audience: 'admin' | 'public'): Promise<ObjectDto> {
    const row = isUuid(id) ? await findObjectById(this.deps.kernel.db, id, undefined, this.deps.locator) : null;
    if (!row || (audience === 'public' && !row.published)) throw notFound('Object not found', 'OBJECT_NOT_FOUND');
    return (await this.toDtos([row]))[0];
  }

  async list(opts: {
    classId?: string;
    className?: string;
    locale?: string;
    limit: number;
    offset: number;
    publishedOnly: boolean;
  }): Promise<{ objects: ObjectDto[]; total: number; hasMore: boolean }> {
    const conditions: SqlCondition[] = [];
    if (opts.classId !== undefined) {
      if (!isUuid(opts.classId)) throw badRequest('classId must be a uuid', 'classId');
      conditions.push({ sql: 'class_id = ?', bindings: [opts.classId] });
    }
    if (opts.className !== undefined) {
      const cls = await this.deps.schema.classByName(opts.className);
      if (!cls) throw badRequest(`No class is named "${opts.className}"`, 'className');
      conditions.push({ sql: 'class_id = ?', bindings: [cls.id] });
    }
    if (opts.publishedOnly) conditions.push({ sql: 'published', bindings: [] });
    if (opts.locale !== undefined) conditions.push({ sql: 'locale = ?', bindings: [checkLocale(opts.locale)] });
    // The admin list always counts (editors page through a class; traffic is low).
    const { rows, total, hasMore } = await fetchPage(
      this.deps.kernel.db,
      conditions,
      [
        { sql: 'created_at', bindings: [], direction: 'desc' },
        { sql: 'id', bindings: [], direction: 'desc' },
      ],
      opts.limit,
      opts.offset,
      true,
      this.deps.kernel.pluginConfig.DATA_MAX_PAGE_BYTES,
    );
    return { objects: await this.toDtos(rows), total: total ?? 0, hasMore };
  }

  /** Several objects in the order asked; ids not found (or drafts, publicly) are left out. */
  async batch(rawIds: string, audience: 'admin' | 'public'): Promise<{ objects: ObjectDto[]; missing: string[] }> {
    const ids = parseIds(rawIds);
    const rows = await fetchByIds(this.deps.kernel.db, ids, audience === 'public', this.deps.locator);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const found = ids.map((id) => byId.get(id)).filter((r): r is ObjectRow => r !== undefined);
    return { objects: await this.toDtos(found), missing: ids.filter((id) => !byId.has(id)) };
  }

  async translationsOf(id: string): Promise<ObjectDto[]> {
    const row = isUuid(id) ? await findObjectById(this.deps.kernel.db, id, undefined, this.deps.locator) : null;
    if (!row) throw notFound('Object not found', 'OBJECT_NOT_FOUND');
    return this.toDtos(
      await findGroupRows(this.deps.kernel.db, row.translation_group_id, undefined, this.deps.locator),
    );
  }

  async translationGroup(groupId: string): Promise<ObjectDto[]> {
    const rows = isUuid(groupId) ? await findGroupRows(this.deps.kernel.db, groupId, undefined, this.deps.locator) : [];
    if (rows.length === 0) throw notFound('Translation group not found', 'TRANSLATION_GROUP_NOT_FOUND');
    return this.toDtos(rows);
  }
}

/** `a,b,c` -> distinct lowercase uuids (1..100), or 400 naming `ids`. */
export function parseIds(raw: string | readonly string[]): string[] {
  const list = (typeof raw === 'string' ? raw.split(',') : [...raw]).map((s) => s.trim().toLowerCase()).filter(Boolean);
  if (list.length === 0) throw badRequest('ids must name at least one object', 'ids');
  if (list.length > BATCH_MAX_IDS) throw badRequest(`ids takes at most ${BATCH_MAX_IDS} ids`, 'ids');
  const bad = list.findIndex((id) => !isUuid(id));
  if (bad >= 0) throw badRequest(`ids.${bad} is not a uuid`, 'ids');
  return [...new Set(list)];
}
