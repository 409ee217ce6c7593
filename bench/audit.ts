/**
 * GET /audit-log over a million rows: seeds a temporary database (generate_series, realistic spread of
 * actions, actors, targets and time), then times typical queries through the real route and prints
 * p50/p99 per query with the plan of its SQL. Run with `npm run bench:audit`; cleans up after itself.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { createKernel } from '../kernel/kernel.ts';
import { discoverPlugins, PROJECT_ROOT } from '../kernel/loader.ts';
import { SESSION_COOKIE } from '../kernel/sessions.ts';
import { createTestDatabase, teardownTestDatabases } from '../test/helpers/database.ts';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const WARMUP = 3;

// Weighted like a real workspace: many setting and user changes, few purges.
const ACTIONS: Array<[string, number]> = [
  ['user.update', 12],
  ['user.create', 4],
  ['user.delete', 1],
  ['user.reset_password', 3],
  ['user.sso_roles', 2],
  ['role.update', 2],
  ['role.create', 1],
  ['website.update', 14],
  ['website.publish', 10],
  ['website.create', 2],
  ['website.theme_update', 4],
  ['website_path.create', 5],
  ['website_path.update', 6],
  ['setting.update', 10],
  ['setting.mail_update', 1],
  ['data_subject.search', 2],
  ['data_subject.export', 1],
  ['data_class.retention_update', 2],
  ['object_event_subscription.update', 3],
  ['migration_source.import_objects', 2],
  ['retention.purge', 1],
];

function actionSql(): string {
  const expanded = ACTIONS.flatMap(([a, w]) => Array<string>(w).fill(a));
  return `(ARRAY[${expanded.map((a) => `'${a}'`).join(',')}])[1 + floor(random() * ${expanded.length})::int]`;
}

async function seed(db: import('../kernel/database.ts').Db): Promise<number> {
  const started = performance.now();
  await db.raw('SELECT setseed(0.42)');
  // 300 staff accounts (a few very active), 8% system; targets from a pool of 20k ids per type;
  // a year of history, inserted in time order as a live system would.
  await db.raw(`
    INSERT INTO audit_log (at, actor_type, actor_id, actor_label, ip, action, target_type, target_id, target_label, before, after, request_id)
    SELECT at, actor_type, actor_id, actor_label, ip, action, split_part(action, '.', 1), target_id, 'Label ' || target_id,
           CASE WHEN action LIKE '%.create' THEN NULL ELSE jsonb_build_object('title', 'old ' || n) END,
           CASE WHEN action LIKE '%.delete' THEN NULL ELSE jsonb_build_object('title', 'new ' || n) END,
           md5(n::text)
      FROM (
        SELECT n,
               now() - (r_time * interval '360 days') AS at,
               CASE WHEN u IS NULL THEN 'system' ELSE 'user' END AS actor_type,
               'u-' || lpad(u::text, 4, '0') AS actor_id,
               CASE WHEN u IS NULL THEN 'system' ELSE 'User' || lpad(u::text, 4, '0') || '@Example.test' END AS actor_label,
               '10.0.' || (n % 200) || '.' || (n % 250) AS ip,
               ${actionSql()} AS action,
               't-' || floor(r_target * 20000)::int AS target_id
          FROM (
            SELECT n, random() AS r_time, random() AS r_target,
                   CASE WHEN random() < 0.08 THEN NULL ELSE floor(power(random(), 2) * 300)::int + 1 END AS u
              FROM generate_series(1, ${ROWS}) AS n
          ) g
      ) s
     ORDER BY at`);
  // Autovacuum does this for an insert-only table in production; here it is forced so plans and
  // index-only scans are what a settled database would see.
  // A VACUUM racing the end of the insert can leave pages not yet all-visible: repeat until they are.
  for (let i = 0; i < 5; i++) {
    await db.raw('VACUUM (ANALYZE) audit_log');
    const { rows } = await db.raw<{ rows: Array<{ visible: number }> }>(
      "SELECT relallvisible::float / greatest(relpages, 1) AS visible FROM pg_class WHERE relname = 'audit_log'",
    );
    if (rows[0].visible > 0.99) break;
  }
  return performance.now() - started;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** The plan lines that say how rows are found, and the execution time. */
