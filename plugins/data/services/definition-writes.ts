import { inTransaction, type Tx, type WriteOptions } from '../../../kernel/index.ts';
import type { DataServiceDeps } from './deps.ts';

/**
 * One write to class or component definitions, in a transaction of its own or in the caller's
 * (`opts.trx`). The schema cache is dropped now and again when the caller's transaction ends, so no
 * reader keeps a definition it never committed.
 */
export async function writeDefinitions<T>(
  deps: Pick<DataServiceDeps, 'kernel' | 'changes' | 'schema'>,
  fn: (trx: Tx) => Promise<T>,
  opts: WriteOptions,
): Promise<T> {
  try {
    return await inTransaction(deps.kernel.db, opts.trx, async (trx) => {
      const out = await fn(trx);
      // Other processes (the gateway) drop their definitions when this commits.
      await deps.changes.schemaChanged(trx);
      return out;
    });
  } finally {
    deps.schema.invalidate();
    opts.trx?.executionPromise.finally(() => deps.schema.invalidate()).catch(() => undefined);
  }
}
