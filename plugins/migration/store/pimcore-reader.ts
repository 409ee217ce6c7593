import type mysql from 'mysql2/promise';

/** A column value as the driver gives it (dates and big numbers as strings). */
export type Cell = string | number | null | Buffer;
export type CellRow = Record<string, Cell>;

export interface PimcoreObjectRow {
  id: number;
  key: string;
  /** The parent folder's path (`/shop/`): the object's path is `path + key`. */
  path: string;
  published: boolean;
  /** The columns of `object_store_<classId>`. */
  store: CellRow;
}

export interface PimcoreRelation {
  srcId: number;
  destId: number;
  type: 'object' | 'asset' | 'document';
  fieldname: string;
  index: number;
  ownertype: string;
  /** The language of a relation inside localized fields. */
  position: string;
}

export interface PimcoreAsset {
  id: number;
  type: string;
  filename: string;
  path: string;
}

/** A row of `documents` with its page, snippet or link row. */
export interface PimcoreDocument {
  id: number;
  parentId: number | null;
  type: string;
  key: string;
  index: number;
  published: boolean;
  /** documents_page */
  title: string | null;
  description: string | null;
  /** documents_link */
  linktype: string | null;
  internalType: string | null;
  internal: number | null;
  direct: string | null;
}

export interface PimcoreEditable {
  name: string;
  type: string;
  /** The column as stored, cut at the reader's limit (`tooLarge` then). */
  data: string | null;
  tooLarge: boolean;
}

/** Pimcore class ids go into table names: only what Pimcore itself allows. */
const CLASS_ID = /^[A-Za-z0-9_]{1,50}$/;

/**
 * Reads a Pimcore 11 database (the only place with the source's SQL): objects of a class in id order
 * after a given id (keyset pages: streamed, never the whole table in memory), their localized rows,
 * relations and URL slugs, and asset rows. Class ids are checked before they name a table.
 */
export class PimcoreReader {
  private readonly tables = new Map<string, boolean>();

  constructor(private readonly conn: mysql.Connection) {}

  private table(prefix: string, classId: string): string {
    if (!CLASS_ID.test(classId)) throw new Error(`class id "${classId.slice(0, 60)}" is not a Pimcore class id`);
    return `${prefix}${classId}`;
  }

  private async exists(name: string): Promise<boolean> {
    const known = this.tables.get(name);
    if (known !== undefined) return known;
    const [rows] = await this.conn.query<mysql.RowDataPacket[]>(
      'SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?',
      [name],
    );
    const found = Number(rows[0]?.n ?? 0) > 0;
    this.tables.set(name, found);
    return found;
  }