function planSummary(lines: string[]): string {
  const nodes = lines
    .map((l) => l.trim().replace(/^->\s*/, ''))
    .filter((l) =>
      /^(Limit|Index|Bitmap|Seq Scan|Sort|Incremental Sort|Aggregate|Finalize|Partial|Gather|Parallel)/.test(l),
    )
    .map((l) => l.replace(/\s+\(cost=.*$/, '').replace(/ on audit_log(?!\w)( audit_log(_\d+)?)?/, ''));
  const time = lines.find((l) => l.startsWith('Execution Time'))?.replace('Execution Time: ', '') ?? '';
  return `${nodes.join(' > ')}  [${time}]`;
}

async function main(): Promise<void> {
  const database = await createTestDatabase();
  const db = database.db;
  const audit = (await discoverPlugins()).find((p) => p.id === 'audit')!;
  try {
    console.log(`seeding ${ROWS.toLocaleString('en')} audit rows...`);
    console.log(`  seeded in ${((await seed(db)) / 1000).toFixed(1)} s`);

    const kernel = await createKernel({
      service: 'all',
      plugins: [audit],
      database,
      env: { NODE_ENV: 'production', LOG_LEVEL: 'silent', CMS_DATA_DIR: path.join(PROJECT_ROOT, '.test-data', 'data') },
      logger: pino({ level: 'silent' }),
      jobs: false,
    });
    await db('roles').insert({ name: 'bench-auditor', permissions: ['audit:read'] });
    const { id } = await kernel
      .resolve('users')
      .create({ email: 'auditor@example.test', password: 'bench-password-1', roles: ['bench-auditor'] });
    const cookie = `${SESSION_COOKIE}=${(await kernel.resolve('sessions').create(id, {})).token}`;

    const day = (offset: number) => new Date(Date.now() - offset * 24 * 3600_000).toISOString().slice(0, 10);
    const queries: Array<[string, string]> = [
      ['no filter', ''],
      ['exact action', '?action=website.publish'],
      ['action prefix user.', '?action=user.'],
      ['rare prefix data_subject.', '?action=data_subject.'],
      ['actor e-mail', '?actor=user0150%40example.test'],
      ['actor id (busy)', '?actor=u-0001'],
      ['target', '?targetType=website&targetId=t-1234'],
      ['target id only', '?targetId=t-1234'],
      ['date range (10 days)', `?from=${day(30)}&to=${day(21)}`],
      ['prefix + date range', `?action=user.&from=${day(30)}&to=${day(21)}`],
      ['page 50 (offset 5000)', '?offset=5000'],
      ['CSV of 5000', '?format=csv&limit=5000'],
    ];

    console.log(`\n${RUNS} runs per query (after ${WARMUP} warm-up), through GET /audit-log (inject):\n`);
    console.log('query'.padEnd(28) + 'p50 ms'.padStart(9) + 'p99 ms'.padStart(9) + 'total'.padStart(10) + '  rows');
    const plans: string[] = [];
    for (const [name, query] of queries) {
      const captured: Array<{ sql: string; bindings: unknown[] }> = [];
      const capture = (q: { sql: string; bindings?: unknown[] }) =>
        captured.push({ sql: q.sql, bindings: q.bindings ?? [] });
      const times: number[] = [];
      let summary = '';
      for (let i = 0; i < WARMUP + RUNS; i++) {
        if (i === 0) db.on('query', capture);
        const t0 = performance.now();
        const res = await kernel.app.inject({ method: 'GET', url: `/audit-log${query}`, headers: { cookie } });
        const ms = performance.now() - t0;
        if (i === 0) db.removeListener('query', capture);
        if (res.statusCode !== 200) throw new Error(`${name}: ${res.statusCode} ${res.body}`);
        if (i >= WARMUP) times.push(ms);
        if (i === 0) {
          summary = query.includes('csv')
            ? `${String(res.headers['x-total-count'])}`.padStart(10) + `  ${res.body.split('\r\n').length - 2}`
            : `${res.json().total}`.padStart(10) + `  ${res.json().entries.length}`;
        }
      }
      times.sort((a, b) => a - b);
      console.log(
        name.padEnd(28) +
          percentile(times, 50).toFixed(1).padStart(9) +
          percentile(times, 99).toFixed(1).padStart(9) +
          summary,
      );
      for (const q of captured.filter((c) => /from "audit_log"/i.test(c.sql))) {
        const { rows } = await db.raw<{ rows: Array<{ 'QUERY PLAN': string }> }>(
          `EXPLAIN (ANALYZE, BUFFERS) ${q.sql.replace(/\$\d+/g, '?')}`,
          q.bindings as never,
        );
        const kind = /count\(/i.test(q.sql) ? 'count' : 'page ';
        const lines = rows.map((r) => r['QUERY PLAN']);
        plans.push(
          `${name.padEnd(28)}${kind}  ${planSummary(lines)}${lines.some((l) => l.includes('Seq Scan')) ? '  <-- SEQUENTIAL SCAN' : ''}`,
        );
      }
    }
    console.log('\nplans (EXPLAIN ANALYZE of the SQL each request ran):\n');
    for (const line of plans) console.log(line);
    await kernel.close();
  } finally {
    await database.close();
    await teardownTestDatabases();
  }
}

await main();
