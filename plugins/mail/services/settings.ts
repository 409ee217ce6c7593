import { createHash } from 'node:crypto';
import {
  type AuditContext,
  type AuditWriter,
  type Clock,
  type Db,
  diffForAudit,
  HttpError,
  type SecretBox,
  badRequest,
  notFound,
  type OutboundGuard,
  type ServiceMap,
} from '../../../kernel/index.ts';
import type { MailSettingsRow, MailSettingsStore } from '../store/settings-store.ts';
import { type ProviderCatalog, splitProviderConfig } from './providers.ts';
import { smtpHostRefusal } from './smtp-address.ts';

export const KEY_NAME = 'MAIL_SETTINGS_ENCRYPTION_KEY';
const DEFAULT_SCOPE = 'default';
/** Settings read by the sender are kept this long per process (a write in any process drops them at once). */
const CACHE_MS = 5_000;

export interface SmtpSettings {
  host: string;
  port: number;
  /** true: implicit TLS from the first byte (usually port 465); false: STARTTLS when the server offers it. */
  secure: boolean;
  /** Refuse to send unless STARTTLS succeeds (with `secure: false`). */
  requireTls: boolean;
  user: string | null;
  /** Accept a certificate that does not verify (a self-signed development relay). */
  allowInvalidCertificate: boolean;
}

/** The `PUT /mail-settings` body: `provider` with `smtp` or `providerConfig`, or the older flat SMTP fields. */
export interface MailSettingsInput {
  provider?: string;
  smtp?: Partial<SmtpSettings> & { password?: string | null };
  providerConfig?: Record<string, unknown>;
  from?: string | null;
  fromName?: string | null;
  replyTo?: string | null;
  // The older flat body (versioning point 5): SMTP fields at the top level.
  host?: string;
  port?: number;
  secure?: boolean;
  requireTls?: boolean;
  user?: string | null;
  password?: string | null;
  allowInvalidCertificate?: boolean;
}

/** What a sender needs: the provider and its settings with secrets in clear (never leaves the process). */
export interface ResolvedSettings {
  /** `smtp`, a provider id, or `environment` (nothing saved: SMTP_URL or the service log). */
  provider: string;
  /** Changes whenever the settings do (pooled SMTP connections are keyed on it). */
  version: string;
  smtp?: SmtpSettings & { password: string | null };
  providerConfig?: Record<string, string>;
  from: string | null;
  fromName: string | null;
  replyTo: string | null;
  /** Every secret value, so answers and errors can be scrubbed of them before they are stored. */
  secretValues: string[];
}

const PLAIN_ADDRESS = /^[^\s@<>,;:"()[\]\\]+@[^\s@<>,;:"()[\]\\]+$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: a header value must not carry control characters
const CONTROL = /[\u0000-\u001f\u007f]/;

function checkAddress(value: string | null | undefined, field: string): string | null {
  if (value === undefined || value === null || value.trim() === '') return null;
  const v = value.trim();
  if (v.length > 254 || !PLAIN_ADDRESS.test(v)) throw badRequest(`${field} must be one plain e-mail address`, field);
  return v;
}

function checkText(value: string | null | undefined, field: string, max: number): string | null {
  if (value === undefined || value === null || value.trim() === '') return null;
  if (value.length > max || CONTROL.test(value))
    throw badRequest(`${field} must be one line of at most ${max} characters`, field);
  return value.trim();
}

const hashOf = (v: string) => createHash('sha256').update(v).digest('hex');

