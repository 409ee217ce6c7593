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

/**
 * The account directory every service shares (sessions resolve against it): the only code that writes
 * the kernel's `users` and `user_roles` tables. The identity plugin builds its user routes on it (and
 * reads the tables for its lists); the CLI and first-start bootstrap use it directly.
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
}

/** The ids of the named roles (each once); 400 naming `roles` when one does not exist. */
async function roleIds(names: readonly string[], trx: Tx): Promise<string[]> {
  const unique = [...new Set(names)];
  const roles: Array<{ id: string; name: string }> = await trx('roles').whereIn('name', unique).select('id', 'name');
  const missing = unique.filter((n) => !roles.some((r) => r.name === n));
  if (missing.length) throw badRequest(`roles: unknown role ${missing.join(', ')}`, 'roles');
  return roles.map((r) => r.id);
}
