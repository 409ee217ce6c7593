import type { Db, Tx } from '../../../kernel/index.ts';

export interface MailTemplateRow {
  id: string;
  key: string;
  name: string;
  subject: string;
  html: unknown;
  text: string;
  built_in: boolean;
  created_at: Date;
  updated_at: Date;
}

export type MailTemplateWrite = Partial<Pick<MailTemplateRow, 'key' | 'name' | 'subject' | 'html' | 'text'>>;

/** `mail_templates`. */
export class MailTemplateStore {
  constructor(private readonly db: Db) {}

  list(): Promise<MailTemplateRow[]> {
    return this.db<MailTemplateRow>('mail_templates').orderBy('key');
  }

  byId(id: string, trx?: Tx): Promise<MailTemplateRow | undefined> {
    return (trx ?? this.db)<MailTemplateRow>('mail_templates').where({ id }).first();
  }

  byKey(key: string): Promise<MailTemplateRow | undefined> {
    return this.db<MailTemplateRow>('mail_templates').where({ key }).first();
  }

  async insert(row: MailTemplateWrite & { built_in?: boolean }, now: Date, trx: Tx | Db): Promise<MailTemplateRow> {
    const [saved] = await trx<MailTemplateRow>('mail_templates')
      .insert({
        ...row,
        html: row.html === undefined ? null : JSON.stringify(row.html),
        created_at: now,
        updated_at: now,
      } as never)
      .returning('*');
    return saved!;
  }

  /** Adds the built-in templates that are missing (an administrator's edits and deletions stay). */
  async seed(rows: Array<MailTemplateWrite & { key: string }>): Promise<void> {
    if (!rows.length) return;
    await this.db('mail_templates')
      .insert(rows.map((r) => ({ ...r, html: r.html === undefined ? null : JSON.stringify(r.html), built_in: true })))
      .onConflict('key')
      .ignore();
  }

  async update(id: string, fields: MailTemplateWrite, now: Date, trx: Tx): Promise<MailTemplateRow | undefined> {
    const patch: Record<string, unknown> = { ...fields, updated_at: now };
    if (fields.html !== undefined) patch.html = fields.html === null ? null : JSON.stringify(fields.html);
    const [row] = await trx<MailTemplateRow>('mail_templates').where({ id }).update(patch).returning('*');
    return row;
  }

  async remove(id: string, trx: Tx): Promise<MailTemplateRow | undefined> {
    const [row] = await trx<MailTemplateRow>('mail_templates').where({ id }).delete().returning('*');
    return row;
  }
}
