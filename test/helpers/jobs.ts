import { startTestKernel, type TestKernel, type TestKernelOptions } from './kernel.ts';

/** A schedule as the job engine keeps it (pg-boss's `schedule` table): its cron and time zone. */
export interface RegisteredSchedule {
  cron: string;
  timezone: string;
}

/**
 * The schedules registered in the kernel's database (`<plugin>.<name>` → cron): what every process's
 * engine fires once per tick, whichever process gets there first. A kernel registers its schedules
 * when it starts with its timers on (`jobs: true`).
 */
export async function registeredSchedules(t: TestKernel): Promise<Map<string, RegisteredSchedule>> {
  const rows: { name: string; cron: string; timezone: string }[] = await t
    .db('pgboss.schedule')
    .select('name', 'cron', 'timezone');
  return new Map(rows.map((r) => [r.name, { cron: r.cron, timezone: r.timezone }]));
}

/**
 * Starts a kernel with its timers on and returns the schedules it registered. Their cron ticks are
 * real; `t.runJob(plugin, name)` runs one now, as a tick would.
 */
export async function startWithSchedules(
  opts: Omit<TestKernelOptions, 'jobs'>,
): Promise<{ t: TestKernel; schedules: Map<string, RegisteredSchedule> }> {
  const t = await startTestKernel({ ...opts, jobs: true });
  try {
    return { t, schedules: await registeredSchedules(t) };
  } catch (err) {
    await t.close();
    throw err;
  }
}
