import type { Db, Tx } from '../../../kernel/index.ts';

export type LocalLogin = 'all' | 'admins' | 'none';

/** The single-sign-on settings as stored; the client secret stays sealed. */
export interface StoredOidcSettings {
  enabled: boolean;
  issuer: string;
  clientId: string;
  clientSecretSealed: string | null;
  scopes: string[];
  roleClaim: string;
  roleMapping: Record<string, string[]>;
  provisionUsers: boolean;
  defaultRoles: string[];
  localLogin: LocalLogin;
  buttonLabel: string;
  dashboardUrl: string;
}

interface SettingsRow {
  enabled: boolean;
  issuer: string;
  client_id: string;
  client_secret_sealed: string | null;
  scopes: string[];
  role_claim: string;
  role_mapping: Record<string, string[]>;
  provision_users: boolean;
  default_roles: string[];
  local_login: LocalLogin;
  button_label: string;
  dashboard_url: string;
}

const SETTINGS = 'identity_oidc_settings';
const LINKS = 'identity_oidc_links';

/** The only SQL of single sign-on: its settings row and the subject-to-account links. */
export class OidcStore {
  constructor(private readonly db: Db) {}

  /** Reads the row; `forUpdate` locks it for a read-modify-write inside `trx`. */
  async read(trx?: Tx, forUpdate = false): Promise<StoredOidcSettings> {
    const query = (trx ?? this.db)(SETTINGS).where({ id: 1 });
    const row: SettingsRow | undefined = await (forUpdate ? query.forUpdate() : query).first();
    if (!row) throw new Error('identity_oidc_settings row is missing (migration 0002_oidc not applied?)');
    return {
      enabled: row.enabled,
      issuer: row.issuer,
      clientId: row.client_id,
      clientSecretSealed: row.client_secret_sealed,
      scopes: row.scopes ?? [],
      roleClaim: row.role_claim,
      roleMapping: row.role_mapping ?? {},
      provisionUsers: row.provision_users,
      defaultRoles: row.default_roles ?? [],
      localLogin: row.local_login,
      buttonLabel: row.button_label,
      dashboardUrl: row.dashboard_url,
    };
  }

  async write(s: StoredOidcSettings, now: Date, trx: Tx): Promise<void> {
    await trx(SETTINGS)
      .where({ id: 1 })
      .update({
        enabled: s.enabled,
        issuer: s.issuer,
        client_id: s.clientId,
        client_secret_sealed: s.clientSecretSealed,
        scopes: s.scopes,
        role_claim: s.roleClaim,
        role_mapping: JSON.stringify(s.roleMapping),
        provision_users: s.provisionUsers,
        default_roles: s.defaultRoles,
        local_login: s.localLogin,
        button_label: s.buttonLabel,
        dashboard_url: s.dashboardUrl,
        updated_at: now,
      });
  }

  /** The account linked to this subject of this provider, if any. */
  async linkedUser(issuer: string, subject: string, trx: Tx): Promise<string | null> {
    const row = await trx(LINKS).where({ issuer, subject }).first('user_id');
    return row?.user_id ?? null;
  }

  /** The subject this account is linked to at this provider, if any. */
  async subjectOf(userId: string, issuer: string, trx: Tx): Promise<string | null> {
    const row = await trx(LINKS).where({ user_id: userId, issuer }).first('subject');
    return row?.subject ?? null;
  }

  async link(issuer: string, subject: string, userId: string, now: Date, trx: Tx): Promise<void> {
    await trx(LINKS).insert({ issuer, subject, user_id: userId, created_at: now });
  }

  /** Keeps the role mapping and default roles in step with a renamed role. */
  async renameRole(from: string, to: string, trx: Tx): Promise<void> {
    const s = await this.read(trx, true);
    const rename = (names: string[]) => names.map((n) => (n === from ? to : n));
    const mapping = Object.fromEntries(Object.entries(s.roleMapping).map(([k, v]) => [k, rename(v)]));
    await trx(SETTINGS)
      .where({ id: 1 })
      .update({ role_mapping: JSON.stringify(mapping), default_roles: rename(s.defaultRoles) });
  }

  /** Drops a deleted role from the mapping and the default roles, so a later role of that name is not given by them. */
  async forgetRole(name: string, trx: Tx): Promise<void> {
    const s = await this.read(trx, true);
    const mapping = Object.fromEntries(
      Object.entries(s.roleMapping).map(([k, v]) => [k, v.filter((n) => n !== name)] as const),
    );
    await trx(SETTINGS)
      .where({ id: 1 })
      .update({ role_mapping: JSON.stringify(mapping), default_roles: s.defaultRoles.filter((n) => n !== name) });
  }
}
