import { type Actor, HttpError, type PermissionRegistry, type RoleDirectory, type Tx } from '../../../kernel/index.ts';

/** '*' grants every key, present and future (the seeded admin role uses it). */
export const ALL_KEYS = '*';
/** The built-in role of administrators; only a holder of '*' changes it. */
const ADMIN_ROLE = 'admin';

const escalation = (message: string, field?: string) => new HttpError(403, 'PERMISSION_ESCALATION', message, field);

/**
 * Keeps `users:manage` from being full administration: nobody grants a key they do not hold, and
 * only who holds every key of a role or a user may change it. A change to a user covers the e-mail
 * and the password (a manager who could reset them could sign in as that user), so a holder of `*`
 * is changed only by another holder of `*`. Holding is decided by the permission registry: `*`
 * holds everything and a broad key holds the finer keys it grants (`objects:write` grants the
 * function-level keys declared with `grantedBy: ['objects:write']`). The system actor holds all.
 */
export class GrantGuard {
  constructor(private readonly deps: { permissions: PermissionRegistry; roles: RoleDirectory }) {}

  /** Refuses a role's keys (create, update) when the actor does not hold each of them. */
  assertMayGrantKeys(actor: Actor, keys: readonly string[]): void {
    const missing = this.lacking(actor, keys);
    if (missing.length)
      throw escalation(`permissions: you cannot grant ${missing.join(', ')}: you do not hold it`, 'permissions');
  }

  /** Refuses giving roles to a user when one of them holds a key the actor does not hold. Unknown names are left to validation. */
  async assertMayGrantRoles(actor: Actor, names: readonly string[], trx?: Tx): Promise<void> {
    if (!names.length) return;
    for (const role of await this.deps.roles.keysByName(names, trx)) {
      const missing = this.lacking(actor, role.permissions);
      if (missing.length) {
        throw escalation(
          `roles: you cannot give the role ${role.name}: it holds ${missing.join(', ')}, which you do not hold`,
          'roles',
        );
      }
    }
  }

  /** Refuses changing or deleting the admin role, or a role holding a key the actor does not hold. */
  assertMayChangeRole(actor: Actor, role: { name: string; permissions: readonly string[] }): void {
    if (role.name === ADMIN_ROLE && !this.deps.permissions.allows(actor, ALL_KEYS)) {
      throw escalation(`Only a holder of ${ALL_KEYS} may change the ${ADMIN_ROLE} role`);
    }
    const missing = this.lacking(actor, role.permissions);
    if (missing.length)
      throw escalation(
        `The role ${role.name} holds ${missing.join(', ')}, which you do not hold; only a holder may change it`,
      );
  }

  /** Refuses changing, deactivating, resetting or deleting a user who holds a key the actor does not hold. */
  async assertMayChangeUser(actor: Actor, user: { email: string; roles: readonly string[] }, trx?: Tx): Promise<void> {
    const held = (await this.deps.roles.keysByName(user.roles, trx)).flatMap((r) => r.permissions);
    const missing = this.lacking(actor, held);
    if (missing.length)
      throw escalation(
        `The user ${user.email} holds ${missing.join(', ')}, which you do not hold; only a holder may change this user`,
      );
  }

  private lacking(actor: Actor, keys: readonly string[]): string[] {
    return [...new Set(keys)].filter((key) => !this.deps.permissions.allows(actor, key)).sort();
  }
}
