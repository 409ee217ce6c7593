import {
  type AuditContext,
  type AuditWriter,
  badRequest,
  type Db,
  diffForAudit,
  HttpError,
  inTransaction,
  type Logger,
  type SecretBox,
} from '../../../kernel/index.ts';
import type { AiSettingsStore, SettingsKind } from '../store/settings.ts';
import type { ProviderSettings } from './provider.ts';

export const KEY_NAME = 'INTEGRATION_SECRETS_ENCRYPTION_KEY';
const PLAIN = 'plain:';
const DEFAULT_TIMEOUT_SECONDS = 60;

/** The body of `PUT /ai/settings` and its siblings (validated by the route's schema first). */
export interface SettingsInput {
  provider?: 'openai' | 'openai-compatible';
  baseUrl?: string | null;
  model?: string;
  apiKey?: string | null;
  organization?: string | null;
  temperature?: number | null;
  maxOutputTokens?: number | null;
  timeoutSeconds?: number | null;
  useTextSettings?: boolean;
}

/** What `GET` answers: never the key, only whether one is kept. */
export interface SettingsView {
  configured: boolean;
  useTextSettings?: boolean;
  provider?: 'openai' | 'openai-compatible';
  baseUrl?: string | null;
  model?: string;
  organization?: string | null;
  temperature?: number | null;
  maxOutputTokens?: number | null;
  timeoutSeconds?: number;
  apiKeySet: boolean;
}

const FIELDS = ['provider', 'baseUrl', 'model', 'organization', 'temperature', 'maxOutputTokens', 'timeoutSeconds'];
const TARGET: Record<SettingsKind, string> = {
  text: 'ai/settings',
  image: 'ai/image-settings',
  translate: 'ai/translate-settings',
};

/** A base URL the provider client may call: http(s), no credentials, query or fragment. */
function checkBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badRequest('baseUrl is not a URL (e.g. http://localhost:11434/v1)', 'baseUrl');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw badRequest('baseUrl must be http or https', 'baseUrl');
  if (url.username || url.password) throw badRequest('baseUrl must not carry credentials: use apiKey', 'baseUrl');
  if (url.search || url.hash) throw badRequest('baseUrl must not have a query or a fragment', 'baseUrl');
  return url.href.replace(/\/+$/, '');
}

/**
 * The AI settings of each kind (text, image, translate): provider, base URL, model and key. The key
 * is sealed with INTEGRATION_SECRETS_ENCRYPTION_KEY when it is set (else kept in clear with a logged
 * warning), never answered; a change of settings is audited as `setting.update`, the key as `changed`.
 */
export class AiSettingsService {
  constructor(
    private readonly deps: {
      db: Db;
      store: AiSettingsStore;
      secretBox: SecretBox;
      audit: AuditWriter;
      log: Logger;
      encrypt: boolean;
      openaiBaseUrl: string;
    },
  ) {
    if (!deps.encrypt) deps.log.warn(`${KEY_NAME} is not set: AI provider keys are stored in clear text`);
  }

  private seal(key: string): string {
    return this.deps.encrypt ? this.deps.secretBox.encrypt(KEY_NAME, key) : PLAIN + key;
  }

  private open(kept: string): string {
    return kept.startsWith(PLAIN) ? kept.slice(PLAIN.length) : this.deps.secretBox.decrypt(kept);
  }

  async view(kind: SettingsKind): Promise<SettingsView> {
    const stored = await this.deps.store.get(kind);
    if (!stored)
      return { configured: false, apiKeySet: false, ...(kind === 'translate' ? { useTextSettings: true } : {}) };
    const s = stored.settings;
    if (s.useTextSettings === true) return { configured: true, useTextSettings: true, apiKeySet: false };
    return {
      configured: true,
      ...(kind === 'translate' ? { useTextSettings: false } : {}),
      provider: s.provider as SettingsView['provider'],
      baseUrl: (s.baseUrl as string | null) ?? null,
      model: s.model as string,
      organization: (s.organization as string | null) ?? null,
      temperature: (s.temperature as number | null) ?? null,
      maxOutputTokens: (s.maxOutputTokens as number | null) ?? null,
      timeoutSeconds: (s.timeoutSeconds as number | undefined) ?? DEFAULT_TIMEOUT_SECONDS,
      apiKeySet: stored.apiKey !== null,
    };
  }

