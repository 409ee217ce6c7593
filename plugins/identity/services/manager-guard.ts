import { type Tx, conflict } from '../../../kernel/index.ts';
import type { UserStore } from '../store/users.ts';

/**
 * Runs a change to users or roles and refuses it (409 LAST_ADMIN, the transaction rolls back) when
 * it would leave the installation without an active user who can manage users: deleting,
 * deactivating or demoting the last administrator, or stripping `users:manage`/`*` from the last
 * role that carries it. Such changes are serialised by an advisory lock, so two administrators
 * removing each other at the same moment cannot both succeed.
 */
export async function keepingAManager<T>(store: UserStore, trx: Tx, change: () => Promise<T>): Promise<T> {
  await store.lockManagers(trx);
  const before = await store.countManagers(trx);
  const result = await change();
  // An installation that has no manager yet (first start) is not made worse by any change.
  if (before > 0 && (await store.countManagers(trx)) === 0) {
    throw conflict('This change would leave no active user who can manage users and roles', 'LAST_ADMIN');
  }
  return result;
}