/** Mail settings per scope (default or a website): validated, secrets sealed, changes audited. */
export class MailSettingsService {
  private readonly cache = new Map<string, { at: number; value: ResolvedSettings | undefined }>();

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      audit: AuditWriter;
      secretBox: SecretBox;
      store: MailSettingsStore;
      providers: ProviderCatalog;
      websites: ServiceMap['websiteUploadRules'];
      /** The gateway's outbound address policy, asked for an SMTP host when it is saved. */
      outboundFetch: ServiceMap['outboundFetch'] | undefined;
      /** The kernel's guard: under the sandbox profile it refuses every host, which a save does not reach. */
      outboundGuard: Pick<OutboundGuard, 'refusal'>;
      /** Tells every process (this one included) to drop what it keeps. */
      announce?: () => void;
    },
  ) {}

  /** Drops what this process keeps (a change notice from any process). */
  drop(): void {
    this.cache.clear();
  }

  private scopeOf(websiteId: string | undefined): string {
    return websiteId ?? DEFAULT_SCOPE;
  }

  /** 404 for a website the content plugin does not know (unchecked without it). */
  async checkWebsite(websiteId: string | undefined): Promise<void> {
    if (!websiteId || this.deps.websites.length === 0) return;
    for (const source of this.deps.websites) if (await source.findWebsite({ id: websiteId })) return;
    throw notFound('Website not found', 'WEBSITE_NOT_FOUND');
  }

  /** `GET /mail-settings`: this scope's own settings, secrets only as "set". */
  async describe(websiteId: string | undefined) {
    await this.checkWebsite(websiteId);
    const row = await this.deps.store.get(this.scopeOf(websiteId));
    const base = { scope: websiteId ? ('website' as const) : ('default' as const), websiteId: websiteId ?? null };
    if (!row)
      return {
        ...base,
        configured: false,
        // A website without its own settings uses the default; the default without settings uses the
        // server's SMTP_URL (or only logs mail when that is unset).
        uses: websiteId ? ('default' as const) : ('environment' as const),
        provider: null,
      };
    const secrets = this.unseal(row);
    const common = {
      ...base,
      configured: true,
      provider: row.provider,
      from: row.from_address,
      fromName: row.from_name,
      replyTo: row.reply_to,
      updatedAt: row.updated_at.toISOString(),
    };
    if (row.provider === 'smtp')
      return {
        ...common,
        smtp: { ...(row.config as unknown as SmtpSettings), passwordSet: Boolean(secrets.password) },
      };
    const provider = this.deps.providers.get(row.provider);
    const secretsSet: Record<string, boolean> = {};
    for (const f of provider?.fields ?? []) if (f.type === 'secret') secretsSet[f.name] = Boolean(secrets[f.name]);
    return { ...common, providerConfig: row.config as Record<string, string>, secretsSet };
  }

  async update(ctx: AuditContext, websiteId: string | undefined, input: MailSettingsInput) {
    await this.checkWebsite(websiteId);
    const body = normalise(input);
    const scope = this.scopeOf(websiteId);
    // Before the transaction: the check resolves the host name (no lock held while it does).
    const host = body.provider === 'smtp' ? body.smtp?.host?.trim() : undefined;
    // The address is the question here; the sandbox profile refuses the sending itself, not the save.
    if (host && HOST.test(host) && this.deps.outboundGuard.refusal(host) === undefined) {
      const refused = await smtpHostRefusal(this.deps.outboundFetch, host);
      if (refused !== undefined)
        throw badRequest(`smtp.host is refused by the outbound policy: ${refused}`, 'smtp.host');
    }
    await this.deps.db.transaction(async (trx) => {
      await this.deps.store.lock(scope, trx);
      const before = await this.deps.store.get(scope, trx);
      const stored = before && before.provider === body.provider ? this.unseal(before) : {};
      let config: Record<string, unknown>;
      let secrets: Record<string, string>;
      let secretsChanged: boolean;
      if (body.provider === 'smtp') {
        ({ config, secrets, secretsChanged } = smtpConfig(body.smtp ?? {}, stored));
      } else {
        const provider = this.deps.providers.get(body.provider);
        if (!provider) throw badRequest(`Unknown mail provider ${body.provider} (see GET /mail-providers)`, 'provider');
        ({ plain: config, secrets, secretsChanged } = splitProviderConfig(provider, body.providerConfig ?? {}, stored));
      }
      if (secretsChanged && !this.deps.secretBox.hasKey(KEY_NAME))
        throw new HttpError(
          503,
          'MAIL_SETTINGS_ENCRYPTION_KEY_MISSING',
          `Saving a mail password or key needs ${KEY_NAME} on the server; set it and try again`,
        );
      const sealed = Object.keys(secrets).length
        ? secretsChanged || !before?.secrets_sealed
          ? this.deps.secretBox.encrypt(KEY_NAME, JSON.stringify(secrets))
          : before.secrets_sealed
        : null;
      const row = {
        scope,
        website_id: websiteId ?? null,
        provider: body.provider,
        config,
        secrets_sealed: sealed,
        from_address: checkAddress(body.from, 'from'),
        from_name: checkText(body.fromName, 'fromName', 200),
        reply_to: checkAddress(body.replyTo, 'replyTo'),
      };
      await this.deps.store.put(row, this.deps.clock.now(), trx);
      const diff = diffForAudit(before ? this.auditView(before) : null, this.auditView(row, secrets), {
        allow: [
          ...new Set([
            ...Object.keys(before ? this.auditView(before) : {}),
            ...Object.keys(this.auditView(row, secrets)),
          ]),
        ],
        secrets: [...new Set([...Object.keys(secrets), ...Object.keys(stored)])].map((k) => `secret.${k}`),
      });
      if (diff)
        await this.deps.audit.record(
          ctx,
          {
            action: 'setting.mail_update',
            targetType: 'mail_settings',
            targetId: scope,
            targetLabel: websiteId ? `website ${websiteId}` : 'default',
            ...diff,
          },
          trx,
        );
    });
    this.cache.clear();
    this.deps.announce?.();
    return this.describe(websiteId);
  }

  /** `DELETE /mail-settings?websiteId=`: the website falls back to the default; the default stays. */
  async remove(ctx: AuditContext, websiteId: string | undefined): Promise<void> {
    if (!websiteId)
      throw badRequest('The default mail settings cannot be removed', 'websiteId', 'DEFAULT_NOT_REMOVABLE');
    await this.deps.db.transaction(async (trx) => {
      const row = await this.deps.store.remove(websiteId, trx);
      if (!row) throw notFound('This website has no mail settings of its own', 'MAIL_SETTINGS_NOT_FOUND');
      await this.deps.audit.record(
        ctx,
        {
          action: 'setting.mail_remove',
          targetType: 'mail_settings',
          targetId: websiteId,
          targetLabel: `website ${websiteId}`,
          before: { provider: row.provider },
        },
        trx,
      );
    });
    this.cache.clear();
    this.deps.announce?.();
  }

  /** The settings a mail for `websiteId` is sent with (its own, else the default), cached briefly. */
  async resolve(websiteId: string | null): Promise<ResolvedSettings | undefined> {
    const key = websiteId ?? DEFAULT_SCOPE;
    const now = Date.now();
    const hit = this.cache.get(key);
    if (hit && now - hit.at < CACHE_MS) return hit.value;
    const row = await this.deps.store.effective(websiteId);
    const value = row && this.resolved(row);
    this.cache.set(key, { at: now, value });
    return value;
  }

  private resolved(row: MailSettingsRow): ResolvedSettings {
    const secrets = this.unseal(row);
    const base = {
      provider: row.provider,
      version: `${row.scope}:${row.updated_at.getTime()}`,
      from: row.from_address,
      fromName: row.from_name,
      replyTo: row.reply_to,
      secretValues: Object.values(secrets).filter(Boolean),
    };
    if (row.provider === 'smtp')
      return { ...base, smtp: { ...(row.config as unknown as SmtpSettings), password: secrets.password ?? null } };
    return { ...base, providerConfig: { ...(row.config as Record<string, string>), ...secrets } };
  }

  private unseal(row: Pick<MailSettingsRow, 'secrets_sealed'>): Record<string, string> {
    if (!row.secrets_sealed) return {};
    return JSON.parse(this.deps.secretBox.decrypt(row.secrets_sealed)) as Record<string, string>;
  }

  /** The audited view: settings flattened (`smtp.host`), secrets as a hash that only `diffForAudit` compares. */
  private auditView(
    row: Pick<MailSettingsRow, 'provider' | 'config' | 'from_address' | 'from_name' | 'reply_to' | 'secrets_sealed'>,
    secrets?: Record<string, string>,
  ): Record<string, unknown> {
    const view: Record<string, unknown> = {
      provider: row.provider,
      from: row.from_address,
      fromName: row.from_name,
      replyTo: row.reply_to,
    };
    const prefix = row.provider === 'smtp' ? 'smtp' : 'providerConfig';
    for (const [k, v] of Object.entries(row.config)) view[`${prefix}.${k}`] = v;
    for (const [k, v] of Object.entries(secrets ?? this.unseal(row))) view[`secret.${k}`] = hashOf(v);
    return view;
  }
}

