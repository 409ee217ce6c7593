import type { Knex } from 'knex';

// The outbox's mails are sent by the kernel's job queue `mail.outbox` (one job per row), no longer by
// rows claimed through `claimed_by` and `next_attempt_at`. The claim's index goes. A row still pending
// now has no job yet: it is marked (`claimed_by = 'before-job-queue'`, the column's only use from now
// on) and the first process to start enqueues its job and clears the mark in one transaction.
export async function up(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists mail_outbox_due');
  await knex.raw("update mail_outbox set claimed_by = 'before-job-queue' where status in ('queued', 'retrying')");
  await knex.raw('create index mail_outbox_unqueued on mail_outbox (claimed_by) where claimed_by is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists mail_outbox_unqueued');
  await knex.raw("update mail_outbox set claimed_by = null where claimed_by = 'before-job-queue'");
  await knex.raw(
    "create index mail_outbox_due on mail_outbox (next_attempt_at) where status in ('queued', 'retrying')",
  );
}
