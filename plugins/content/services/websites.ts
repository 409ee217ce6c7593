import { checkDocsSettings } from './docs-websites.ts';
import { createHash, randomBytes } from 'node:crypto';
import {
  badRequest,
  conflict,
  diffForAudit,
  inTransaction,
  isUniqueViolation,
  newToken,
  notFound,
  safeEqual,
  type AuditContext,
  type Tx,
} from '../../../kernel/index.ts';
import { announcePage } from '../events.ts';
import type { WebsiteUploadSettings } from '../ports.ts';
import type { PageRow } from '../store/pages.ts';
import type { WebsiteRow, WebsiteStore, WebsiteWrite } from '../store/websites.ts';
import type { ContentDeps } from './deps.ts';
import { isReservedRoot } from './reserved-paths.ts';
import type { SiteDirectory } from './site-directory.ts';
import {
  checkUploadSettingsInput,
  normalizeUploadSettings,
  readUploadSettings,
  type SettingsProblem,
} from './upload-settings.ts';

/** Largest settings object of a website, in bytes of JSON. */
export const WEBSITE_SETTINGS_MAX_BYTES = 256 * 1024;

export interface WebsiteInput {
  name?: string;
  rootPath?: string;
  locales?: string[];
  settings?: Record<string, unknown>;
  theme?: string | null;
  domains?: string[];
  kind?: string;
}

export interface WebsiteDto {
  id: string;
  name: string;
  rootPath: string;
  locales: string[];
  settings: Record<string, unknown>;
  theme: string | null;
  domains: string[];
  kind: string;
  siteKey: { set: boolean };
  createdAt: Date;
  updatedAt: Date;
  /** Stored values that break a rule (an import, SQL by hand): reported, the safe value applies. */
  problems?: SettingsProblem[];
}

const AUDIT_FIELDS = { allow: ['name', 'rootPath', 'locales', 'settings', 'theme', 'domains', 'kind'] };

/** A website as the API answers it; a stored value that breaks a read-time rule is reported in `problems`, never fatal. */
export function toWebsiteDto(row: WebsiteRow): WebsiteDto {
  const uploads = readUploadSettings(row.id, row.settings.uploads);
  return {
    id: row.id,
    name: row.name,
    rootPath: row.root_path,
    locales: row.locales,
    settings: { ...row.settings, uploads: uploads.settings },
    theme: row.theme,
    domains: row.domains,
    kind: row.kind,
    siteKey: { set: row.site_key_hash !== null },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(uploads.problems.length ? { problems: uploads.problems } : {}),
  };
}

/** Salted SHA-256 of a random 32-byte key (`salt$hash`): the key's entropy makes a slow hash unnecessary. */
function hashSiteKey(key: string, salt = randomBytes(16).toString('hex')): string {
  return `${salt}$${createHash('sha256').update(salt).update(key).digest('hex')}`;
}

export class WebsiteService {
  constructor(private readonly deps: { kernel: ContentDeps; store: WebsiteStore; directory: SiteDirectory }) {}

  /** 400 unless `rootPath` is one lower-case segment the host does not use (also checked on website import). */
  checkRoot(rootPath: string): void {
    if (!/^\/[a-z0-9][a-z0-9_-]*$/.test(rootPath))
      throw badRequest('Root path must be one segment of lower-case letters, digits, _ and - (e.g. /shop)', 'rootPath');
    const segment = rootPath.slice(1);
    if (isReservedRoot(segment, this.deps.kernel.mountedRoutes))
      throw badRequest(`Root path ${rootPath} is used by the host`, 'rootPath');
  }

  /** Drops the resolved list now and again when the transaction ends (a rollback restores nothing stale). */
  private changed(trx: Tx): void {
    this.deps.directory.invalidate();
    trx.executionPromise?.then(
      () => this.deps.directory.invalidate(),
      () => this.deps.directory.invalidate(),
    );
  }

  async list(): Promise<WebsiteDto[]> {
    return (await this.deps.store.list()).map(toWebsiteDto);
  }

  async get(id: string, trx?: Tx): Promise<WebsiteRow> {
    const row = await this.deps.store.find(id, trx);
    if (!row) throw notFound('Website not found');
    return row;
  }

  /** A domain answers for one website only (the public API and the gateway find websites by host). */
  private async checkDomains(domains: string[] | undefined, selfId: string | null, trx: Tx): Promise<void> {
    if (!domains?.length) return;
    const taken = await this.deps.store.domainsTaken(domains, selfId, trx);
    const i = domains.findIndex((d) => taken.has(d));
    if (i >= 0) throw conflict(`Domain ${domains[i]} belongs to another website`, 'UNIQUE_VIOLATION', `domains.${i}`);
  }

