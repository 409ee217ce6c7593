import type { Db, Tx } from '../../../kernel/index.ts';
import type { ContentNode } from '../services/node-tree.ts';
import { nextUpdatedAt } from './edit-time.ts';

export interface PageRow {
  id: string;
  website_id: string;
  locale: string;
  translation_group_id: string;
  path: string;
  dynamic: boolean;
  data_class: string | null;
  title: string;
  content: ContentNode;
  seo: Record<string, unknown>;
  in_sitemap: boolean;
  indexable: boolean;
  published: boolean;
  published_at: Date | null;
  kind: string | null;
  thumbnail: string | null;
  created_at: Date;
  updated_at: Date;
}

export type PageWrite = Partial<Omit<PageRow, 'created_at' | 'updated_at'>>;

/** Columns of lists: everything but the content and the thumbnail. */
const LIST_COLUMNS = [
  'id',
  'website_id',
  'locale',
  'translation_group_id',
  'path',
  'dynamic',
  'data_class',
  'title',
  'seo',
  'in_sitemap',
  'indexable',
  'published',
  'published_at',
  'kind',
  'created_at',
  'updated_at',
];

const json = (w: PageWrite) => ({
  ...w,
  ...(w.content ? { content: JSON.stringify(w.content) } : {}),
  ...(w.seo ? { seo: JSON.stringify(w.seo) } : {}),
});

export class PageStore {
  constructor(private readonly db: Db) {}

  /**
   * The `notify` blocks of the forms for `classId` in published pages (a visitor can only have seen
   * those): nodes `{ type: 'form', props: { classId, notify } }` anywhere in a page's tree.
   */
  async formNotifyBlocks(classId: string, trx?: Tx): Promise<Array<{ website_id: string; notify: unknown }>> {
    // `\\?` is knex's escape for a literal `?` (the jsonpath filter), not a binding.
    const form = 'strict $.** \\? (@.type == "form" && @.props.classId == $cid)';
    const { rows } = await (trx ?? this.db).raw(
      `select website_id, jsonb_path_query(content, '${form}.props.notify', vars, true) as notify
         from content_pages, jsonb_build_object('cid', ?::text) as vars
        where published and jsonb_path_exists(content, '${form}', vars, true)`,
      [classId],
    );
    return rows;
  }

  /**
   * Whether a visitor can see a form block for `classId`: in a published page's tree, or in a layout
   * region of a website that has a published page (layouts are drawn around published pages only).
   */
  async publishesForm(classId: string, trx?: Tx): Promise<boolean> {
    const form = 'strict $.** \\? (@.type == "form" && @.props.classId == $cid)';
    const { rows } = await (trx ?? this.db).raw(
      `select exists (select 1 from content_pages
                       where published and jsonb_path_exists(content, '${form}', vars, true))
           or exists (select 1 from content_layouts l
                       where jsonb_path_exists(l.regions, '${form}', vars, true)
                         and exists (select 1 from content_pages p where p.website_id = l.website_id and p.published))
              as live
         from jsonb_build_object('cid', ?::text) as vars`,
      [classId],
    );
    return rows[0]?.live === true;
  }

  list(filter: { websiteId?: string; limit: number; offset: number }, trx?: Tx): Promise<PageRow[]> {
    const q = (trx ?? this.db)('content_pages')
      .select(LIST_COLUMNS)
      .orderBy([{ column: 'website_id' }, { column: 'locale' }, { column: 'path' }])
      .limit(filter.limit)
      .offset(filter.offset);
    if (filter.websiteId) q.where({ website_id: filter.websiteId });
    return q;
  }

  find(id: string, trx?: Tx): Promise<PageRow | undefined> {
    return (trx ?? this.db)('content_pages').where({ id }).first();
  }

  findForUpdate(id: string, trx: Tx): Promise<PageRow | undefined> {
    return trx('content_pages').where({ id }).forUpdate().first();
  }

  translations(groupId: string, trx?: Tx): Promise<PageRow[]> {
    return (trx ?? this.db)('content_pages')
      .select(LIST_COLUMNS)
      .where({ translation_group_id: groupId })
      .orderBy('locale')
      .limit(1000);
  }

  async insert(w: PageWrite, trx: Tx): Promise<PageRow> {
    const [row] = await trx('content_pages').insert(json(w)).returning('*');
    return row;
  }

  async update(id: string, w: PageWrite, trx: Tx): Promise<PageRow> {
    const [row] = await trx('content_pages')
      .where({ id })
      .update({ ...json(w), updated_at: nextUpdatedAt(trx) })
      .returning('*');
    return row;
  }

  async remove(id: string, trx: Tx): Promise<void> {
    await trx('content_pages').where({ id }).delete();
  }

  /** Every page in batches (search reindex), content included. */
  async *batches(trx: Tx, size = 500): AsyncIterable<PageRow[]> {
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const rows: PageRow[] = await trx('content_pages').where('id', '>', after).orderBy('id').limit(size);
      if (!rows.length) return;
      yield rows;
      after = rows[rows.length - 1].id;
    }
  }

  websiteLocales(websiteId: string, trx: Tx | Db): Promise<{ locales: string[] } | undefined> {
    return trx('content_websites').select('locales').where({ id: websiteId }).first();
  }

  websiteName(
    websiteId: string,
    trx: Tx | Db,
  ): Promise<{ id: string; name: string; root_path: string; locales: string[] } | undefined> {
    return trx('content_websites').select('id', 'name', 'root_path', 'locales').where({ id: websiteId }).first();
  }

  async groupHasLocale(groupId: string, locale: string, trx: Tx): Promise<boolean> {
    return !!(await trx('content_pages').where({ translation_group_id: groupId, locale }).first('id'));
  }
}