/** The body in its current shape: the older flat SMTP fields become `smtp`. */
function normalise(input: MailSettingsInput): MailSettingsInput & { provider: string } {
  const flat = ['host', 'port', 'secure', 'requireTls', 'user', 'password', 'allowInvalidCertificate'] as const;
  const flatGiven = flat.some((k) => input[k] !== undefined);
  if (flatGiven && (input.smtp || input.providerConfig))
    throw badRequest('Give the SMTP settings either flat or inside smtp, not both', 'smtp');
  const provider = input.provider ?? (input.providerConfig ? undefined : 'smtp');
  if (!provider) throw badRequest('provider is required with providerConfig', 'provider');
  if (provider === 'smtp' && input.providerConfig)
    throw badRequest('provider smtp takes smtp, not providerConfig', 'providerConfig');
  if (provider !== 'smtp' && (input.smtp || flatGiven))
    throw badRequest(`provider ${provider} takes providerConfig, not smtp`, 'smtp');
  if (!flatGiven) return { ...input, provider };
  return {
    provider,
    from: input.from,
    fromName: input.fromName,
    replyTo: input.replyTo,
    smtp: {
      host: input.host,
      port: input.port,
      secure: input.secure,
      requireTls: input.requireTls,
      user: input.user,
      password: input.password,
      allowInvalidCertificate: input.allowInvalidCertificate,
    },
  };
}