  private toWrite(input: WebsiteInput): WebsiteWrite {
    const w: WebsiteWrite = {};
    if (input.name !== undefined) w.name = input.name;
    if (input.rootPath !== undefined) w.root_path = input.rootPath;
    if (input.locales !== undefined) w.locales = [...new Set(input.locales)];
    if (input.theme !== undefined) w.theme = input.theme;
    if (input.domains !== undefined) w.domains = [...new Set(input.domains.map((d) => d.toLowerCase()))];
    if (input.kind !== undefined) w.kind = input.kind;
    return w;
  }

  /**
   * The settings a new website stores when it is created with `input` (the create route's rules:
   * upload settings checked and normalised, the theme catalog a list, the size cap); 400 naming the
   * field. Website imports write settings through this too.
   */
  settingsForNew(id: string, input: Record<string, unknown>): Record<string, unknown> {
    return this.settingsOf(id, {}, input) ?? {};
  }

  private settingsOf(
    id: string,
    stored: Record<string, unknown>,
    input: Record<string, unknown> | undefined,
  ): Record<string, unknown> | undefined {
    if (!input) return undefined;
    const next = { ...stored, ...input };
    if (input.uploads !== undefined)
      next.uploads = normalizeUploadSettings(
        id,
        stored.uploads,
        checkUploadSettingsInput(input.uploads ?? {}, 'settings.uploads'),
        'settings.uploads.',
      );
    if (input.docs !== undefined) next.docs = checkDocsSettings(input.docs, 'settings.docs');
    if (input.themes !== undefined && !Array.isArray(input.themes))
      throw badRequest('settings.themes must be an array (the theme catalog)', 'settings.themes');
    if (Buffer.byteLength(JSON.stringify(next)) > WEBSITE_SETTINGS_MAX_BYTES)
      throw badRequest(`Settings are larger than ${WEBSITE_SETTINGS_MAX_BYTES} bytes`, 'settings');
    return next;
  }

