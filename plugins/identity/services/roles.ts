import {
  diffForAudit,
  type AuditContext,
  type AuditWriter,
  type Clock,
  type Db,
  badRequest,
  conflict,
  notFound,
  type PermissionRegistry,
  type RoleDirectory,
  type RoleRecord,
  inTransaction,
  type WriteOptions,
} from '../../../kernel/index.ts';
import type { SettingsStore } from '../store/settings.ts';
import type { UserStore } from '../store/users.ts';
import { ALL_KEYS, type GrantGuard } from './grant-guard.ts';
import { keepingAnAdministrator } from './manager-guard.ts';

export interface RoleInput {
  name: string;
  description?: string;
  permissions: string[];
}

const AUDIT = { allow: ['name', 'description', 'permissions'] };

const snapshot = (r: Pick<RoleRecord, 'name' | 'description' | 'permissions'>) => ({
  name: r.name,
  description: r.description,
  permissions: [...r.permissions].sort(),
});

/**
 * Roles: a name, a description and a set of permission keys. Built-in roles keep their name. A
 * manager gives a role only keys they hold and changes only roles whose keys they hold (GrantGuard).
 */
export class RoleService {
  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      audit: AuditWriter;
      permissions: PermissionRegistry;
      roles: RoleDirectory;
      users: UserStore;
      /** Settings that name roles (the mandatory-2FA list, the single-sign-on mapping), kept in step. */
      settings: Pick<SettingsStore, 'renameRole' | 'forgetRole'>;
      grants: GrantGuard;
    },
  ) {}

  list(): Promise<RoleRecord[]> {
    return this.deps.roles.list();
  }

  async get(id: string): Promise<RoleRecord> {
    const role = await this.deps.roles.find(id);
    if (!role) throw notFound('Role not found');
    return role;
  }

  async create(ctx: AuditContext, input: RoleInput, opts: WriteOptions = {}): Promise<RoleRecord> {
    const values = {
      name: input.name.trim(),
      description: input.description ?? '',
      permissions: this.checkKeys(input.permissions, []),
    };
    if (!values.name) throw badRequest('name must not be empty', 'name');
    this.deps.grants.assertMayGrantKeys(ctx.actor, values.permissions);
    return inTransaction(this.deps.db, opts.trx, async (trx) => {
      const id = await this.deps.roles.create(values, trx);
      await this.deps.audit.record(
        ctx,
        {
          action: 'role.create',
          targetType: 'role',
          targetId: id,
          targetLabel: values.name,
          ...diffForAudit(null, snapshot(values), AUDIT),
        },
        trx,
      );
      return (await this.deps.roles.find(id, trx))!;
    });
  }

  async update(ctx: AuditContext, id: string, patch: Partial<RoleInput>, opts: WriteOptions = {}): Promise<RoleRecord> {
    return inTransaction(this.deps.db, opts.trx, async (trx) => {
      const before = await this.deps.roles.find(id, trx);
      if (!before) throw notFound('Role not found');
      this.deps.grants.assertMayChangeRole(ctx.actor, before);
      const name = patch.name?.trim();
      if (name !== undefined && !name) throw badRequest('name must not be empty', 'name');
      if (before.builtin && name !== undefined && name !== before.name) {
        throw conflict(`The built-in role ${before.name} cannot be renamed`, 'BUILTIN_ROLE', 'name');
      }
      const after = {
        name: name ?? before.name,
        description: patch.description ?? before.description,
        permissions: patch.permissions ? this.checkKeys(patch.permissions, before.permissions) : before.permissions,
      };
      this.deps.grants.assertMayGrantKeys(ctx.actor, after.permissions);
      const diff = diffForAudit(snapshot(before), snapshot(after), AUDIT);
      if (!diff) return before;
      await keepingAnAdministrator(this.deps.users, trx, async () => {
        await this.deps.roles.update(id, after, this.deps.clock.now(), trx);
      });
      if (after.name !== before.name) await this.deps.settings.renameRole(before.name, after.name, trx);
      await this.deps.audit.record(
        ctx,
        { action: 'role.update', targetType: 'role', targetId: id, targetLabel: after.name, ...diff },
        trx,
      );
      return (await this.deps.roles.find(id, trx))!;
    });
  }

  async remove(ctx: AuditContext, id: string, opts: WriteOptions = {}): Promise<void> {
    await inTransaction(this.deps.db, opts.trx, async (trx) => {
      const before = await this.deps.roles.find(id, trx);
      if (!before) throw notFound('Role not found');
      this.deps.grants.assertMayChangeRole(ctx.actor, before);
      if (before.builtin) throw conflict(`The built-in role ${before.name} cannot be deleted`, 'BUILTIN_ROLE');
      await keepingAnAdministrator(this.deps.users, trx, () => this.deps.roles.delete(id, trx));
      await this.deps.settings.forgetRole(before.name, trx);
      await this.deps.audit.record(
        ctx,
        {
          action: 'role.delete',
          targetType: 'role',
          targetId: id,
          targetLabel: before.name,
          ...diffForAudit(snapshot(before), null, AUDIT),
        },
        trx,
      );
    });
  }

  /**
   * Every key must be declared by a loaded plugin, or be '*'. Keys the role already
   * holds stay accepted: a key of a plugin this process does not load must not block editing.
   */
  private checkKeys(keys: string[], held: string[]): string[] {
    const unique = [...new Set(keys.map((k) => k.trim()))];
    const unknown = unique.filter((k) => k !== ALL_KEYS && !this.deps.permissions.has(k) && !held.includes(k));
    if (unknown.length) throw badRequest(`permissions: unknown permission key ${unknown.join(', ')}`, 'permissions');
    return unique.sort();
  }
}
