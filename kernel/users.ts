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
 * The account directory every service shares (sessions resolve against it). The identity plugin
 * builds its user and role routes on it; the CLI and first-start bootstrap use it directly.
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
      const roles = await t('roles').whereIn('name', input.roles).select('id', 'name');
      const missing = input.roles.filter((r) => !roles.some((x) => x.name === r));
      if (missing.length) throw badRequest(`unknown role: ${missing.join(', ')}`, 'roles');
      try {
        const [user] = await t('users')
          .insert({
            email,
            display_name: input.displayName ?? '',
            password_hash: input.password !== undefined ? await hashPassword(input.password) : null,
            active: input.active ?? true,
          })
          .returning('id');
        if (roles.length) await t('user_roles').insert(roles.map((r) => ({ user_id: user.id, role_id: r.id })));
        return { id: user.id as string };
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('a user with this e-mail already exists', 'EMAIL_TAKEN', 'email');
        throw err;
      }
    };
    return trx ? run(trx) : this.deps.db.transaction(run);
  }
}