  private async write<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict('Another website has this root path', 'UNIQUE_VIOLATION', 'rootPath');
      throw err;
    }
  }

  /**
   * `opts.trx`: inside the caller's transaction (a website made from an AI structure with its pages);
   * `opts.auditAction`: the audit row's action (default `website.create`).
   */
  async create(
    ctx: AuditContext,
    input: WebsiteInput & { name: string; rootPath: string },
    opts: { trx?: Tx; auditAction?: string } = {},
  ): Promise<WebsiteDto> {
    this.checkRoot(input.rootPath);
    return this.write(() =>
      inTransaction(this.deps.kernel.db, opts.trx, async (trx) => {
        const w = this.toWrite(input);
        await this.checkDomains(w.domains, null, trx);
        const row = await this.deps.store.insert({ ...w, settings: {} }, trx);
        const settings = this.settingsOf(row.id, {}, input.settings);
        const saved = settings ? await this.deps.store.update(row.id, { settings }, trx) : row;
        const dto = toWebsiteDto(saved);
        await this.deps.kernel.audit.record(
          ctx,
          {
            action: opts.auditAction ?? 'website.create',
            targetType: 'website',
            targetId: row.id,
            targetLabel: row.name,
            ...diffForAudit(null, auditView(dto), AUDIT_FIELDS),
          },
          trx,
        );
        this.changed(trx);
        return dto;
      }),
    );
  }

  async update(ctx: AuditContext, id: string, input: WebsiteInput): Promise<WebsiteDto> {
    if (input.rootPath !== undefined) this.checkRoot(input.rootPath);
    return this.write(() =>
      inTransaction(this.deps.kernel.db, undefined, async (trx) => {
        const before = await this.deps.store.findForUpdate(id, trx);
        if (!before) throw notFound('Website not found');
        const w = this.toWrite(input);
        await this.checkDomains(w.domains, id, trx);
        const settings = this.settingsOf(id, before.settings, input.settings);
        if (settings) w.settings = settings;
        const row = await this.deps.store.update(id, w, trx);
        const diff = diffForAudit(auditView(toWebsiteDto(before)), auditView(toWebsiteDto(row)), AUDIT_FIELDS);
        if (diff)
          await this.deps.kernel.audit.record(
            ctx,
            { action: 'website.update', targetType: 'website', targetId: id, targetLabel: row.name, ...diff },
            trx,
          );
        this.changed(trx);
        return toWebsiteDto(row);
      }),
    );
  }

  async remove(ctx: AuditContext, id: string): Promise<void> {
    await inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const before = await this.deps.store.findForUpdate(id, trx);
      if (!before) throw notFound('Website not found');
      // Its pages go with it (cascade): subscribers (search, object events) hear of each one, and
      // their version history goes too.
      const pages = (await this.deps.store.pagesOf(id, trx)) as PageRow[];
      await this.deps.store.removePageVersions(id, trx);
      await this.deps.store.remove(id, trx);
      // Announced once the rows are gone, so a subscriber reading the page finds none.
      for (const page of pages) {
        if (page.published) await announcePage(this.deps.kernel.recordHooks, trx, 'unpublished', page, ctx.actor);
        await announcePage(this.deps.kernel.recordHooks, trx, 'deleted', page, ctx.actor);
      }
      await this.deps.kernel.audit.record(
        ctx,
        {
          action: 'website.delete',
          targetType: 'website',
          targetId: id,
          targetLabel: before.name,
          ...diffForAudit(auditView(toWebsiteDto(before)), null, AUDIT_FIELDS),
        },
        trx,
      );
      this.changed(trx);
    });
  }

  /** A new site key: the plaintext is answered once, only its salted hash is stored. */
  async regenerateSiteKey(ctx: AuditContext, id: string): Promise<{ siteKey: string }> {
    const key = `wsk_${newToken(32)}`;
    await inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const row = await this.deps.store.findForUpdate(id, trx);
      if (!row) throw notFound('Website not found');
      await this.deps.store.update(id, { site_key_hash: hashSiteKey(key) }, trx);
      await this.deps.kernel.audit.record(
        ctx,
        {
          action: 'website.api_key_regenerate',
          targetType: 'website',
          targetId: id,
          targetLabel: row.name,
          before: null,
          after: { siteKey: 'changed' },
        },
        trx,
      );
      this.changed(trx);
    });
    return { siteKey: key };
  }

  async clearSiteKey(ctx: AuditContext, id: string): Promise<void> {
    await inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const row = await this.deps.store.findForUpdate(id, trx);
      if (!row) throw notFound('Website not found');
      if (row.site_key_hash === null) return; // nothing changed: no audit row
      await this.deps.store.update(id, { site_key_hash: null }, trx);
      await this.deps.kernel.audit.record(
        ctx,
        {
          action: 'website.api_key_clear',
          targetType: 'website',
          targetId: id,
          targetLabel: row.name,
          before: { siteKey: 'changed' },
          after: null,
        },
        trx,
      );
      this.changed(trx);
    });
  }

  /** Constant-time check of a presented site key; true when the website has none. */
  async checkSiteKey(websiteId: string, presented: string | undefined): Promise<boolean> {
    const site = await this.deps.directory.byId(websiteId);
    if (!site) return false;
    const stored = site.row.site_key_hash;
    if (stored === null) return true;
    if (!presented || presented.length > 200) return false;
    const [salt] = stored.split('$', 1);
    return safeEqual(hashSiteKey(presented, salt), stored);
  }

  async uploadSettings(id: string): Promise<WebsiteUploadSettings> {
    const row = await this.get(id);
    return readUploadSettings(id, row.settings.uploads).settings;
  }

  async putUploadSettings(
    ctx: AuditContext,
    id: string,
    input: Parameters<typeof normalizeUploadSettings>[2],
  ): Promise<WebsiteUploadSettings> {
    return inTransaction(this.deps.kernel.db, undefined, async (trx) => {
      const row = await this.deps.store.findForUpdate(id, trx);
      if (!row) throw notFound('Website not found');
      const before = readUploadSettings(id, row.settings.uploads).settings;
      const uploads = normalizeUploadSettings(id, row.settings.uploads, input);
      await this.deps.store.update(id, { settings: { ...row.settings, uploads } }, trx);
      const diff = diffForAudit(
        before as unknown as Record<string, unknown>,
        uploads as unknown as Record<string, unknown>,
        { allow: Object.keys(uploads) },
      );
      if (diff)
        await this.deps.kernel.audit.record(
          ctx,
          { action: 'website.upload_settings', targetType: 'website', targetId: id, targetLabel: row.name, ...diff },
          trx,
        );
      this.changed(trx);
      return uploads;
    });
  }
}

function auditView(dto: WebsiteDto): Record<string, unknown> {
  return { ...dto } as unknown as Record<string, unknown>;
}
