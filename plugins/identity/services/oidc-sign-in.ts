import {
  type AuditContext,
  type AuditWriter,
  type Clock,
  type Db,
  type Logger,
  type RoleDirectory,
  type SessionService,
  type SharedState,
  type SystemActor,
  type Tx,
  type UserDirectory,
  badRequest,
  forbidden,
  hashToken,
  notFound,
  safeEqual,
} from '../../../kernel/index.ts';
import type { OidcStore, StoredOidcSettings } from '../store/oidc.ts';
import type { Credentials, UserStore } from '../store/users.ts';
import { ALL_KEYS } from './grant-guard.ts';
import type { MandatoryMfa } from './mandatory-mfa.ts';
import type { OidcClient } from './oidc-client.ts';
import type { OidcSettingsService } from './oidc-settings.ts';
import type { ClientMeta } from './sign-in.ts';

/** How long a started sign-in waits for the provider's callback. */
export const PENDING_TTL_MS = 10 * 60_000;
const MAX_RETURN_TO = 2000;
/** Segments of a dotted role claim path (`realm_access.roles`). */
const MAX_CLAIM_DEPTH = 10;

/**
 * `amr` values (RFC 8176) that say the provider checked more than a password: `mfa` itself, or a
 * possession factor (one-time code, hardware or software key, smart card, SMS or phone call).
 */
const MFA_AMR = new Set(['mfa', 'otp', 'hwk', 'swk', 'sc', 'sms', 'tel']);

/** Who the sign-in audit rows name: the provider acting for the installation, not a signed-in person. */
const SSO_ACTOR: SystemActor = { type: 'system', id: null, label: 'single sign-on' };

interface Pending {
  nonce: string;
  codeVerifier: string;
  returnTo: string | null;
  expiresAt: number;
}

export interface OidcSessionStarted {
  token: string;
  expiresAt: Date;
  /** Where the browser goes next: the `returnTo` of the start, or `dashboard_url`. */
  location: string;
}

/**
 * Sign-in through the OpenID Connect provider. `start` remembers a state, nonce and PKCE verifier
 * (in the kernel's shared state, so the callback may reach any core-api replica) and sends the browser to the
 * provider; `finish` takes the callback, has the code redeemed and the ID token validated, finds or
 * makes the account (by `sub`, else by a verified e-mail), brings the mapped roles in line with the
 * claim and opens the same session a password sign-in opens.
 */