  /** Replaces the settings of `kind`; a blank or absent `apiKey` keeps the stored one, `null` removes it. */
  async put(ctx: AuditContext, kind: SettingsKind, input: SettingsInput): Promise<SettingsView> {
    const next = this.normalize(kind, input);
    await inTransaction(this.deps.db, undefined, async (trx) => {
      const before = await this.deps.store.get(kind, trx);
      let apiKey = before?.apiKey ?? null;
      if (next.useTextSettings === true || input.apiKey === null) apiKey = null;
      else if (typeof input.apiKey === 'string' && input.apiKey.trim() !== '') apiKey = this.seal(input.apiKey.trim());
      await this.deps.store.put(kind, { settings: next, apiKey }, trx);
      const auditView = (v: { settings: Record<string, unknown>; apiKey: string | null } | undefined) =>
        v ? { ...v.settings, apiKey: v.apiKey } : null;
      const diff = diffForAudit(auditView(before), auditView({ settings: next, apiKey }), {
        allow: [...FIELDS, 'useTextSettings', 'apiKey'],
        secrets: ['apiKey'],
      });
      if (diff)
        await this.deps.audit.record(
          ctx,
          {
            action: 'setting.update',
            targetType: 'setting',
            targetId: TARGET[kind],
            targetLabel: TARGET[kind],
            ...diff,
          },
          trx,
        );
    });
    return this.view(kind);
  }

  private normalize(kind: SettingsKind, input: SettingsInput): Record<string, unknown> {
    if (input.useTextSettings === true) {
      if (kind !== 'translate')
        throw badRequest('useTextSettings is only for the translate settings', 'useTextSettings');
      return { useTextSettings: true };
    }
    if (!input.provider) throw badRequest('provider is required (openai or openai-compatible)', 'provider');
    if (!input.model?.trim()) throw badRequest('model is required', 'model');
    if (input.provider === 'openai-compatible' && !input.baseUrl)
      throw badRequest('baseUrl is required for the provider openai-compatible', 'baseUrl');
    return {
      provider: input.provider,
      baseUrl: input.baseUrl ? checkBaseUrl(input.baseUrl) : null,
      model: input.model.trim(),
      organization: input.organization?.trim() || null,
      temperature: input.temperature ?? null,
      maxOutputTokens: input.maxOutputTokens ?? null,
      timeoutSeconds: input.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    };
  }

  /**
   * The settings a call of `kind` uses, key in clear: the translate settings fall back to the text
   * ones (`useTextSettings`, or none of their own). 409 AI_NOT_CONFIGURED when there are none.
   */
  async resolve(kind: SettingsKind): Promise<ProviderSettings> {
    let stored = await this.deps.store.get(kind);
    if (kind === 'translate' && (!stored || stored.settings.useTextSettings === true))
      stored = await this.deps.store.get('text');
    if (!stored)
      throw new HttpError(
        409,
        'AI_NOT_CONFIGURED',
        `No AI provider is configured: set ${kind === 'image' ? '/ai/image-settings' : '/ai/settings'} first`,
      );
    const s = stored.settings;
    let apiKey: string | null = null;
    try {
      apiKey = stored.apiKey === null ? null : this.open(stored.apiKey);
    } catch {
      throw new HttpError(
        409,
        'AI_KEY_UNREADABLE',
        `The stored AI provider key cannot be decrypted with ${KEY_NAME}: enter the key again`,
      );
    }
    return {
      provider: s.provider as ProviderSettings['provider'],
      baseUrl: (s.baseUrl as string | null) ?? this.deps.openaiBaseUrl,
      model: s.model as string,
      apiKey,
      organization: (s.organization as string | null) ?? null,
      temperature: (s.temperature as number | null) ?? null,
      maxOutputTokens: (s.maxOutputTokens as number | null) ?? null,
      timeoutMs: ((s.timeoutSeconds as number | undefined) ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
    };
  }
}
