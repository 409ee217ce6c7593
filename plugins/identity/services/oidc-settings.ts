import {
  type AuditContext,
  type AuditWriter,
  type Clock,
  type Db,
  HttpError,
  type PermissionRegistry,
  type RoleDirectory,
  type SecretBox,
  badRequest,
  conflict,
  diffForAudit,
  forbidden,
  inTransaction,
  type Tx,
  type WriteOptions,
} from '../../../kernel/index.ts';
import type { LocalLogin, OidcStore, StoredOidcSettings } from '../store/oidc.ts';
import { ALL_KEYS } from './grant-guard.ts';
import { issuerProblem, type OidcClient, type ProviderAccess } from './oidc-client.ts';

/** Seals the client secret at rest (the kernel's secret box; generated locally outside production). */
export const OIDC_KEY_NAME = 'OIDC_SETTINGS_ENCRYPTION_KEY';

/** The settings as `GET /oidc-settings` shows them: the secret only as whether it is set. */
export interface OidcSettingsView {
  enabled: boolean;
  issuer: string;
  clientId: string;
  clientSecretSet: boolean;
  scopes: string[];
  roleClaim: string;
  roleMapping: Record<string, string[]>;
  provisionUsers: boolean;
  defaultRoles: string[];
  localLogin: LocalLogin;
  buttonLabel: string;
  dashboard_url: string;
}

/** A `PUT /oidc-settings` body: fields left out keep their value; a blank `clientSecret` keeps the stored one. */
export interface OidcSettingsInput {
  enabled?: boolean;
  issuer?: string;
  clientId?: string;
  clientSecret?: string | null;
  scopes?: string[];
  roleClaim?: string;
  roleMapping?: Record<string, string[]>;
  provisionUsers?: boolean;
  defaultRoles?: string[];
  localLogin?: LocalLogin;
  buttonLabel?: string;
  dashboard_url?: string;
}

const AUDIT = {
  allow: [
    'enabled',
    'issuer',
    'clientId',
    'clientSecret',
    'scopes',
    'roleClaim',
    'roleMapping',
    'provisionUsers',
    'defaultRoles',
    'localLogin',
    'buttonLabel',
    'dashboard_url',
  ],
  secrets: ['clientSecret'],
};

/** Fields whose change makes saving fetch the issuer's discovery document again. */
const PROVIDER_FIELDS = ['enabled', 'issuer', 'clientId', 'clientSecret'] as const;

const forAudit = (s: StoredOidcSettings) => ({
  enabled: s.enabled,
  issuer: s.issuer,
  clientId: s.clientId,
  clientSecret: s.clientSecretSealed,
  scopes: s.scopes,
  roleClaim: s.roleClaim,
  roleMapping: s.roleMapping,
  provisionUsers: s.provisionUsers,
  defaultRoles: s.defaultRoles,
  localLogin: s.localLogin,
  buttonLabel: s.buttonLabel,
  dashboard_url: s.dashboardUrl,
});

/**
 * The single-sign-on settings: one OpenID Connect provider, the role claim and its mapping,
 * provisioning, and the `localLogin` rule password sign-in consults. Saving an enabled provider
 * checks its discovery document first; the client secret is sealed and never shown.
 */
