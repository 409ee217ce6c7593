import type { Db, Tx } from '../../../kernel/index.ts';

/** Runs of this subject that started and never finished (their process died), oldest first. */
export async function openRuns(q: Db | Tx, subject: string): Promise<string[]> {
  const rows = await q('data_subject_erase_runs')
    .where({ subject })
    .whereNull('finished_at')
    .orderBy('started_at')
    .select('id');
  return rows.map((r: { id: string }) => r.id);
}

export async function insertRun(trx: Tx, run: { id: string; subject: string; started_at: Date }): Promise<void> {
  await trx('data_subject_erase_runs').insert(run);
}

/** Marks `ids` finished by the run `by` (itself, or the runs it completed). */
export async function finishRuns(trx: Tx, ids: readonly string[], by: string, at: Date): Promise<void> {
  if (ids.length)
    await trx('data_subject_erase_runs')
      .whereIn('id', ids as string[])
      .whereNull('finished_at')
      .update({ finished_at: at, finished_by: by });
}
