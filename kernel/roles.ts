import type { Db, Tx } from './database.ts';
import { conflict, isUniqueViolation } from './errors.ts';
import { isUuid } from './formats.ts';

/** A role as the management routes show it. */
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

/**
 * The kernel's `roles` table (created by `migrations/0001_accounts.ts`, read by every process when it
 * resolves a session) and the only code that writes it. The identity plugin manages roles through this
 * service (container name `roles`); the rules about who may change which role stay in the plugin.
 */
export class RoleDirectory {
  constructor(private readonly deps: { db: Db }) {}

  private select(q: Db | Tx) {
    return q('roles as r')
      .leftJoin('user_roles as ur', 'ur.role_id', 'r.id')
      .groupBy('r.id')
      .select('r.id', 'r.name', 'r.description', 'r.permissions', 'r.builtin', 'r.created_at', 'r.updated_at')
      .select(q.raw('count(ur.user_id)::int AS user_count'));
  }

  async list(): Promise<RoleRecord[]> {
    const rows: RoleRow[] = await this.select(this.deps.db).orderBy('r.name');
    return rows.map(toRecord);
  }

  async find(id: string, trx?: Tx): Promise<RoleRecord | null> {
    if (!isUuid(id)) return null;
    const row: RoleRow | undefined = await this.select(trx ?? this.deps.db)
      .where('r.id', id)
      .first();
    return row ? toRecord(row) : null;
  }

  /** Names that exist, out of `names`. */
  async existingNames(names: string[], trx?: Tx): Promise<string[]> {
    if (!names.length) return [];
    return (trx ?? this.deps.db)('roles').whereIn('name', names).pluck('name');
  }

  /** The keys of each existing role out of `names`. */
  async keysByName(names: readonly string[], trx?: Tx): Promise<Array<{ name: string; permissions: string[] }>> {
    if (!names.length) return [];
    const rows: Array<{ name: string; permissions: string[] | null }> = await (trx ?? this.deps.db)('roles')
      .whereIn('name', [...names])
      .select('name', 'permissions');
    return rows.map((r) => ({ name: r.name, permissions: r.permissions ?? [] }));
  }

  /** Creates a role; 409 UNIQUE_VIOLATION naming `name` when the name is taken. Returns its id. */
  async create(input: { name: string; description: string; permissions: string[] }, trx: Tx): Promise<string> {
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

  /** Deletes a role; its memberships (`user_roles`) go with it. */
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
