import type { Knex } from 'knex';
import { type Db, type Tx, isUuid } from '../../../kernel/index.ts';

/** A user as the management routes show it. */
export interface UserRecord {
  id: string;
  email: string;
  displayName: string;
  active: boolean;
  roles: string[];
  mfaEnabled: boolean;
  createdAt: string;
  updatedAt: string;
}

/** What sign-in needs about an account. */
export interface Credentials {
  id: string;
  email: string;
  active: boolean;
  passwordHash: string | null;
  roles: string[];
}

interface UserRow {
  id: string;
  email: string;
  display_name: string;
  active: boolean;
  roles: string[];
  mfa_enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

// Advisory lock key serialising writes that could remove the last administrator (see manager-guard.ts).
const ADMINISTRATORS_LOCK = 0x1d3e7;

/**
 * Reads of the kernel's users, user_roles and roles tables, joined with this plugin's MFA flag. The
 * kernel owns those tables: every write to them goes through its `users` and `roles` services.
 */
export class UserStore {
  constructor(private readonly db: Db) {}

  private selectUsers(q: Knex | Tx) {
    return q('users as u')
      .leftJoin('user_roles as ur', 'ur.user_id', 'u.id')
      .leftJoin('roles as r', 'r.id', 'ur.role_id')
      .leftJoin('identity_mfa as m', 'm.user_id', 'u.id')
      .groupBy('u.id', 'm.enabled_at')
      .select(
        'u.id',
        'u.email',
        'u.display_name',
        'u.active',
        'u.created_at',
        'u.updated_at',
        q.raw(`coalesce(array_agg(r.name ORDER BY r.name) FILTER (WHERE r.name IS NOT NULL), '{}') AS roles`),
        q.raw('(m.enabled_at IS NOT NULL) AS mfa_enabled'),
      );
  }

  async list(opts: { limit: number; offset: number; q?: string }): Promise<{ users: UserRecord[]; total: number }> {
    const filter = (query: Knex.QueryBuilder) => {
      if (opts.q) {
        const like = `%${opts.q.replace(/[\\%_]/g, (c) => '\\' + c)}%`;
        void query.where((w) => w.whereILike('u.email', like).orWhereILike('u.display_name', like));
      }
      return query;
    };
    const rows: UserRow[] = await filter(this.selectUsers(this.db))
      .orderByRaw('lower(u.email)')
      .limit(opts.limit)
      .offset(opts.offset);
    const [{ total }] = await filter(this.db('users as u').count<{ total: number }[]>({ total: '*' }));
    return { users: rows.map(toRecord), total: Number(total) };
  }

  async find(id: string, trx?: Tx): Promise<UserRecord | null> {
    if (!isUuid(id)) return null;
    const q = trx ?? this.db;
    const row: UserRow | undefined = await this.selectUsers(q).where('u.id', id).first();
    return row ? toRecord(row) : null;
  }

  async credentialsByEmail(email: string): Promise<Credentials | null> {
    const row = await this.db('users').whereRaw('lower(email) = lower(?)', [email.trim()]).first('id');
    return row ? this.credentials(row.id) : null;
  }

  async credentials(id: string, trx?: Tx): Promise<Credentials | null> {
    const q = trx ?? this.db;
    const row = await q('users').where({ id }).first('id', 'email', 'active', 'password_hash');
    if (!row) return null;
    const roles = await q('user_roles as ur')
      .join('roles as r', 'r.id', 'ur.role_id')
      .where('ur.user_id', id)
      .pluck('r.name');
    return { id: row.id, email: row.email, active: row.active, passwordHash: row.password_hash, roles };
  }

  /** Serialises, within `trx`, every write that could leave no administrator. */
  async lockAdministrators(trx: Tx): Promise<void> {
    await trx.raw('SELECT pg_advisory_xact_lock(?)', [ADMINISTRATORS_LOCK]);
  }

  /** Active users holding a role that grants every key ('*'). */
  async countAdministrators(trx: Tx): Promise<number> {
    const result = await trx.raw<{ rows: Array<{ count: number }> }>(
      `SELECT count(DISTINCT u.id) AS count
         FROM users u
         JOIN user_roles ur ON ur.user_id = u.id
         JOIN roles r ON r.id = ur.role_id
        WHERE u.active AND '*' = ANY(r.permissions)`,
    );
    return Number(result.rows[0]?.count ?? 0);
  }
}

function toRecord(row: UserRow): UserRecord {
  return {
    id: row.id,
    email: row.email,
    displayName: row.display_name,
    active: row.active,
    roles: row.roles ?? [],
    mfaEnabled: row.mfa_enabled,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
