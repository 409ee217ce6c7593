import type { Db, Tx } from '../../../kernel/index.ts';
import { existingFieldIndexes } from './field-index-store.ts';
import { partitionOf } from './object-partitions.ts';

type Q = Db | Tx;

/**
 * Whether a class's partition holds at least `n` objects, counting no further than `n` (a bulk load
 * asks whether the class is small next to what it brings; a large class is not read whole for that).
 */
export async function partitionHoldsAtLeast(q: Q, classId: string, n: number): Promise<boolean> {
  const { rows } = await q.raw(`SELECT count(*)::int AS n FROM (SELECT 1 FROM "${partitionOf(classId)}" LIMIT ?) s`, [
    n,
  ]);
  return rows[0].n >= n;
}

/**
 * Drops the field indexes of a class's partition (its own, not the parent's partitioned indexes) in
 * the caller's transaction; statistics objects stay (they cost nothing on insert). The partition's
 * ACCESS EXCLUSIVE lock is waited for at most `lockTimeoutMs`: a partition busy with long reads is
 * left indexed (returns null) rather than stalling its readers behind the lock. Returns the names dropped.
 */
export async function dropFieldIndexes(trx: Tx, classId: string, lockTimeoutMs: number): Promise<string[] | null> {
  const names = (await existingFieldIndexes(trx, classId)).filter((i) => i.kind === 'index').map((i) => i.name);
  if (names.length === 0) return [];
  await trx.raw(`SET LOCAL lock_timeout = ${Math.max(1, Math.floor(lockTimeoutMs))}`);
  try {
    await trx.transaction(async (sp) => {
      await sp.raw(`DROP INDEX ${names.map((n) => `"${n}"`).join(', ')}`);
    });
  } catch (err) {
    // 55P03 lock_not_available: someone holds the partition; the savepoint is rolled back.
    if ((err as { code?: string }).code === '55P03') return null;
    throw err;
  } finally {
    await trx.raw('SET LOCAL lock_timeout = 0');
  }
  return names;
}

/** Fresh planner statistics for a class's partition after a bulk load (autovacuum would get there later). */
export async function analyzePartition(q: Q, classId: string): Promise<void> {
  await q.raw(`ANALYZE "${partitionOf(classId)}"`);
}
