import pg from 'pg';
import type { ChildServer } from '../lib/children.ts';
import type { PreparedRequest } from '../lib/load.ts';
import type { CapturedStatement } from '../lib/sql-capture.ts';

/**
 * Planning time of each public query shape, from PostgreSQL itself.
 *
 * The product's SQL is internal (and changes with the storage), so it is captured rather than copied:
 * the server child wraps `pg.Client#query` for the duration of one request of each shape
 * (bench/lib/sql-capture.ts) and reports every statement with its parameters. Each SELECT is then run
 * as `EXPLAIN (SUMMARY)` with the same parameters on the same database, once to warm the catalog
 * caches and five times measured; the median "Planning Time" is reported, summed over the request's
 * statements. (pg_stat_statements would need `shared_preload_libraries`, which the embedded test
 * cluster does not set, and a server log of every statement is too heavy under load.)
 * Note: a statement the server prepares by name and re-uses pays this only when PostgreSQL re-plans it.
 */
export interface Planning {
  /** Statements one request ran (all of them, reads or not). */
  statements: number;
  /** Whether any statement went out as a named prepared statement. */
  prepared: boolean;
  /** Median planning time summed over the request's SELECT statements; null when none could be explained. */
  planningMs: number | null;
  error?: string;
}

const isRead = (text: string) => /^\s*\(?\s*(select|with)\b/i.test(text);

export async function capturePlanning(
  child: ChildServer<unknown>,
  baseUrl: string,
  dbUrl: string,
  request: PreparedRequest,
): Promise<Planning> {
  await child.ask('sql-capture:start');
  let statements: CapturedStatement[];
  try {
    const res = await fetch(baseUrl + request.path, {
      method: request.method,
      headers: { ...request.headers, ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: request.body,
    });
    await res.arrayBuffer();
  } finally {
    statements = (await child.ask<{ statements: CapturedStatement[] }>('sql-capture:stop')).statements;
  }
  const reads = statements.filter((s) => isRead(s.text));
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    let total = 0;
    for (const s of reads) total += await medianPlanningMs(client, s);
    return {
      statements: statements.length,
      prepared: statements.some((s) => s.name),
      planningMs: reads.length ? total : null,
    };
  } catch (err) {
    return {
      statements: statements.length,
      prepared: statements.some((s) => s.name),
      planningMs: null,
      error: (err as Error).message,
    };
  } finally {
    await client.end();
  }
}

async function medianPlanningMs(client: pg.Client, s: CapturedStatement): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 6; i++) {
    const { rows } = await client.query<{ 'QUERY PLAN': string }>({
      text: `EXPLAIN (SUMMARY) ${s.text}`,
      values: s.values,
    });
    const line = rows.map((r) => r['QUERY PLAN']).find((l) => l.startsWith('Planning Time'));
    if (!line) throw new Error('EXPLAIN (SUMMARY) printed no planning time');
    if (i > 0) times.push(Number(/([\d.]+) ms/.exec(line)![1]));
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}
