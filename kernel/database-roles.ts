import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import pg from 'pg';
import type { Db } from './database.ts';

/**
 * Tables the application role may read and append to but never change: the audit log and the records
 * of applied migrations. Everything else in the schema is handed to the application role, which owns
 * it (plugins change their own tables at run time, e.g. indexes for new fields).
 */
const APPEND_ONLY = ['audit_log'];
const OWNER_ONLY = ['audit_settings'];
const isMigrationTable = (name: string) => /^knex_migrations/.test(name);

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The role a connection string signs in as. */
export const roleOf = (url: string) => decodeURIComponent(new URL(url).username);

/**
 * Makes the application role what the running processes connect as, after the owner ran the
 * migrations. It owns the plugins' tables, may only SELECT and INSERT into the audit log, reads the
 * migration records, and purges old audit rows only through `audit_purge()` (SECURITY DEFINER, owned by
 * the owner, bounded by the retention the owner stored). Owning neither the audit log nor its trigger,
 * it cannot UPDATE, DELETE, TRUNCATE or disable the trigger. Idempotent: run at every migrating start.
 */
export async function prepareApplicationRole(owner: Db, appRole: string, auditRetentionDays: number): Promise<void> {
  const app = ident(appRole);
  await owner.transaction(async (trx) => {
    await trx.raw(`GRANT USAGE, CREATE ON SCHEMA public TO ${app}`);
    const tables: Array<{ tablename: string; tableowner: string }> = (
      await trx.raw(`SELECT tablename, tableowner FROM pg_tables WHERE schemaname = 'public'`)
    ).rows;
    for (const { tablename, tableowner } of tables) {
      if (APPEND_ONLY.includes(tablename) || OWNER_ONLY.includes(tablename)) continue;
      if (isMigrationTable(tablename)) {
        await trx.raw(`GRANT SELECT ON ${ident(tablename)} TO ${app}`);
        continue;
      }
      if (tableowner !== appRole) await trx.raw(`ALTER TABLE ${ident(tablename)} OWNER TO ${app}`);
    }
    // The job engine's schema (pg-boss): its queues are tables created at run time, so the role owns it.
    if ((await trx.raw(`SELECT to_regnamespace('pgboss') IS NOT NULL AS present`)).rows[0].present) {
      await trx.raw(`ALTER SCHEMA pgboss OWNER TO ${app}`);
      const jobTables: Array<{ tablename: string; tableowner: string }> = (
        await trx.raw(`SELECT tablename, tableowner FROM pg_tables WHERE schemaname = 'pgboss'`)
      ).rows;
      for (const { tablename, tableowner } of jobTables)
        if (tableowner !== appRole) await trx.raw(`ALTER TABLE pgboss.${ident(tablename)} OWNER TO ${app}`);
      await trx.raw(`ALTER TYPE pgboss.job_state OWNER TO ${app}`);
      const functions: Array<{ signature: string }> = (
        await trx.raw(
          `SELECT p.oid::regprocedure::text AS signature FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'pgboss'`,
        )
      ).rows;
      for (const { signature } of functions) await trx.raw(`ALTER FUNCTION ${signature} OWNER TO ${app}`);
    }
    for (const table of APPEND_ONLY) {
      await trx.raw(`REVOKE ALL ON ${ident(table)} FROM ${app}`);
      await trx.raw(`GRANT SELECT, INSERT ON ${ident(table)} TO ${app}`);
    }
    await trx.raw(`GRANT USAGE ON SEQUENCE audit_log_id_seq TO ${app}`);
    await trx.raw(`REVOKE ALL ON audit_settings FROM ${app}`);
    await trx.raw(`GRANT SELECT ON audit_settings TO ${app}`);
    await trx.raw(`REVOKE ALL ON FUNCTION audit_purge(timestamptz) FROM PUBLIC`);
    await trx.raw(`GRANT EXECUTE ON FUNCTION audit_purge(timestamptz) TO ${app}`);
    await storeAuditRetention(trx, auditRetentionDays);
  });
}

/** The retention `audit_purge()` enforces, written by the owner (the application cannot change it). */
export async function storeAuditRetention(db: Db, days: number): Promise<void> {
  await db.raw('UPDATE audit_settings SET retention_days = ? WHERE id = 1', [days]);
}

/**
 * The embedded default's application role: created on first use with a random password kept beside
 * the cluster's own, and given that password again at every start (the file is the truth).
 */
export async function ensureEmbeddedAppRole(
  superuserUrl: string,
  passwordFile: string,
  role = 'cms_app',
): Promise<string> {
  let password: string;
  if (existsSync(passwordFile)) password = (await readFile(passwordFile, 'utf8')).trim();
  else {
    password = randomBytes(24).toString('hex');
    await writeFile(passwordFile, password + '\n', { mode: 0o600 });
  }
  const client = new pg.Client({ connectionString: superuserUrl });
  await client.connect();
  try {
    const exists = (await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount === 1;
    const literal = client.escapeLiteral(password);
    if (exists)
      await client.query(
        `ALTER ROLE ${ident(role)} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS PASSWORD ${literal}`,
      );
    else {
      await client
        .query(
          `CREATE ROLE ${ident(role)} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS PASSWORD ${literal}`,
        )
        .catch((err) => {
          if ((err as { code?: string }).code !== '23505' && (err as { code?: string }).code !== '42710') throw err; // created concurrently
        });
    }
  } finally {
    await client.end();
  }
  return password;
}
