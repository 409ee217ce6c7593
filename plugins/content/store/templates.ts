import type { Db, Tx } from '../../../kernel/index.ts';
import type { ContentNode } from '../services/node-tree.ts';
import { nextUpdatedAt } from './edit-time.ts';

export interface TemplateRow {
  id: string;
  path: string;
  name: string;
  content: ContentNode;
  created_at: Date;
  updated_at: Date;
}
export interface KitRow {
  id: string;
  name: string;
  template_ids: string[];
  created_at: Date;
  updated_at: Date;
}

/** Whole-page templates (unique path) and kits (named, ordered collections of templates). */
export class TemplateStore {
  constructor(private readonly db: Db) {}

  listTemplates(limit: number, offset: number): Promise<Array<Omit<TemplateRow, 'content'>>> {
    return this.db('content_templates')
      .select('id', 'path', 'name', 'created_at', 'updated_at')
      .orderBy('path')
      .limit(limit)
      .offset(offset);
  }

  findTemplate(id: string, trx?: Tx): Promise<TemplateRow | undefined> {
    return (trx ?? this.db)('content_templates').where({ id }).first();
  }

  /** The row, locked until the transaction ends (a write checks its `If-Match` against it). */
  findTemplateForUpdate(id: string, trx: Tx): Promise<TemplateRow | undefined> {
    return trx('content_templates').where({ id }).forUpdate().first();
  }

  async insertTemplate(t: { path: string; name: string; content: ContentNode }, trx: Tx): Promise<TemplateRow> {
    const [row] = await trx('content_templates')
      .insert({ ...t, content: JSON.stringify(t.content) })
      .returning('*');
    return row;
  }

  async updateTemplate(
    id: string,
    t: { path?: string; name?: string; content?: ContentNode },
    trx: Tx,
  ): Promise<TemplateRow | undefined> {
    const [row] = await trx('content_templates')
      .where({ id })
      .update({ ...t, ...(t.content ? { content: JSON.stringify(t.content) } : {}), updated_at: nextUpdatedAt(trx) })
      .returning('*');
    return row;
  }

  async removeTemplate(id: string, trx: Tx): Promise<boolean> {
    // Kits keep their order without the removed template.
    await trx('content_kits')
      .whereRaw('template_ids \\? ?', [id])
      .update({ template_ids: trx.raw('template_ids - ?', [id]), updated_at: nextUpdatedAt(trx) });
    return (await trx('content_templates').where({ id }).delete()) > 0;
  }

  listKits(limit: number, offset: number): Promise<KitRow[]> {
    return this.db('content_kits').select('*').orderBy('name').limit(limit).offset(offset);
  }

  findKit(id: string, trx?: Tx): Promise<KitRow | undefined> {
    return (trx ?? this.db)('content_kits').where({ id }).first();
  }

  async insertKit(k: { name: string; template_ids: string[] }, trx: Tx): Promise<KitRow> {
    const [row] = await trx('content_kits')
      .insert({ name: k.name, template_ids: JSON.stringify(k.template_ids) })
      .returning('*');
    return row;
  }

  findKitForUpdate(id: string, trx: Tx): Promise<KitRow | undefined> {
    return trx('content_kits').where({ id }).forUpdate().first();
  }

  async updateKit(id: string, k: { name?: string; template_ids?: string[] }, trx: Tx): Promise<KitRow | undefined> {
    const [row] = await trx('content_kits')
      .where({ id })
      .update({
        ...(k.name !== undefined ? { name: k.name } : {}),
        ...(k.template_ids !== undefined ? { template_ids: JSON.stringify(k.template_ids) } : {}),
        updated_at: nextUpdatedAt(trx),
      })
      .returning('*');
    return row;
  }

  async appendToKit(id: string, templateId: string, trx: Tx): Promise<KitRow | undefined> {
    const [row] = await trx('content_kits')
      .where({ id })
      .update({
        template_ids: trx.raw('template_ids || jsonb_build_array(?::text)', [templateId]),
        updated_at: nextUpdatedAt(trx),
      })
      .returning('*');
    return row;
  }

  async removeKit(id: string, trx: Tx): Promise<boolean> {
    return (await trx('content_kits').where({ id }).delete()) > 0;
  }

  async existingTemplateIds(ids: string[], trx: Tx): Promise<Set<string>> {
    const rows: Array<{ id: string }> = ids.length
      ? await trx('content_templates').select('id').whereIn('id', ids)
      : [];
    return new Set(rows.map((r) => r.id));
  }
}
