import type { DatabaseHandle } from '../../kernel/database.ts';
import { teardownTestDatabases } from '../../test/helpers/database.ts';
import type { ChildServer } from './children.ts';
import { stopWrk } from './wrk.ts';

/**
 * What one benchmark run started: its child servers and databases. `cleanup()` stops the load tool and
 * the children (last started first), closes the databases and drops them, once, whether the run ends,
 * fails or is interrupted; SIGINT and SIGTERM clean up and exit with 130 (`onSignal` runs first).
 */
export function benchRun(onSignal?: (signal: NodeJS.Signals) => void) {
  const children: Array<ChildServer<unknown>> = [];
  const databases: DatabaseHandle[] = [];
  let cleaned: Promise<void> | undefined;
  const cleanup = () =>
    (cleaned ??= (async () => {
      stopWrk();
      for (const child of children.reverse()) await child.stop();
      for (const db of databases) await db.close();
      await teardownTestDatabases();
    })());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      onSignal?.(signal);
      void cleanup().finally(() => process.exit(130));
    });
  }
  return { children, databases, cleanup };
}