export class OidcSignInService {
  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      audit: AuditWriter;
      log: Logger;
      publicBaseUrl: string;
      sessions: SessionService;
      directory: UserDirectory;
      users: UserStore;
      roles: RoleDirectory;
      mandatoryMfa: MandatoryMfa;
      settings: OidcSettingsService;
      store: OidcStore;
      client: OidcClient;
      /** Where started sign-ins wait for their callback: any core-api replica may receive it. */
      shared: SharedState;
    },
  ) {}

  /** The redirect URI to register at the provider. */
  get redirectUri(): string {
    return `${this.deps.publicBaseUrl.replace(/\/+$/, '')}/auth/oidc/callback`;
  }

  /** Starts a sign-in: the provider's authorization URL and the state the browser must bring back. */
  async start(returnTo: string | undefined): Promise<{ location: string; state: string }> {
    const target = returnTo === undefined ? null : ownPath(returnTo);
    const settings = await this.enabledSettings();
    const checks = await this.deps.client.randomChecks();
    const location = await this.deps.client.authorizationUrl(this.deps.settings.access(settings), {
      redirectUri: this.redirectUri,
      scopes: settings.scopes,
      ...checks,
    });
    await this.deps.shared.put(
      pendingKey(checks.state),
      {
        nonce: checks.nonce,
        codeVerifier: checks.codeVerifier,
        returnTo: target,
        expiresAt: this.deps.clock.now().getTime() + PENDING_TTL_MS,
      } satisfies Pending,
      PENDING_TTL_MS,
    );
    return { location, state: checks.state };
  }

  /**
   * The provider's callback. The state must be one this installation issued, not used yet, not expired
   * and the one this browser started (its cookie); it is used up whatever happens next.
   */
  async finish(
    query: Record<string, string | undefined>,
    browserState: string | undefined,
    meta: ClientMeta & { requestId?: string },
  ): Promise<OidcSessionStarted> {
    const state = query.state ?? '';
    const entry = state ? await this.deps.shared.take<Pending>(pendingKey(state)) : null;
    if (
      !entry ||
      entry.expiresAt <= this.deps.clock.now().getTime() ||
      !browserState ||
      !safeEqual(browserState, state)
    )
      throw badRequest(
        'The sign-in expired, was already used or was started in another browser; start again',
        'state',
        'OIDC_STATE_INVALID',
      );
    const settings = await this.enabledSettings();
    const callbackUrl = new URL(this.redirectUri);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) callbackUrl.searchParams.set(key, value);
    const roleClaim = settings.roleClaim;
    const { claims } = await this.deps.client.redeem(
      this.deps.settings.access(settings),
      callbackUrl,
      { state, nonce: entry.nonce, codeVerifier: entry.codeVerifier },
      ['email', 'email_verified', ...(roleClaim ? [roleClaim] : [])],
    );
    const ctx: AuditContext = { actor: SSO_ACTOR, ip: meta.ip, requestId: meta.requestId };
    const session = await this.deps.db.transaction(async (trx) => {
      await this.deps.users.lockAdministrators(trx);
      const account = await this.account(ctx, settings, claims, trx);
      if (!account.active) throw forbidden('This account is deactivated', 'ACCOUNT_INACTIVE');
      if (roleClaim) await this.followRoleClaim(ctx, settings, account, claimValues(claims, roleClaim), trx);
      if ((await this.deps.mandatoryMfa.required(account.id, trx)) && !mfaAsserted(claims.amr))
        throw forbidden(
          'Your role requires two-factor sign-in and the provider did not confirm a second factor (amr); sign in at the provider with one',
          'MFA_NOT_ASSERTED',
        );
      return this.deps.sessions.create(account.id, meta, trx);
    });
    return { token: session.token, expiresAt: session.expiresAt, location: entry.returnTo ?? settings.dashboardUrl };
  }

  private async enabledSettings(): Promise<StoredOidcSettings> {
    const settings = await this.deps.settings.read();
    if (!settings.enabled) throw notFound('Single sign-on is not enabled', 'OIDC_DISABLED');
    return settings;
  }

  /**
   * The account behind the provider's subject: the linked one; else, by a verified e-mail, an
   * existing account (linked now) or a new one (when provisioning is on).
   */
  private async account(
    ctx: AuditContext,
    settings: StoredOidcSettings,
    claims: Record<string, unknown>,
    trx: Tx,
  ): Promise<Credentials> {
    const issuer = settings.issuer;
    const subject = String(claims.sub);
    const linked = await this.deps.store.linkedUser(issuer, subject, trx);
    if (linked) return (await this.deps.users.credentials(linked, trx))!;

    const email = typeof claims.email === 'string' ? claims.email.trim() : '';
    if (!email) throw forbidden('The provider did not send an e-mail address for this account', 'OIDC_EMAIL_MISSING');
    // Some providers send the flag as the text "true"; anything else is not a verified address.
    if (claims.email_verified !== true && claims.email_verified !== 'true')
      throw forbidden(
        'The provider has not verified this e-mail address; verify it there before signing in',
        'OIDC_EMAIL_UNVERIFIED',
      );
    const now = this.deps.clock.now();
    const existing = await this.deps.directory.findByEmail(email, trx);
    if (existing) {
      if (!existing.active) throw forbidden('This account is deactivated', 'ACCOUNT_INACTIVE');
      if (await this.deps.store.subjectOf(existing.id, issuer, trx))
        throw forbidden(
          'This account is already linked to another identity at the provider',
          'OIDC_ACCOUNT_LINKED_ELSEWHERE',
        );
      await this.deps.store.link(issuer, subject, existing.id, now, trx);
      await this.deps.audit.record(
        ctx,
        {
          action: 'user.sso_link',
          targetType: 'user',
          targetId: existing.id,
          targetLabel: existing.email,
          before: null,
          after: { issuer, subject },
        },
        trx,
      );
      return (await this.deps.users.credentials(existing.id, trx))!;
    }
    if (!settings.provisionUsers)
      throw forbidden('There is no account for this e-mail address; ask an administrator for one', 'OIDC_NO_ACCOUNT');
    const roles = [
      ...new Set([...settings.defaultRoles, ...this.mappedRoles(settings, claimValues(claims, settings.roleClaim))]),
    ];
    const existingRoles = await this.deps.roles.existingNames(roles, trx);
    const displayName = firstText(claims.name, claims.preferred_username, email).slice(0, 200);
    const { id } = await this.deps.directory.create(
      { email, displayName, roles: existingRoles, active: true },
      undefined,
      trx,
    );
    await this.deps.store.link(issuer, subject, id, now, trx);
    await this.deps.audit.record(
      ctx,
      {
        action: 'user.sso_provision',
        targetType: 'user',
        targetId: id,
        targetLabel: email,
        before: null,
        after: { email, displayName, roles: [...existingRoles].sort(), issuer, subject },
      },
      trx,
    );
    return (await this.deps.users.credentials(id, trx))!;
  }

  /**
   * Roles named in the mapping follow the claim (added or removed); other roles, given by hand, stay.
   * A claim never removes the last active holder of `*`: that role is kept and the change logged.
   */
  private async followRoleClaim(
    ctx: AuditContext,
    settings: StoredOidcSettings,
    account: Credentials,
    values: string[],
    trx: Tx,
  ): Promise<void> {
    const managed = new Set(Object.values(settings.roleMapping).flat());
    const wanted = new Set(await this.deps.roles.existingNames(this.mappedRoles(settings, values), trx));
    const before = [...account.roles].sort();
    let next = [...new Set([...before.filter((r) => !managed.has(r)), ...wanted])].sort();
    if (sameList(before, next)) return;
    const administratorsBefore = await this.deps.users.countAdministrators(trx);
    await this.deps.directory.setRoles(account.id, next, trx);
    if (administratorsBefore > 0 && (await this.deps.users.countAdministrators(trx)) === 0) {
      const removed = before.filter((r) => !next.includes(r));
      const keep = (await this.deps.roles.keysByName(removed, trx))
        .filter((r) => r.permissions.includes(ALL_KEYS))
        .map((r) => r.name);
      this.deps.log.warn(
        { userId: account.id, kept: keep },
        'single sign-on: the role claim would remove the last administrator; the role is kept',
      );
      next = [...new Set([...next, ...keep])].sort();
      await this.deps.directory.setRoles(account.id, next, trx);
      if (sameList(before, next)) return;
    }
    // As a role change by hand does: the user's row is touched (a sign-in checking mandatory 2FA
    // share-locks it, so it sees this change), and sessions without a second factor end when a role
    // that requires one was added.
    await this.deps.directory.update(account.id, {}, this.deps.clock.now(), trx);
    if (next.some((r) => !before.includes(r))) await this.deps.mandatoryMfa.endSessionsIfEnrolmentDue(account.id, trx);
    await this.deps.audit.record(
      ctx,
      {
        action: 'user.sso_roles',
        targetType: 'user',
        targetId: account.id,
        targetLabel: account.email,
        before: { roles: before },
        after: { roles: next },
      },
      trx,
    );
    account.roles = next;
  }

  /** The roles the mapping gives for these claim values (looked up in a Map: claim values are outside text). */
  private mappedRoles(settings: StoredOidcSettings, values: string[]): string[] {
    const mapping = new Map(Object.entries(settings.roleMapping));
    return [...new Set(values.flatMap((v) => mapping.get(v) ?? []))];
  }
}

