import {
  badRequest,
  diffForAudit,
  inTransaction,
  notFound,
  type AuditContext,
  type Tx,
} from '../../../kernel/index.ts';
import type { ThemeStore } from '../store/themes.ts';
import { cssAsParsed } from './css-text.ts';
import type { ContentDeps } from './deps.ts';

export interface ThemeRow {
  id: string;
  website_id: string | null;
  name: string;
  colors: Record<string, string>;
  fonts: Record<string, string>;
  custom_styles: string;
  is_default: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface ThemeInput {
  name?: string;
  colors?: Record<string, string>;
  fonts?: Record<string, string>;
  customStyles?: string;
}

export const toThemeDto = (r: ThemeRow) => ({
  id: r.id,
  websiteId: r.website_id,
  name: r.name,
  colors: r.colors,
  fonts: r.fonts,
  customStyles: r.custom_styles,
  isDefault: r.is_default,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

// Theme text is audited as a fingerprint (the spec's "theme text ... short fingerprint prefixed sha:").
const AUDIT = {
  allow: ['name', 'colors', 'fonts', 'customStyles', 'isDefault'],
  longTexts: ['customStyles', 'colors', 'fonts'],
};
const view = (r: ThemeRow) => toThemeDto(r) as unknown as Record<string, unknown>;

/**
 * Custom styles that could break out of a style element or run script (also checked on website
 * import); the words are looked for as the CSS parser reads them too (escapes and comments).
 */
export const unsafeStyles = (css: string) =>
  /<\/?style|<script/i.test(css) || /javascript:|expression\(|behavior:|-moz-binding|@import/.test(cssAsParsed(css));

/** Refuses theme styles that could leave the style element or run script (400 naming `customStyles`). */
export function checkStyles(css: string | undefined): void {
  if (css === undefined) return;
  if (unsafeStyles(css))
    throw badRequest('Custom styles may not contain markup, script URLs, expressions or @import', 'customStyles');
}

/**
 * Themes: a global catalog (website null) and one catalog per website with one active default per
 * website (a partial unique index). Website theme writes are audited as `website.theme_*`; the
 * global catalog is not in the spec's audit list and is not audited.
 */
export class ThemeService {
  constructor(
    private readonly deps: {
      kernel: ContentDeps;
      store: ThemeStore;
      /** After a write to a website's catalog: that website (its active theme is cached for its pages). */
      onChange?(websiteId: string): void;
    },
  ) {}

  private changed(websiteId: string | null): void {
    if (websiteId) this.deps.onChange?.(websiteId);
  }

  list(scope: string | null | 'all'): Promise<ThemeRow[]> {
    return this.deps.store.list(scope);
  }

  async get(id: string, websiteId: string | null, trx?: Tx): Promise<ThemeRow> {
    const row = await this.deps.store.find(id, websiteId, trx);
    if (!row) throw notFound('Theme not found');
    return row;
  }

  private async website(websiteId: string, trx?: Tx): Promise<{ name: string }> {
    const site = await this.deps.store.websiteName(websiteId, trx);
    if (!site) throw notFound('Website not found');
    return site;
  }

  private columns(input: ThemeInput): Record<string, unknown> {
    checkStyles(input.customStyles);
    const c: Record<string, unknown> = {};
    if (input.name !== undefined) c.name = input.name;
    if (input.colors !== undefined) c.colors = JSON.stringify(input.colors);
    if (input.fonts !== undefined) c.fonts = JSON.stringify(input.fonts);
    if (input.customStyles !== undefined) c.custom_styles = input.customStyles;
    return c;
  }

  async create(ctx: AuditContext, websiteId: string | null, input: ThemeInput & { name: string }): Promise<ThemeRow> {
    const columns = this.columns(input);
    return inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      if (websiteId) await this.website(websiteId, trx);
      const row = await this.deps.store.insert(columns, websiteId, trx);
      if (websiteId)
        await this.deps.kernel.audit.record(
          ctx,
          {
            action: 'website.theme_create',
            targetType: 'website',
            targetId: websiteId,
            targetLabel: row.name,
            ...diffForAudit(null, view(row), AUDIT),
          },
          trx,
        );
      return row;
    }).finally(() => this.changed(websiteId));
  }

  async update(ctx: AuditContext, websiteId: string | null, id: string, input: ThemeInput): Promise<ThemeRow> {
    const columns = this.columns(input);
    return inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const before = await this.get(id, websiteId, trx);
      const row = await this.deps.store.update(id, columns, trx);
      const diff = diffForAudit(view(before), view(row), AUDIT);
      if (websiteId && diff)
        await this.deps.kernel.audit.record(
          ctx,
          {
            action: 'website.theme_update',
            targetType: 'website',
            targetId: websiteId,
            targetLabel: row.name,
            ...diff,
          },
          trx,
        );
      return row;
    }).finally(() => this.changed(websiteId));
  }

  async remove(ctx: AuditContext, websiteId: string | null, id: string): Promise<void> {
    await inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const before = await this.get(id, websiteId, trx);
      await this.deps.store.remove(id, trx);
      if (websiteId)
        await this.deps.kernel.audit.record(
          ctx,
          {
            action: 'website.theme_delete',
            targetType: 'website',
            targetId: websiteId,
            targetLabel: before.name,
            ...diffForAudit(view(before), null, AUDIT),
          },
          trx,
        );
    }).finally(() => this.changed(websiteId));
  }

  async active(websiteId: string): Promise<ThemeRow | null> {
    await this.website(websiteId);
    return (await this.deps.store.active(websiteId)) ?? null;
  }

  /** Makes a theme of the website's catalog its one active default. */
  async setActive(ctx: AuditContext, websiteId: string, themeId: string): Promise<ThemeRow> {
    return inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const site = await this.website(websiteId, trx);
      const theme = await this.deps.store.find(themeId, websiteId, trx);
      if (!theme) throw badRequest("Theme is not in the website's catalog", 'themeId');
      const before = await this.deps.store.active(websiteId, trx);
      if (before?.id === themeId) return theme;
      const row = await this.deps.store.makeDefault(websiteId, themeId, trx);
      await this.deps.kernel.audit.record(
        ctx,
        {
          action: 'website.theme_set',
          targetType: 'website',
          targetId: websiteId,
          targetLabel: site.name,
          before: { themeId: before?.id ?? null },
          after: { themeId },
        },
        trx,
      );
      return row;
    }).finally(() => this.changed(websiteId));
  }
}
