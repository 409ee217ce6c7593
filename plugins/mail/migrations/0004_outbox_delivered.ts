import type { Knex } from 'knex';

// Whether a sent mail reached a mail server (SMTP or an HTTP provider) or was only written to the
// service log (no mail settings and no SMTP_URL): a stored field, where the log screen read the start
// of the provider's answer before. A nullable column is added without a table rewrite; the sent rows
// of before are filled from that answer, the only record of it.
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table mail_outbox add column delivered boolean');
  await knex.raw(
    "update mail_outbox set delivered = (coalesce(provider_answer, '') not like 'not delivered: only written to the service log%') where status = 'sent'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table mail_outbox drop column delivered');
}
