import { Scheduler, type JobDefinition } from '../../kernel/scheduler.ts';
import { startTestKernel, type TestKernel, type TestKernelOptions } from './kernel.ts';

/**
 * Starts a kernel with its background jobs on and returns the jobs it handed to its scheduler, as
 * scheduled (`<plugin>.<job>`, timings, and the run function the timers would call). The timers are
 * real but minutes away; `close()` clears them.
 */
export async function startWithScheduledJobs(
  opts: Omit<TestKernelOptions, 'jobs'>,
): Promise<{ t: TestKernel; jobs: Map<string, JobDefinition> }> {
  const jobs = new Map<string, JobDefinition>();
  const schedule = Scheduler.prototype.schedule;
  Scheduler.prototype.schedule = function (this: Scheduler, job: JobDefinition) {
    jobs.set(job.name, job);
    return schedule.call(this, job);
  };
  try {
    return { t: await startTestKernel({ ...opts, jobs: true }), jobs };
  } finally {
    Scheduler.prototype.schedule = schedule;
  }
}
