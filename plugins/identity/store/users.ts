import type { Credentials, Db, DirectoryUser, Tx, UserDirectory } from '../../../kernel/index.ts';

export type { Credentials };

/** A user as the management routes show it. */
export interface UserRecord extends DirectoryUser {
  mfaEnabled: boolean;
}

/**
 * The kernel's user directory (the kernel owns the users, user_roles and roles tables: reads and
 * writes go through its `users` and `roles` services) with this plugin's MFA flag beside each user.
 */
export class UserStore {
  constructor(
    private readonly db: Db,
    private readonly users: UserDirectory,
  ) {}

  async list(opts: { limit: number; offset: number; q?: string }): Promise<{ users: UserRecord[]; total: number }> {
    const page = await this.users.list(opts);
    return { users: await this.withMfa(page.users), total: page.total };
  }

  async find(id: string, trx?: Tx): Promise<UserRecord | null> {
    const user = await this.users.find(id, trx);
    return user ? (await this.withMfa([user], trx))[0] : null;
  }

  credentialsByEmail(email: string): Promise<Credentials | null> {
    return this.users.credentialsByEmail(email);
  }

  credentials(id: string, trx?: Tx): Promise<Credentials | null> {
    return this.users.credentials(id, trx);
  }

  /** Serialises, within `trx`, every write that could leave no administrator. */
  lockAdministrators(trx: Tx): Promise<void> {
    return this.users.lockAdministrators(trx);
  }

  /** Active users holding a role that grants every key ('*'). */
  countAdministrators(trx: Tx): Promise<number> {
    return this.users.countAdministrators(trx);
  }

  private async withMfa(users: DirectoryUser[], trx?: Tx): Promise<UserRecord[]> {
    if (!users.length) return [];
    const enabled = new Set<string>(
      await (trx ?? this.db)('identity_mfa')
        .whereIn(
          'user_id',
          users.map((u) => u.id),
        )
        .whereNotNull('enabled_at')
        .pluck('user_id'),
    );
    return users.map((u) => ({ ...u, mfaEnabled: enabled.has(u.id) }));
  }
}
