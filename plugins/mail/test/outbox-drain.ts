import { secondHandle } from '../../../test/helpers/events-kernel.ts';
import { startTestKernel, type TestKernel, type TestKernelOptions } from '../../../test/helpers/kernel.ts';
import { OUTBOX_QUEUE } from '../services/outbox.ts';

/**
 * Sends what is due in the outbox of `t`, whose own process does not work the `mail.outbox` queue
 * (MAIL_WORKER_ENABLED=0): a second process on its database and clock works the queue until nothing
 * due is left, then stops.
 */
export async function drainOutbox(
  t: TestKernel,
  opts: Pick<TestKernelOptions, 'plugins' | 'extraPlugins'> & { env?: Record<string, string> },
): Promise<void> {
  const sender = await startTestKernel({
    ...opts,
    database: secondHandle(t.db),
    clock: t.clock,
    env: { ...opts.env, MAIL_WORKER_ENABLED: '1' },
  });
  try {
    await sender.kernel.resolve('jobs').settled(OUTBOX_QUEUE);
  } finally {
    await sender.close();
  }
}
