import type { Tx } from '../../../kernel/index.ts';

/** The channel on which a process tells the others that library files changed (payload: their folders). */
export const DOCS_ASSETS_CHANGED = 'docs_assets_changed';

/** Sends the notice with the write: other processes hear it once the write commits. */
export async function noticeAssetChange(trx: Tx, folders: string): Promise<void> {
  await trx.raw('SELECT pg_notify(?, ?)', [DOCS_ASSETS_CHANGED, folders]);
}
