import path from 'node:path';
import { pino } from 'pino';
import { createKernel, type KernelOptions } from '../../kernel/kernel.ts';
import { PROJECT_ROOT } from '../../kernel/loader.ts';
import { createTestDatabase } from '../helpers/database.ts';

/** The environment test kernels start with, plus overrides. */
export const testEnv = (extra: Record<string, string> = {}) => ({
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  CMS_DATA_DIR: path.join(PROJECT_ROOT, '.test-data', 'data'),
  ...extra,
});

/** The message createKernel rejects with (on a database of its own), or fails when it starts. */
export async function startFailure(opts: Omit<KernelOptions, 'database' | 'logger'>): Promise<string> {
  const database = await createTestDatabase();
  try {
    const kernel = await createKernel({
      env: testEnv(),
      jobs: false,
      ...opts,
      database,
      logger: pino({ level: 'silent' }),
    });
    await kernel.close();
  } catch (err) {
    return (err as Error).message;
  } finally {
    await database.close();
  }
  throw new Error('the kernel started although it should not have');
}
