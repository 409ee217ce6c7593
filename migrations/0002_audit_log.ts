import type { Knex } from 'knex';

// The audit log is append-only, enforced by the database itself: UPDATE and TRUNCATE are always
// refused, DELETE only inside a transaction that set `cms.audit_purge = 'on'` (the retention job).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('audit_log', (t) => {
    t.bigIncrements('id').primary();
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('actor_type').notNullable();
    t.text('actor_id');
    t.text('actor_label');
    t.text('ip');
    t.text('action').notNullable();
    t.text('target_type');
    t.text('target_id');
    t.text('target_label');
    t.jsonb('before');
    t.jsonb('after');
    t.text('request_id');
  });
  await knex.raw('CREATE INDEX audit_log_at ON audit_log (at DESC, id DESC)');
  await knex.raw('CREATE INDEX audit_log_action ON audit_log (action text_pattern_ops, at DESC)');
  await knex.raw('CREATE INDEX audit_log_actor_id ON audit_log (actor_id, at DESC)');
  await knex.raw('CREATE INDEX audit_log_actor_label ON audit_log (lower(actor_label), at DESC)');
  await knex.raw('CREATE INDEX audit_log_target ON audit_log (target_type, target_id, at DESC)');

  await knex.raw(`
    CREATE FUNCTION audit_log_guard() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' AND current_setting('cms.audit_purge', true) = 'on' THEN
        RETURN OLD;
      END IF;
      RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
    END $$;
  `);
  await knex.raw(
    'CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_guard()',
  );
  await knex.raw(
    'CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION audit_log_guard()',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('audit_log');
  await knex.raw('DROP FUNCTION IF EXISTS audit_log_guard()');
}
