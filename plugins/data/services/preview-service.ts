import { randomBytes } from 'node:crypto';
import { type Actor, type Clock, type Db, conflict, notFound } from '../../../kernel/index.ts';
import type { ObjectDto } from '../model.ts';
import type { ObjectLocator } from '../store/object-registry.ts';
import { PreviewStore, type PreviewLinkRow } from '../store/preview-store.ts';
import { type DraftService, toStaffDto } from './drafts.ts';

const DAY_MS = 24 * 3600_000;
export const DEFAULT_PREVIEW_DAYS = 7;
export const PREVIEW_PATH = '/preview/objects/';

export type PreviewLinkState = 'active' | 'revoked' | 'expired';

export interface PreviewLinkDto {
  token: string;
  url: string;
  objectId: string;
  state: PreviewLinkState;
  revoked: boolean;
  revokedAt: string | null;
  expiresAt: string | null;
  viewCount: number;
  lastViewedAt: string | null;
  createdBy: string | null;
  createdAt: string;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** Revoked wins over expired: it is the state an editor chose. */
export function linkState(row: PreviewLinkRow, now: Date): PreviewLinkState {
  if (row.revoked_at) return 'revoked';
  if (row.expires_at && new Date(row.expires_at).getTime() <= now.getTime()) return 'expired';
  return 'active';
}

/**
 * One answer for every token that does not show an object (unknown, revoked, expired, removed), so
 * a caller cannot tell which of those a token is.
 */
export const previewNotFound = () => notFound('Preview link not found or no longer valid', 'PREVIEW_NOT_FOUND');

/**
 * Preview links: share tokens that show one object, published or not, without a session.
 * States per the spec: active -> revoked (DELETE) or expired (time); revoked or expired -> removed
 * (DELETE ?permanent=true). Removing an active link is refused (409): revoke it first.
 */
export class PreviewService {
  private readonly store: PreviewStore;

  constructor(
    private readonly deps: { db: Db; clock: Clock; locator?: ObjectLocator },
    private readonly drafts?: Pick<DraftService, 'draftsOf'>,
  ) {
    this.store = new PreviewStore({ db: deps.db, locator: deps.locator });
  }

  async create(
    actor: Actor,
    objectId: string,
    expiresInDays = DEFAULT_PREVIEW_DAYS,
  ): Promise<{ token: string; url: string; expiresAt: string }> {
    if (!(await this.store.objectExists(objectId))) throw notFound('Data object not found');
    const now = this.deps.clock.now();
    // 256 bits from the CSPRNG, URL-safe without padding (43 characters).
    const token = randomBytes(32).toString('base64url');
    const row = await this.store.insert({
      token,
      objectId,
      expiresAt: new Date(now.getTime() + expiresInDays * DAY_MS),
      createdBy: actor.type === 'user' ? actor.id : null,
      now,
    });
    return { token, url: PREVIEW_PATH + token, expiresAt: iso(row.expires_at)! };
  }

  async list(objectId: string): Promise<PreviewLinkDto[]> {
    if (!(await this.store.objectExists(objectId))) throw notFound('Data object not found');
    const now = this.deps.clock.now();
    return (await this.store.listForObject(objectId)).map((row) => this.toDto(row, now));
  }

  /** DELETE /data-objects/preview-links/:token, with or without `permanent`. */
  async delete(token: string, permanent: boolean): Promise<void> {
    const now = this.deps.clock.now();
    if (!permanent) {
      if (await this.store.revoke(token, now)) return;
      if (!(await this.store.find(token))) throw notFound('Preview link not found');
      return; // already revoked
    }
    if (await this.store.removeInactive(token, now)) return;
    if (!(await this.store.find(token))) throw notFound('Preview link not found');
    throw conflict('An active preview link cannot be removed; revoke it first', 'PREVIEW_LINK_ACTIVE');
  }

  /** GET /preview/objects/:token: the object, counted as one view. */
  async view(token: string): Promise<ObjectDto> {
    if (token.length === 0 || token.length > 128) throw previewNotFound();
    const row = await this.store.view(token, this.deps.clock.now());
    if (!row) throw previewNotFound();
    const { class_name, ...object } = row;
    // A preview shows what the next publish would make live: the working copy when there is one.
    const draft = (await this.drafts?.draftsOf(this.deps.db, [object]))?.get(object.id) ?? null;
    return toStaffDto(object, class_name, draft);
  }

  private toDto(row: PreviewLinkRow, now: Date): PreviewLinkDto {
    return {
      token: row.token,
      url: PREVIEW_PATH + row.token,
      objectId: row.object_id,
      state: linkState(row, now),
      revoked: row.revoked_at !== null,
      revokedAt: iso(row.revoked_at),
      expiresAt: iso(row.expires_at),
      viewCount: row.view_count,
      lastViewedAt: iso(row.last_viewed_at),
      createdBy: row.created_by,
      createdAt: iso(row.created_at)!,
    };
  }
}
