import {
  type AuditContext,
  type AuditWriter,
  badRequest,
  type Db,
  diffForAudit,
  type Logger,
  type SecretBox,
} from '../../../kernel/index.ts';
import type { FigmaSettingsStore } from '../store/settings-store.ts';

export const KEY_NAME = 'INTEGRATION_SECRETS_ENCRYPTION_KEY';
/** A token kept in clear (production without the key, as the spec allows with a logged warning). */
const PLAIN = 'plain:';

/** What `GET /figma/settings` answers: never the token itself. */
export interface FigmaSettingsView {
  tokenSet: boolean;
  /** The token's last four characters, or null. */
  tokenHint: string | null;
  /** `FIGMA_API_URL`: configuration, shown, never changed here. */
  apiUrl: string;
}

const AUDIT = { allow: ['token'], secrets: ['token'] } as const;

/** The workspace's Figma access token: sealed at rest, shown masked, changes audited. */
export class FigmaSettingsService {
  constructor(
    private readonly deps: {
      db: Db;
      audit: AuditWriter;
      secretBox: SecretBox;
      store: FigmaSettingsStore;
      log: Logger;
      apiUrl: string;
    },
  ) {}

  async view(): Promise<FigmaSettingsView> {
    const row = await this.deps.store.get();
    return {
      tokenSet: Boolean(row?.token_stored),
      tokenHint: row?.token_stored ? row.token_hint : null,
      apiUrl: this.deps.apiUrl,
    };
  }

  /** The token in clear for a call to Figma (never leaves the process), or undefined. */
  async token(): Promise<string | undefined> {
    const stored = (await this.deps.store.get())?.token_stored;
    if (!stored) return undefined;
    return stored.startsWith(PLAIN) ? stored.slice(PLAIN.length) : this.deps.secretBox.decrypt(stored);
  }

  /**
   * `token`: a non-blank string replaces the stored one, blank (or absent) keeps it, null removes it.
   * A token equal to the kept one is no change (no audit row).
   */
  async update(ctx: AuditContext, token: string | null | undefined): Promise<FigmaSettingsView> {
    if (token !== null && (token === undefined || token.trim() === '')) return this.view();
    const next = token === null ? null : token.trim();
    // It goes into a request header: printable ASCII only.
    if (next !== null && !/^[\x21-\x7e]+$/.test(next))
      throw badRequest('token must be printable ASCII without spaces', 'token', 'INVALID_TOKEN');
    await this.deps.db.transaction(async (trx) => {
      const before = await this.deps.store.get(trx, true);
      const kept = before?.token_stored ? await this.token() : undefined;
      if ((kept ?? null) === next) return;
      await this.deps.store.save(trx, {
        token_stored: next === null ? null : this.seal(next),
        token_hint: next === null ? null : next.slice(-4),
      });
      const diff = diffForAudit({ token: kept ?? null }, { token: next }, AUDIT);
      await this.deps.audit.record(
        ctx,
        { action: 'setting.figma_update', targetType: 'setting', targetId: 'figma', targetLabel: 'Figma', ...diff },
        trx,
      );
    });
    return this.view();
  }

  private seal(token: string): string {
    if (this.deps.secretBox.hasKey(KEY_NAME)) return this.deps.secretBox.encrypt(KEY_NAME, token);
    this.deps.log.warn(`${KEY_NAME} is not set: the Figma access token is stored in clear text`);
    return PLAIN + token;
  }
}