  async countObjects(classIds: readonly string[]): Promise<number> {
    if (classIds.length === 0) return 0;
    const [rows] = await this.conn.query<mysql.RowDataPacket[]>(
      "SELECT COUNT(*) AS n FROM objects WHERE classId IN (?) AND type <> 'folder'",
      [classIds],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async objectsAfter(classId: string, afterId: number, limit: number): Promise<PimcoreObjectRow[]> {
    const store = this.table('object_store_', classId);
    const hasStore = await this.exists(store);
    const [rows] = await this.conn.query<mysql.RowDataPacket[]>(
      `SELECT o.id AS __id, o.\`key\` AS __key, o.path AS __path, o.published AS __published${hasStore ? ', s.*' : ''}
         FROM objects o ${hasStore ? `LEFT JOIN \`${store}\` s ON s.oo_id = o.id` : ''}
        WHERE o.classId = ? AND o.type <> 'folder' AND o.id > ?
        ORDER BY o.id LIMIT ?`,
      [classId, afterId, limit],
    );
    return rows.map((r) => {
      const { __id, __key, __path, __published, ...rest } = r as CellRow;
      return {
        id: Number(__id),
        key: String(__key ?? ''),
        path: String(__path ?? '/'),
        published: Number(__published) === 1,
        store: rest,
      };
    });
  }

  /** Pimcore id -> language -> the localized columns. */
  async localized(classId: string, ids: readonly number[]): Promise<Map<number, Map<string, CellRow>>> {
    const out = new Map<number, Map<string, CellRow>>();
    const name = this.table('object_localized_data_', classId);
    if (ids.length === 0 || !(await this.exists(name))) return out;
    const [rows] = await this.conn.query<mysql.RowDataPacket[]>(
      `SELECT * FROM \`${name}\` WHERE ooo_id IN (?) ORDER BY ooo_id, language`,
      [ids],
    );
    for (const r of rows) {
      const { ooo_id, language, ...rest } = r as CellRow;
      const id = Number(ooo_id);
      const byLang = out.get(id) ?? new Map<string, CellRow>();
      byLang.set(String(language), rest);
      out.set(id, byLang);
    }
    return out;
  }

  async relations(classId: string, ids: readonly number[]): Promise<PimcoreRelation[]> {
    const name = this.table('object_relations_', classId);
    if (ids.length === 0 || !(await this.exists(name))) return [];
    const [rows] = await this.conn.query<mysql.RowDataPacket[]>(
      `SELECT src_id, dest_id, type, fieldname, \`index\`, ownertype, position FROM \`${name}\`
        WHERE src_id IN (?) ORDER BY src_id, fieldname, \`index\``,
      [ids],
    );
    return rows.map((r) => ({
      srcId: Number(r.src_id),
      destId: Number(r.dest_id),
      type: r.type,
      fieldname: String(r.fieldname),
      index: Number(r.index),
      ownertype: String(r.ownertype),
      position: String(r.position ?? ''),
    }));
  }

  /** URL slugs of the default site: object id -> field -> slug. */
  async slugs(ids: readonly number[]): Promise<Map<number, Map<string, string>>> {
    const out = new Map<number, Map<string, string>>();
    if (ids.length === 0 || !(await this.exists('object_url_slugs'))) return out;
    const [rows] = await this.conn.query<mysql.RowDataPacket[]>(
      'SELECT objectId, fieldname, slug FROM object_url_slugs WHERE objectId IN (?) AND siteId = 0',
      [ids],
    );
    for (const r of rows) {
      const byField = out.get(Number(r.objectId)) ?? new Map<string, string>();
      byField.set(String(r.fieldname), String(r.slug));
      out.set(Number(r.objectId), byField);
    }
    return out;
  }

  /** Which of these ids are objects of the source (a relation to anything else is dropped). */
  async objectClasses(ids: readonly number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    const [rows] = await this.conn.query<mysql.RowDataPacket[]>(
      "SELECT id, className FROM objects WHERE id IN (?) AND type <> 'folder'",
      [ids],
    );
    return new Map(rows.map((r) => [Number(r.id), String(r.className ?? '')]));
  }

  async assets(ids: readonly number[]): Promise<PimcoreAsset[]> {
    if (ids.length === 0) return [];
    const [rows] = await this.conn.query<mysql.RowDataPacket[]>(
      'SELECT id, type, filename, path FROM assets WHERE id IN (?)',
      [ids],
    );
    return rows.map((r) => ({
      id: Number(r.id),
      type: String(r.type),
      filename: String(r.filename ?? ''),
      path: String(r.path ?? '/'),
    }));
  }

  async countDocuments(): Promise<number> {
    const [rows] = await this.conn.query<mysql.RowDataPacket[]>('SELECT COUNT(*) AS n FROM documents');
    return Number(rows[0]?.n ?? 0);
  }

  /** Every document with its page, snippet or link row, in id order (at most `limit`). */
  async documents(limit: number): Promise<PimcoreDocument[]> {
    const [rows] = await this.conn.query<mysql.RowDataPacket[]>(
      `SELECT d.id, d.parentId, d.type, d.\`key\`, d.\`index\`, d.published, p.title, p.description,
              l.linktype, l.internalType, l.internal, l.direct
         FROM documents d
         LEFT JOIN documents_page p ON p.id = d.id
         LEFT JOIN documents_link l ON l.id = d.id
        ORDER BY d.id LIMIT ?`,
      [limit],
    );
    return rows.map((r) => ({
      id: Number(r.id),
      parentId: r.parentId === null ? null : Number(r.parentId),
      type: String(r.type ?? ''),
      key: String(r.key ?? ''),
      index: Number(r.index ?? 0),
      published: Number(r.published) === 1,
      title: r.title === null ? null : String(r.title),
      description: r.description === null ? null : String(r.description),
      linktype: r.linktype === null ? null : String(r.linktype),
      internalType: r.internalType === null ? null : String(r.internalType),
      internal: r.internal === null ? null : Number(r.internal),
      direct: r.direct === null ? null : String(r.direct),
    }));
  }

  /** The editables of these documents: document id -> editables (each value cut at `maxChars`). */
  async editables(ids: readonly number[], maxChars: number): Promise<Map<number, PimcoreEditable[]>> {
    const out = new Map<number, PimcoreEditable[]>();
    if (ids.length === 0) return out;
    const [rows] = await this.conn.query<mysql.RowDataPacket[]>(
      `SELECT documentId, name, type, LEFT(data, ?) AS data, CHAR_LENGTH(data) > ? AS tooLarge
         FROM documents_editables WHERE documentId IN (?) ORDER BY documentId, name`,
      [maxChars, maxChars, ids],
    );
    for (const r of rows) {
      const list = out.get(Number(r.documentId)) ?? [];
      list.push({
        name: String(r.name),
        type: String(r.type ?? ''),
        data: r.data === null ? null : String(r.data),
        tooLarge: Number(r.tooLarge) === 1,
      });
      out.set(Number(r.documentId), list);
    }
    return out;
  }

  /**
   * Rows of a field collection (`object_collection_<key>_<classId>`) or an object brick
   * (`object_brick_store_<key>_<classId>`) for these objects, in object and item order. Answers
   * nothing when the table is not there (the class has no such item yet).
   */
  async componentRows(
    kind: 'fieldcollection' | 'objectbrick',
    key: string,
    classId: string,
    ids: readonly number[],
  ): Promise<Array<{ id: number; index: number; fieldname: string; row: CellRow }>> {
    if (!CLASS_ID.test(key)) throw new Error(`"${key.slice(0, 60)}" is not a Pimcore component key`);
    const name = this.table(
      kind === 'fieldcollection' ? `object_collection_${key}_` : `object_brick_store_${key}_`,
      classId,
    );
    if (ids.length === 0 || !(await this.exists(name))) return [];
    const [rows] = await this.conn.query<mysql.RowDataPacket[]>(
      `SELECT * FROM \`${name}\` WHERE id IN (?) ORDER BY id, fieldname${kind === 'fieldcollection' ? ', `index`' : ''}`,
      [ids],
    );
    return rows.map((r) => {
      const { id, index, fieldname, ...rest } = r as CellRow;
      return { id: Number(id), index: Number(index ?? 0), fieldname: String(fieldname ?? ''), row: rest };
    });
  }
}
