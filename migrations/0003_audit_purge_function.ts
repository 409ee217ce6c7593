import type { Knex } from 'knex';

// Retention of the audit log through one SECURITY DEFINER function owned by the migrating (owner) role:
// the application role has no DELETE on audit_log, so this function is its only way to remove rows,
// and it removes only rows older than the retention the owner stored in audit_settings.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE audit_settings (
      id integer PRIMARY KEY CHECK (id = 1),
      retention_days integer NOT NULL DEFAULT 365 CHECK (retention_days >= 0)
    )`);
  await knex.raw('INSERT INTO audit_settings (id, retention_days) VALUES (1, 365)');
  await knex.raw(`
    CREATE FUNCTION audit_purge(cutoff timestamptz) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
    DECLARE
      days integer;
      deleted bigint;
    BEGIN
      SELECT retention_days INTO days FROM public.audit_settings WHERE id = 1;
      IF days IS NULL OR days = 0 THEN
        RETURN 0;
      END IF;
      -- The caller's cutoff (its clock) may only be older than what the retention allows, never newer.
      cutoff := least(cutoff, now() - make_interval(days => days));
      PERFORM set_config('cms.audit_purge', 'on', true);
      DELETE FROM public.audit_log WHERE at < cutoff;
      GET DIAGNOSTICS deleted = ROW_COUNT;
      PERFORM set_config('cms.audit_purge', 'off', true);
      RETURN deleted;
    END $$`);
  await knex.raw('REVOKE ALL ON FUNCTION audit_purge(timestamptz) FROM PUBLIC');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION IF EXISTS audit_purge(timestamptz)');
  await knex.raw('DROP TABLE IF EXISTS audit_settings');
}
