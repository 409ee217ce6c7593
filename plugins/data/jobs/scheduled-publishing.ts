import type { ScheduleDefinition } from '../../../kernel/index.ts';
import type { ScheduleService } from '../services/schedules.ts';

/**
 * Registered in the data manifest: every minute, in one process of the cluster however many run (a
 * schedule runs once per tick; the due rows are also locked SKIP LOCKED, so an overlapping run never
 * carries one out twice). A publish set for 10:00:20 goes live at the 10:01 tick at the latest.
 */
export const scheduledPublishing: ScheduleDefinition<{ services: { schedules: ScheduleService } }> = {
  name: 'scheduled-publishing',
  cron: '* * * * *',
  timeoutMs: 5 * 60_000,
  run: async ({ services }, signal) => void (await services.schedules.run(signal)),
};
