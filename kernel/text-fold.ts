import type { Db, Tx } from './database.ts';

/**
 * SQL that lower-cases a text expression by Unicode rules whatever the database's locale. A database
 * created with the `C` locale (the embedded one, and many servers) folds only ASCII in `lower()`, so
 * `ÄNNA` and `änna` would differ; PostgreSQL 17's builtin collation `pg_c_utf8` folds every letter the
 * same way on every machine. On an older server, or a database that is not UTF-8, the answer is plain
 * `lower()` (the database's own rules). Asked once per caller: an expression index and the queries it
 * serves must use the same text, so both are built from this answer.
 */
export async function unicodeLowerSql(q: Db | Tx): Promise<(expression: string) => string> {
  const { rows } = await q.raw(
    `SELECT getdatabaseencoding() = 'UTF8' AND EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'pg_c_utf8') AS builtin`,
  );
  return rows[0]?.builtin
    ? (expression) => `lower((${expression}) COLLATE "pg_c_utf8")`
    : (expression) => `lower(${expression})`;
}
