import type { Knex } from 'knex';
import type { Db, Tx } from './database.ts';
import { conflict, badRequest, isUniqueViolation } from './errors.ts';
import { hashPassword } from './passwords.ts';
import { assertPasswordAllowed, type PasswordPolicy, DEFAULT_PASSWORD_POLICY } from './password-policy.ts';

export interface NewUser {
  email: string;
  displayName?: string;
  password?: string;
  roles: string[];
  active?: boolean;
}

/** A user as the directory answers it: the account and its role names. */
export interface DirectoryUser {
  id: string;
  email: string;
  displayName: string;
  active: boolean;
  roles: string[];
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

interface DirectoryRow {
  id: string;
  email: string;
  display_name: string;
  active: boolean;
  roles: string[];
  created_at: Date;
  updated_at: Date;
}

// Advisory lock key serialising writes that could remove the last administrator.
const ADMINISTRATORS_LOCK = 0x1d3e7;

const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);

/**
 * The account directory every service shares (sessions resolve against it): the only code that reads
 * and writes the kernel's `users` and `user_roles` tables. The identity plugin builds its user routes
 * and sign-in on it; the CLI and first-start bootstrap use it directly.
 */
export class UserDirectory {
  constructor(private readonly deps: { db: Db }) {}

  async count(): Promise<number> {
    const [{ count }] = await this.deps.db('users').count<{ count: number }[]>({ count: '*' });
    return Number(count);
  }

  findByEmail(email: string, trx?: Tx) {
    return (trx ?? this.deps.db)('users').whereRaw('lower(email) = lower(?)', [email.trim()]).first();
  }

  /** Creates a user with the named roles. 400 for an unknown role, 409 for a taken e-mail. */
  async create(input: NewUser, policy: PasswordPolicy = DEFAULT_PASSWORD_POLICY, trx?: Tx): Promise<{ id: string }> {
    const email = input.email.trim();
    if (input.password !== undefined) assertPasswordAllowed(input.password, email, policy);
    const run = async (t: Tx) => {
      const roles = await roleIds(input.roles, t);
      try {
        const [user] = await t('users')
          .insert({
            email,
            display_name: input.displayName ?? '',
            password_hash: input.password !== undefined ? await hashPassword(input.password) : null,
            active: input.active ?? true,
          })
          .returning('id');
        if (roles.length) await t('user_roles').insert(roles.map((roleId) => ({ user_id: user.id, role_id: roleId })));
        return { id: user.id as string };
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('a user with this e-mail already exists', 'EMAIL_TAKEN', 'email');
        throw err;
      }
    };
    return trx ? run(trx) : this.deps.db.transaction(run);
  }

  /** Updates the given columns; maps a taken e-mail to the spec's 409 UNIQUE_VIOLATION. */
  async update(
    id: string,
    fields: { email?: string; displayName?: string; active?: boolean; passwordHash?: string | null },
    now: Date,
    trx: Tx,
  ): Promise<void> {
    const row: Record<string, unknown> = { updated_at: now };
    if (fields.email !== undefined) row.email = fields.email;
    if (fields.displayName !== undefined) row.display_name = fields.displayName;
    if (fields.active !== undefined) row.active = fields.active;
    if (fields.passwordHash !== undefined) row.password_hash = fields.passwordHash;
    try {
      await trx('users').where({ id }).update(row);
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict('email is already in use', 'UNIQUE_VIOLATION', 'email');
      throw err;
    }
  }

  /** Replaces a user's roles by name; 400 naming `roles` when one does not exist. */
  async setRoles(id: string, names: string[], trx: Tx): Promise<void> {
    const roles = await roleIds(names, trx);
    await trx('user_roles').where({ user_id: id }).delete();
    if (roles.length) await trx('user_roles').insert(roles.map((roleId) => ({ user_id: id, role_id: roleId })));
  }

  /** Deletes a user; sessions and role memberships go with it. */
  async delete(id: string, trx: Tx): Promise<void> {
    await trx('users').where({ id }).delete();
  }

