import type { Db, Tx } from '../../../kernel/index.ts';
import { isUuid } from './asset-store.ts';

type Q = Db | Tx;

export interface FormUploadRow {
  id: string;
  website_id: string;
  field_id: string;
  filename: string;
  declared_size: number;
  max_bytes: number;
  allowed_types: string[];
  folder: string;
  visibility: 'public' | 'private';
  expires_at: Date;
  ticket_used_at: Date | null;
  staged_at: Date | null;
  size: number | null;
  sha256: string | null;
  mime_type: string | null;
  attached_at: Date | null;
  asset_id: string | null;
  created_at: Date;
}

export async function insertFormUpload(
  q: Q,
  row: Omit<
    FormUploadRow,
    'ticket_used_at' | 'staged_at' | 'size' | 'sha256' | 'mime_type' | 'attached_at' | 'asset_id'
  >,
): Promise<void> {
  await q('asset_form_uploads').insert({ ...row, allowed_types: JSON.stringify(row.allowed_types) });
}

/** Marks the ticket used; only the first caller gets the row (single use, also under concurrency). */
export async function claimTicket(q: Q, id: string, now: Date): Promise<FormUploadRow | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await q('asset_form_uploads')
    .where({ id })
    .whereNull('ticket_used_at')
    .andWhere('expires_at', '>', now)
    .update({ ticket_used_at: now })
    .returning('*');
  return row as FormUploadRow | undefined;
}

export async function markStaged(
  q: Q,
  id: string,
  values: { staged_at: Date; size: number; sha256: string; mime_type: string },
): Promise<void> {
  await q('asset_form_uploads').where({ id }).update(values);
}

/** Staged, not attached, staged after `stagedAfter` (still inside the staging time). */
const stagedUnattached = (q: Q, id: string, stagedAfter: Date) =>
  q<FormUploadRow>('asset_form_uploads')
    .where({ id })
    .whereNotNull('staged_at')
    .whereNull('attached_at')
    .andWhere('staged_at', '>', stagedAfter);

/** A staged, unattached upload still inside the staging time, locked for the attach. */
export async function findAttachable(q: Tx, id: string, stagedAfter: Date): Promise<FormUploadRow | undefined> {
  if (!isUuid(id)) return undefined;
  return stagedUnattached(q, id, stagedAfter).forUpdate().first();
}

export async function findStaged(q: Q, id: string, stagedAfter: Date): Promise<FormUploadRow | undefined> {
  if (!isUuid(id)) return undefined;
  return stagedUnattached(q, id, stagedAfter).first();
}

export async function markAttached(q: Q, id: string, assetId: string, now: Date): Promise<void> {
  await q('asset_form_uploads').where({ id }).update({ attached_at: now, asset_id: assetId });
}

/** Waits until no other intent of this website is being checked against its quota (until the transaction ends). */
export async function lockWebsiteQuota(q: Tx, websiteId: string): Promise<void> {
  await q.raw("select pg_advisory_xact_lock(hashtextextended('assets:upload-quota:' || ?, 0))", [websiteId]);
}

/**
 * A website's upload volume of the day, in one statement (one snapshot, so an upload staged meanwhile
 * is counted once): the bytes stored on `day`, plus the declared size of every ticket that may still
 * store bytes (unused and unexpired, or claimed by a PUT still running).
 */
export async function bytesUsed(q: Q, websiteId: string, day: string, now: Date): Promise<number> {
  const { rows } = await q.raw<{ rows: Array<{ used: string | null }> }>(
    `select coalesce((select bytes from asset_form_upload_usage where website_id = ? and day = ?::date), 0)
          + coalesce((select sum(declared_size) from asset_form_uploads
                       where website_id = ? and staged_at is null
                         and (ticket_used_at is not null or expires_at > ?)), 0) as used`,
    [websiteId, day, websiteId, now],
  );
  return Number(rows[0]?.used ?? 0);
}

/** Counts bytes stored for a website on a day (in the transaction that marks the upload staged). */
export async function addUsage(q: Q, websiteId: string, day: string, bytes: number): Promise<void> {
  await q.raw(
    `insert into asset_form_upload_usage (website_id, day, bytes) values (?, ?::date, ?)
     on conflict (website_id, day) do update set bytes = asset_form_upload_usage.bytes + excluded.bytes`,
    [websiteId, day, bytes],
  );
}

/** Daily counts before `day` (kept one day longer than they are read). */
export async function deleteUsageBefore(q: Q, day: string): Promise<void> {
  await q('asset_form_upload_usage').where('day', '<', day).delete();
}

/** Rows older than the staging time (their staged bytes, if any, go first, then the rows). */
export function findExpired(q: Q, before: Date, limit: number): Promise<FormUploadRow[]> {
  return q<FormUploadRow>('asset_form_uploads').where('created_at', '<', before).orderBy('created_at').limit(limit);
}

export async function deleteFormUploads(q: Q, ids: readonly string[]): Promise<void> {
  if (ids.length)
    await q('asset_form_uploads')
      .whereIn('id', ids as string[])
      .delete();
}