/**
 * A path of this installation for `returnTo` (no scheme, no host, no `//` or backslash that a browser
 * would read as another host); 400 naming `returnTo` otherwise.
 */
export function ownPath(value: string): string {
  const refuse = () =>
    badRequest(
      'returnTo: must be a path on this installation, starting with a single /',
      'returnTo',
      'RETURN_TO_INVALID',
    );
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (value.length > MAX_RETURN_TO || !value.startsWith('/') || /^\/[/\\]|[\\\u0000-\u001f\u007f]/.test(value))
    throw refuse();
  const base = 'http://installation.invalid';
  const url = new URL(value, base);
  if (url.origin !== base) throw refuse();
  const path = url.pathname + url.search + url.hash;
  // Dot segments collapse while parsing: `/.//evil.example` comes out as `//evil.example`, which a
  // browser reads as another host in a Location header.
  if (/^\/[/\\]/.test(path)) throw refuse();
  return path;
}

/** The values of a (dotted) claim: an array of texts or one text; anything else is none. */
function claimValues(claims: Record<string, unknown>, path: string): string[] {
  if (!path) return [];
  let value: unknown = claims;
  for (const segment of path.split('.').slice(0, MAX_CLAIM_DEPTH)) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, segment))
      return [];
    value = (value as Record<string, unknown>)[segment];
  }
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function mfaAsserted(amr: unknown): boolean {
  return Array.isArray(amr) && amr.some((v) => typeof v === 'string' && MFA_AMR.has(v));
}

function firstText(...values: unknown[]): string {
  for (const v of values) if (typeof v === 'string' && v.trim()) return v.trim();
  return '';
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

const pendingKey = (state: string) => `identity:oidc-state:${hashToken(state)}`;
