import { type Tx, conflict } from '../../../kernel/index.ts';
import type { UserStore } from '../store/users.ts';

/**
 * Runs a change to users or roles and refuses it (409 LAST_ADMIN, the transaction rolls back) when
 * it would leave the installation without an active holder of `*`: deleting, deactivating or
 * demoting the last administrator, or stripping `*` from (or deleting) the last role that gives it to
 * an active user. Holders of `users:manage` alone do not count: they cannot change administrators
 * or give keys they lack, so they could never restore full administration. Such changes are
 * serialised by an advisory lock, so two administrators removing each other at the same moment
 * cannot both succeed.
 */
export async function keepingAnAdministrator<T>(store: UserStore, trx: Tx, change: () => Promise<T>): Promise<T> {
  await store.lockAdministrators(trx);
  const before = await store.countAdministrators(trx);
  const result = await change();
  // An installation that has no administrator yet (first start) is not made worse by any change.
  if (before > 0 && (await store.countAdministrators(trx)) === 0) {
    throw conflict('This change would leave no active user holding every permission (*)', 'LAST_ADMIN');
  }
  return result;
}