export class OidcSettingsService {
  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      audit: AuditWriter;
      store: OidcStore;
      roles: RoleDirectory;
      permissions: PermissionRegistry;
      secretBox: SecretBox;
      client: OidcClient;
      production: boolean;
    },
  ) {}

  read(): Promise<StoredOidcSettings> {
    return this.deps.store.read();
  }

  async view(): Promise<OidcSettingsView> {
    return toView(await this.deps.store.read());
  }

  /** Issuer, client id and the secret in clear, for talking to the provider. */
  access(s: StoredOidcSettings): ProviderAccess {
    return {
      issuer: s.issuer,
      clientId: s.clientId,
      clientSecret: s.clientSecretSealed ? this.deps.secretBox.decrypt(s.clientSecretSealed) : null,
    };
  }

  /** The password sign-in rule in force: `localLogin` while single sign-on is on, else everyone. */
  async localLogin(): Promise<LocalLogin> {
    const s = await this.deps.store.read();
    return s.enabled ? s.localLogin : 'all';
  }

  /**
   * Saves the fields given. Only a holder of every key (`*`) may: whoever chooses the provider and
   * its mapping decides who signs in as which account, administrators included.
   */
  async update(ctx: AuditContext, input: OidcSettingsInput, opts: WriteOptions = {}): Promise<OidcSettingsView> {
    if (!this.deps.permissions.allows(ctx.actor, ALL_KEYS))
      throw new HttpError(
        403,
        'PERMISSION_ESCALATION',
        `Only a holder of ${ALL_KEYS} may change single sign-on: the provider decides who signs in as which account`,
      );
    return inTransaction(this.deps.db, opts.trx, async (trx) => {
      const before = await this.deps.store.read(trx, true);
      const secretGiven = input.clientSecret !== undefined && input.clientSecret !== '';
      if (secretGiven && input.clientSecret !== null && !this.deps.secretBox.hasKey(OIDC_KEY_NAME))
        throw conflict(`Saving a client secret needs ${OIDC_KEY_NAME}`, 'ENCRYPTION_KEY_MISSING', 'clientSecret');
      const after: StoredOidcSettings = {
        enabled: input.enabled ?? before.enabled,
        issuer: input.issuer?.trim() ?? before.issuer,
        clientId: input.clientId?.trim() ?? before.clientId,
        clientSecretSealed: !secretGiven
          ? before.clientSecretSealed
          : input.clientSecret === null
            ? null
            : this.deps.secretBox.encrypt(OIDC_KEY_NAME, input.clientSecret!),
        scopes: input.scopes ? [...new Set(input.scopes)] : before.scopes,
        roleClaim: input.roleClaim?.trim() ?? before.roleClaim,
        roleMapping: input.roleMapping
          ? Object.fromEntries(Object.entries(input.roleMapping).map(([k, v]) => [k, [...new Set(v)].sort()]))
          : before.roleMapping,
        provisionUsers: input.provisionUsers ?? before.provisionUsers,
        defaultRoles: input.defaultRoles ? [...new Set(input.defaultRoles)].sort() : before.defaultRoles,
        localLogin: input.localLogin ?? before.localLogin,
        buttonLabel: input.buttonLabel ?? before.buttonLabel,
        dashboardUrl: input.dashboard_url ?? before.dashboardUrl,
      };
      await this.validate(after, trx);
      const diff = diffForAudit(forAudit(before), forAudit(after), AUDIT);
      if (!diff) return toView(before);
      const providerChanged = PROVIDER_FIELDS.some((f) => diff.after && f in diff.after);
      if (after.enabled && providerChanged) await this.deps.client.check(this.access(after));
      await this.deps.store.write(after, this.deps.clock.now(), trx);
      await this.deps.audit.record(
        ctx,
        {
          action: 'setting.oidc_update',
          targetType: 'setting',
          targetId: 'oidc',
          targetLabel: 'single sign-on',
          ...diff,
        },
        trx,
      );
      return toView(after);
    });
  }

  private async validate(s: StoredOidcSettings, trx: Tx): Promise<void> {
    if (s.issuer) {
      const problem = issuerProblem(s.issuer, this.deps.production);
      if (problem) throw badRequest(problem, 'issuer', 'OIDC_ISSUER_INVALID');
    }
    if (s.enabled && !s.issuer) throw badRequest('issuer: required while single sign-on is enabled', 'issuer');
    if (s.enabled && !s.clientId) throw badRequest('clientId: required while single sign-on is enabled', 'clientId');
    if (!s.scopes.includes('openid')) throw badRequest('scopes: must include openid', 'scopes');
    const named = [...new Set([...Object.values(s.roleMapping).flat(), ...s.defaultRoles])];
    const known = new Set(await this.deps.roles.existingNames(named, trx));
    for (const [claimValue, roles] of Object.entries(s.roleMapping)) {
      const unknown = roles.filter((r) => !known.has(r));
      if (unknown.length)
        throw badRequest(`roleMapping: "${claimValue}" names unknown role ${unknown.join(', ')}`, 'roleMapping');
    }
    const unknownDefaults = s.defaultRoles.filter((r) => !known.has(r));
    if (unknownDefaults.length)
      throw badRequest(`defaultRoles: unknown role ${unknownDefaults.join(', ')}`, 'defaultRoles');
    if (!dashboardUrlAllowed(s.dashboardUrl))
      throw badRequest(
        'dashboard_url: a path on this installation (starting with one /) or an http(s) URL',
        'dashboard_url',
      );
  }
}

/** Throws when `localLogin` forbids this password sign-in (403 LOCAL_LOGIN_DISABLED). */
export function refuseLocalLogin(rule: LocalLogin): never {
  throw forbidden(
    rule === 'admins'
      ? 'Password sign-in is kept for administrators only; sign in with single sign-on'
      : 'Password sign-in is off; sign in with single sign-on',
    'LOCAL_LOGIN_DISABLED',
  );
}

function dashboardUrlAllowed(value: string): boolean {
  if (value.startsWith('/')) return !value.startsWith('//') && !value.includes('\\');
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

function toView(s: StoredOidcSettings): OidcSettingsView {
  return {
    enabled: s.enabled,
    issuer: s.issuer,
    clientId: s.clientId,
    clientSecretSet: s.clientSecretSealed !== null,
    scopes: s.scopes,
    roleClaim: s.roleClaim,
    roleMapping: s.roleMapping,
    provisionUsers: s.provisionUsers,
    defaultRoles: s.defaultRoles,
    localLogin: s.localLogin,
    buttonLabel: s.buttonLabel,
    dashboard_url: s.dashboardUrl,
  };
}