  /** A page of users in e-mail order, `q` matching e-mail or display name (case-insensitive). */
  async list(opts: { limit: number; offset: number; q?: string }): Promise<{ users: DirectoryUser[]; total: number }> {
    const { db } = this.deps;
    const filter = (query: Knex.QueryBuilder) => {
      if (opts.q) {
        const like = `%${opts.q.replace(/[\\%_]/g, (c) => '\\' + c)}%`;
        void query.where((w) => w.whereILike('u.email', like).orWhereILike('u.display_name', like));
      }
      return query;
    };
    const rows: DirectoryRow[] = await filter(withRoles(db))
      .orderByRaw('lower(u.email)')
      .limit(opts.limit)
      .offset(opts.offset);
    const [{ total }] = await filter(db('users as u').count<{ total: number }[]>({ total: '*' }));
    return { users: rows.map(toDirectoryUser), total: Number(total) };
  }

  async find(id: string, trx?: Tx): Promise<DirectoryUser | null> {
    if (!isUuid(id)) return null;
    const row: DirectoryRow | undefined = await withRoles(trx ?? this.deps.db)
      .where('u.id', id)
      .first();
    return row ? toDirectoryUser(row) : null;
  }

  async credentialsByEmail(email: string): Promise<Credentials | null> {
    const row = await this.findByEmail(email);
    return row ? this.credentials(row.id) : null;
  }

  async credentials(id: string, trx?: Tx): Promise<Credentials | null> {
    const q = trx ?? this.deps.db;
    const row = await q('users').where({ id }).first('id', 'email', 'active', 'password_hash');
    if (!row) return null;
    const roles = await this.roleNames(id, trx);
    return { id: row.id, email: row.email, active: row.active, passwordHash: row.password_hash, roles };
  }

  /**
   * Share-locks the user's row until `trx` ends: a change of the user's roles in progress (it
   * updates the row) is waited for, and one that starts later waits for `trx`.
   */
  async lockUser(id: string, trx: Tx): Promise<void> {
    await trx('users').where({ id }).forShare().first('id');
  }

  /** The names of the user's roles. */
  roleNames(id: string, trx?: Tx): Promise<string[]> {
    return (trx ?? this.deps.db)('user_roles as ur')
      .join('roles as r', 'r.id', 'ur.role_id')
      .where('ur.user_id', id)
      .pluck('r.name');
  }

  /** The ids of the users holding one of these roles (each once). */
  async membersOf(roleNames: readonly string[], trx?: Tx): Promise<string[]> {
    if (!roleNames.length) return [];
    return (trx ?? this.deps.db)('user_roles as ur')
      .join('roles as r', 'r.id', 'ur.role_id')
      .whereIn('r.name', [...roleNames])
      .distinct('ur.user_id')
      .pluck('ur.user_id');
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

function withRoles(q: Knex | Tx) {
  return q('users as u')
    .leftJoin('user_roles as ur', 'ur.user_id', 'u.id')
    .leftJoin('roles as r', 'r.id', 'ur.role_id')
    .groupBy('u.id')
    .select(
      'u.id',
      'u.email',
      'u.display_name',
      'u.active',
      'u.created_at',
      'u.updated_at',
      q.raw(`coalesce(array_agg(r.name ORDER BY r.name) FILTER (WHERE r.name IS NOT NULL), '{}') AS roles`),
    );
}

function toDirectoryUser(row: DirectoryRow): DirectoryUser {
  return {
    id: row.id,
    email: row.email,
    displayName: row.display_name,
    active: row.active,
    roles: row.roles ?? [],
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

/** The ids of the named roles (each once); 400 naming `roles` when one does not exist. */
async function roleIds(names: readonly string[], trx: Tx): Promise<string[]> {
  const unique = [...new Set(names)];
  const roles: Array<{ id: string; name: string }> = await trx('roles').whereIn('name', unique).select('id', 'name');
  const missing = unique.filter((n) => !roles.some((r) => r.name === n));
  if (missing.length) throw badRequest(`roles: unknown role ${missing.join(', ')}`, 'roles');
  return roles.map((r) => r.id);
}
