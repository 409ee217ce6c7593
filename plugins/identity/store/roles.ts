import { type Db, type Tx, conflict, isUniqueViolation } from '../../../kernel/index.ts';
import { isUuid } from './users.ts';

export interface RoleRecord {
  id: string;
  name: string;
  description: string;
  permissions: string[];
  builtin: boolean;
  userCount: number;
  createdAt: string;
  updatedAt: string;
}

interface RoleRow {
  id: string;
  name: string;
  description: string;
  permissions: string[];
  builtin: boolean;
  user_count: number;
  created_at: Date;
  updated_at: Date;
}

/** SQL over the kernel's roles table (the identity plugin owns the routes that manage it). */
export class RoleStore {
  constructor(private readonly db: Db) {}

  private select(q: Db | Tx) {
    return q('roles as r')
      .leftJoin('user_roles as ur', 'ur.role_id', 'r.id')
      .groupBy('r.id')
      .select('r.id', 'r.name', 'r.description', 'r.permissions', 'r.builtin', 'r.created_at', 'r.updated_at')
      .select(q.raw('count(ur.user_id)::int AS user_count'));
  }

  async list(): Promise<RoleRecord[]> {
    const rows: RoleRow[] = await this.select(this.db).orderBy('r.name');
    return rows.map(toRecord);
  }

  async find(id: string, trx?: Tx): Promise<RoleRecord | null> {
    if (!isUuid(id)) return null;
    const row: RoleRow | undefined = await this.select(trx ?? this.db)
      .where('r.id', id)
      .first();
    return row ? toRecord(row) : null;
  }

  /** Names that exist, out of `names`. */
  async existingNames(names: string[], trx?: Tx): Promise<string[]> {
    if (!names.length) return [];
    return (trx ?? this.db)('roles').whereIn('name', names).pluck('name');
  }

  /** The keys of each existing role out of `names`. */
  async keysByName(names: readonly string[], trx?: Tx): Promise<Array<{ name: string; permissions: string[] }>> {
    if (!names.length) return [];
    const rows: Array<{ name: string; permissions: string[] | null }> = await (trx ?? this.db)('roles')
      .whereIn('name', [...names])
      .select('name', 'permissions');
    return rows.map((r) => ({ name: r.name, permissions: r.permissions ?? [] }));
  }

  async insert(input: { name: string; description: string; permissions: string[] }, trx: Tx): Promise<string> {
    try {
      const [row] = await trx('roles').insert(input).returning('id');
      return row.id as string;
    } catch (err) {
      throw mapUnique(err);
    }
  }

  async update(
    id: string,
    patch: { name?: string; description?: string; permissions?: string[] },
    now: Date,
    trx: Tx,
  ): Promise<void> {
    try {
      await trx('roles')
        .where({ id })
        .update({ ...patch, updated_at: now });
    } catch (err) {
      throw mapUnique(err);
    }
  }

  async delete(id: string, trx: Tx): Promise<void> {
    await trx('roles').where({ id }).delete();
  }
}

function mapUnique(err: unknown): unknown {
  return isUniqueViolation(err) ? conflict('name is already in use', 'UNIQUE_VIOLATION', 'name') : err;
}

function toRecord(row: RoleRow): RoleRecord {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    permissions: row.permissions ?? [],
    builtin: row.builtin,
    userCount: Number(row.user_count),
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