const HOST = /^[A-Za-z0-9.-]{1,253}$|^\[[0-9A-Fa-f:.]+\]$/;

function smtpConfig(
  smtp: NonNullable<MailSettingsInput['smtp']>,
  stored: Record<string, string>,
): { config: Record<string, unknown>; secrets: Record<string, string>; secretsChanged: boolean } {
  const host = smtp.host?.trim();
  if (!host || !HOST.test(host)) throw badRequest('smtp.host must be a host name or address', 'smtp.host');
  const secure = smtp.secure ?? false;
  const port = smtp.port ?? (secure ? 465 : 587);
  const user = checkText(smtp.user, 'smtp.user', 254);
  const config: SmtpSettings = {
    host,
    port,
    secure,
    requireTls: smtp.requireTls ?? false,
    user,
    allowInvalidCertificate: smtp.allowInvalidCertificate ?? false,
  };
  const given = smtp.password ?? '';
  if (given.length > 1000) throw badRequest('smtp.password is longer than 1000 characters', 'smtp.password');
  const secrets: Record<string, string> = {};
  // A blank password keeps the stored one; there is no password without a user.
  const password = given !== '' ? given : stored.password;
  if (password && user) secrets.password = password;
  return {
    config: config as unknown as Record<string, unknown>,
    secrets,
    secretsChanged: given !== '' && given !== stored.password,
  };
}
