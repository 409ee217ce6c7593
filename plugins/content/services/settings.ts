import { diffForAudit, inTransaction, type AuditContext } from '../../../kernel/index.ts';
import type { SettingsStore } from '../store/settings.ts';
import { CONTENT_CACHE } from './cache-notice.ts';
import type { ContentDeps } from './deps.ts';

/** Each setting's default when nothing is stored. */
export const SETTING_DEFAULTS = {
  'default-placeholder-image': { url: null as string | null },
  'strip-html-comments': { enabled: false as boolean },
  logging: { level: 'info' as string },
  autosave: { enabled: true as boolean, intervalSeconds: 30 as number },
  'alpine-presets': { presets: [] as unknown[] },
  'cdn-mirror': { enabled: false as boolean, baseUrl: null as string | null },
} as const;

export type SettingKey = keyof typeof SETTING_DEFAULTS;

const CACHE_MS = 5_000;

/** Editor settings with their audit rows (`setting.update`, `setting.cdn_mirror_update|remove`). */
export class SettingsService {
  private stripComments: { at: number; value: boolean } | null = null;

  constructor(private readonly deps: { kernel: ContentDeps; store: SettingsStore }) {}

  /** Forgets what this process keeps (another process's change notice). */
  drop(): void {
    this.stripComments = null;
  }

  async get<K extends SettingKey>(key: K): Promise<(typeof SETTING_DEFAULTS)[K]> {
    return ((await this.deps.store.get(key)) ?? SETTING_DEFAULTS[key]) as (typeof SETTING_DEFAULTS)[K];
  }

  /** `strip-html-comments`, read by every render (kept 5 s, dropped on a write in any process). */
  async stripHtmlComments(): Promise<boolean> {
    const now = this.deps.kernel.clock.now().getTime();
    if (this.stripComments && now - this.stripComments.at < CACHE_MS) return this.stripComments.value;
    const value = (await this.get('strip-html-comments')).enabled === true;
    this.stripComments = { at: now, value };
    return value;
  }

  async put(ctx: AuditContext, key: SettingKey, value: Record<string, unknown>): Promise<Record<string, unknown>> {
    return inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const before = ((await this.deps.store.get(key, trx)) ?? SETTING_DEFAULTS[key]) as Record<string, unknown>;
      await this.deps.store.put(key, value, trx);
      if (key === 'strip-html-comments') this.stripComments = null;
      // Every process drops what it keeps once this commits.
      await this.deps.kernel.cacheNotices.changed(CONTENT_CACHE, '', trx);
      const diff = diffForAudit(before, value, { allow: Object.keys(value), longTexts: ['presets'] });
      if (diff) {
        const action = key === 'cdn-mirror' ? 'setting.cdn_mirror_update' : 'setting.update';
        await this.deps.kernel.audit.record(
          ctx,
          { action, targetType: 'setting', targetId: key, targetLabel: key, ...diff },
          trx,
        );
      }
      return value;
    });
  }

  async remove(ctx: AuditContext, key: SettingKey): Promise<void> {
    await inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const before = (await this.deps.store.get(key, trx)) as Record<string, unknown> | undefined;
      if (!(await this.deps.store.remove(key, trx)) || !before) return;
      await this.deps.kernel.cacheNotices.changed(CONTENT_CACHE, '', trx);
      await this.deps.kernel.audit.record(
        ctx,
        {
          action: 'setting.cdn_mirror_remove',
          targetType: 'setting',
          targetId: key,
          targetLabel: key,
          before,
          after: null,
        },
        trx,
      );
    });
  }
}
