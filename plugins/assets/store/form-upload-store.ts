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

export async function bytesToday(q: Q, websiteId: string, since: Date): Promise<number> {
  const [{ total }] = await q('asset_form_uploads')
    .where({ website_id: websiteId })
    .andWhere('created_at', '>=', since)
    .sum<{ total: string | null }[]>({ total: 'declared_size' });
  return Number(total ?? 0);
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
