/**
 * Data-subject search at installation size: 1,000,000 objects in 50 classes (attributes with an
 * e-mail, a name, a nested JSON contact list and a photo; one in 10,000 objects holds the subject, half
 * of them nested; 1 in 10 of the subject's objects has a photo of its own, the others a placeholder
 * that 1 in 100 of all objects share, so the search tells the person's files from shared ones) plus
 * 100,000 mail log rows, then `POST /data-subject/search` through the real route (data,
 * mail, identity and data-subject plugins) timed RUNS times: p50 and max, with the plan of the object
 * scan. Target < 2 s. Before and after on the same data: the objects are seeded without the trigram
 * index of migration 0004 (a database from before it), searched, then the migration is run on the
 * filled table (timed: what upgrading a large installation costs) and the search is timed again. A
 * bulk insert of BENCH_INSERT objects is timed without and with the index (the write cost it adds).
 * Seeds with generate_series straight into the tables (the HTTP write path is not what is measured);
 * the classes are made through the API. Figures on a shared machine move by tens of percent. Run with
 * `npm run bench:data-subject` (BENCH_OBJECTS, BENCH_CLASSES, BENCH_MAILS, BENCH_RUNS, BENCH_INSERT,
 * BENCH_RUNS_BEFORE: runs without the index, 3 by default, since each reads every object). With the
 * index, a dry-run erase is timed too: it also asks, for each file attached to the person's objects,
 * whether another object uses it (a shared placeholder is not erased).
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Db } from '../kernel/index.ts';
import { migrateAll } from '../kernel/migrations.ts';
import { allPluginMigrations, teardownTestDatabases } from '../test/helpers/database.ts';
import { startTestKernel, type TestKernel, type TestUser } from '../test/helpers/kernel.ts';

const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 1_000_000);
const CLASSES = Number(process.env.BENCH_CLASSES ?? 50);
const MAILS = Number(process.env.BENCH_MAILS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const RUNS_BEFORE = Number(process.env.BENCH_RUNS_BEFORE ?? 3);
const INSERT = Number(process.env.BENCH_INSERT ?? 20_000);
const SUBJECT = 'subject.person@example.test';
/** The data plugin's trigram index (its migration 0004) and that migration's recorded name. */
const TRGM_INDEX = 'data_objects_attributes_trgm';
const TRGM_MIGRATION = '0004_attributes_trigram_index';

async function main(): Promise<void> {
  const t = await startTestKernel({
    plugins: ['identity', 'data', 'mail', 'data-subject'],
    env: { MAIL_WORKER_ENABLED: '0', DATA_SUBJECT_RATE_LIMIT_PER_MINUTE: '10000' },
  });
  try {
    const admin = await t.admin();
    // A database from before migration 0004: no trigram index while seeding (classes made below get
    // none on ATTACH either).
    await t.db.raw(`DROP INDEX ${TRGM_INDEX}`);
    await t.db('knex_migrations_data').where({ name: TRGM_MIGRATION }).delete();
    const seedStart = performance.now();
    const perClass = Math.ceil(OBJECTS / CLASSES);
    for (let c = 0; c < CLASSES; c++) {
      const res = await t.call('POST', '/data-classes', admin, {
        name: `class${c}`,
        fields: [
          { name: 'email', type: 'text' },
          { name: 'name', type: 'text' },
          { name: 'profile', type: 'json' },
          { name: 'photo', type: 'asset' },
        ],
      });
      if (res.statusCode !== 201) throw new Error(`class: ${res.statusCode} ${res.body}`);
      const classId = res.json().id as string;
      await t.db.raw(
        `INSERT INTO data_objects (class_id, translation_group_id, key, attributes)
         SELECT ?::uuid, gen_random_uuid(), 'k' || g,
                jsonb_build_object(
                  'email', CASE WHEN (? + g) % 10000 = 0 THEN ? ELSE 'person' || g || '@example.test' END,
                  'name', 'Person ' || g,
                  'photo', CASE WHEN (? + g) % 100000 = 0 THEN 'people/subject-' || (? + g) || '.jpg'
                                WHEN (? + g) % 100 = 0 THEN 'shared/placeholder.png'
                                ELSE 'people/p' || (? + g) || '.jpg' END,
                  'profile', jsonb_build_object('contacts', jsonb_build_array(
                    jsonb_build_object('kind', 'mail', 'value', CASE WHEN (? + g) % 10000 = 5000 THEN upper(?) ELSE 'alt' || g || '@example.test' END),
                    jsonb_build_object('kind', 'phone', 'value', '+49 30 ' || g))))
         FROM generate_series(1, ?) AS g`,
        [classId, c * perClass, SUBJECT, ...Array(4).fill(c * perClass), c * perClass, SUBJECT, perClass],
      );
    }
    await t.db.raw(
      `INSERT INTO mail_outbox (id, kind, to_addresses, recipients, from_address, subject, text, status, next_attempt_at, message_id, created_at)
       SELECT gen_random_uuid(), 'bench', ARRAY[a], ARRAY[a], 'shop@example.test', 'Order ' || g, 'Thanks for order ' || g,
              'sent', now(), 'm' || g, now()
       FROM (SELECT g, CASE WHEN g % 1000 = 0 THEN ? ELSE 'person' || g || '@example.test' END AS a
             FROM generate_series(1, ?) AS g) s`,
      [SUBJECT, MAILS],
    );
    await t.db.raw('ANALYZE');
    const seedMs = performance.now() - seedStart;
    const firstClass = (await t.db('data_classes').where({ name: 'class0' }).first()).id as string;

    const before = await measure(t, admin, firstClass, RUNS_BEFORE);
    const buildStart = performance.now();
    // The migration as the kernel runs it (the only one pending).
    await migrateAll(t.db, await allPluginMigrations());
    const buildMs = performance.now() - buildStart;
    await t.db.raw('ANALYZE data_objects');
    const after = await measure(t, admin, firstClass, RUNS);
    const eraseStart = performance.now();
    const dryRun = await t.call('POST', '/data-subject/erase', admin, { identifier: SUBJECT });
    const dryRunEraseMs = Math.round(performance.now() - eraseStart);
    if (dryRun.statusCode !== 200) throw new Error(`erase: ${dryRun.statusCode} ${dryRun.body}`);
    const size = (
      await t.db.raw(
        `SELECT pg_size_pretty(sum(pg_relation_size(h.inhrelid))) AS index, pg_size_pretty(sum(pg_relation_size(p.inhrelid))) AS heap
           FROM pg_inherits h, pg_inherits p
          WHERE h.inhparent = to_regclass(?) AND p.inhparent = 'data_objects'::regclass
            AND p.inhrelid = (SELECT indrelid FROM pg_index WHERE indexrelid = h.inhrelid)`,
        [TRGM_INDEX],
      )
    ).rows[0];
    console.log(
      JSON.stringify(
        {
          objects: perClass * CLASSES,
          classes: CLASSES,
          mails: MAILS,
          seedSeconds: Math.round(seedMs / 100) / 10,
          counts: after.counts,
          sameCounts: JSON.stringify(before.counts) === JSON.stringify(after.counts),
          search: { withoutIndexMs: before.searchMs, withIndexMs: after.searchMs },
          dryRunErase: {
            ms: dryRunEraseMs,
            erased: dryRun.json().erased,
            sharedFiles: dryRun.json().sharedFiles.length,
          },
          objectScanMs: { withoutIndex: before.scanMs, withIndex: after.scanMs },
          partitionScans: { withoutIndex: scansIn(before.plan), withIndex: scansIn(after.plan) },
          migration0004Seconds: Math.round(buildMs / 100) / 10,
          indexSize: size,
          [`insert${INSERT}ObjectsMs`]: { withoutIndex: before.insertMs, withIndex: after.insertMs },
          machine: { cpus: os.cpus().length, load1: os.loadavg()[0] },
        },
        null,
        2,
      ),
    );
    for (const [name, plan] of [
      ['without index', before.plan],
      ['with index', after.plan],
    ] as const) {
      // The head of the plan (Append over every class partition) and its totals; the partitions repeat.
      console.log(`-- plan of the object scan, ${name}`);
      console.log([...plan.slice(0, 6), '...', ...plan.slice(-3)].join('\n'));
    }
  } finally {
    await t.close();
    await teardownTestDatabases();
  }
}

/** How the plan reads the class partitions: sequential scans and (trigram) bitmap index scans. */
function scansIn(plan: string[]): { sequential: number; bitmapIndex: number } {
  const count = (re: RegExp) => plan.filter((l) => re.test(l)).length;
  return {
    sequential: count(/Seq Scan on data_objects_c/),
    bitmapIndex: count(/Bitmap Index Scan on data_objects_c/),
  };
}

interface PgConnection {
  query(sql: string, values?: unknown[]): Promise<{ rows: Array<Record<string, string>> }>;
}

/** Search through the route (p50, max), the finder's own query under EXPLAIN ANALYZE, a bulk insert. */
async function measure(t: TestKernel, admin: TestUser, classId: string, runs: number) {
  const times: number[] = [];
  let counts: unknown;
  // The finder's object query, caught as the route sends it (the plan below is of that very query).
  let finder: { sql: string; bindings: unknown[] } | undefined;
  const listen = (q: { sql: string; bindings: unknown[] }) => {
    if (q.sql.includes('from "data_objects" as "o"') && q.sql.includes('jsonb_path_exists')) finder ??= q;
  };
  t.db.on('query', listen);
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const res = await t.call('POST', '/data-subject/search', admin, { identifier: SUBJECT });
    times.push(performance.now() - started);
    if (res.statusCode !== 200) throw new Error(`search: ${res.statusCode} ${res.body}`);
    counts = res.json().counts;
  }
  times.sort((a, b) => a - b);
  t.db.off('query', listen);
  if (!finder) throw new Error('the search did not run the object finder');
  const plan = await explain(t.db, finder);
  const execution = plan.find((l) => l.startsWith('Execution Time'));
  const insertStart = performance.now();
  await t.db.raw(
    `INSERT INTO data_objects (class_id, translation_group_id, key, attributes)
     SELECT ?::uuid, gen_random_uuid(), 'extra' || gen_random_uuid(),
            jsonb_build_object('email', 'extra' || g || '@example.test', 'name', 'Extra ' || g)
       FROM generate_series(1, ?) AS g`,
    [classId, INSERT],
  );
  const insertMs = Math.round(performance.now() - insertStart);
  return {
    counts,
    searchMs: { p50: Math.round(times[Math.floor(times.length / 2)]!), max: Math.round(times.at(-1)!) },
    scanMs: execution ? Math.round(Number(execution.replace(/[^0-9.]/g, ''))) : null,
    insertMs,
    plan,
  };
}

/** `?` placeholders as `$1, $2, ...`, leaving a `?` inside a quoted literal (the jsonpath's) alone. */
function numbered(sql: string): string {
  let n = 0;
  let quoted = false;
  let out = '';
  for (const c of sql) {
    if (c === "'") quoted = !quoted;
    out += c === '?' && !quoted ? `$${++n}` : c;
  }
  return out;
}

/** EXPLAIN ANALYZE of the data-subject finder's object query, as the search route ran it. */
async function explain(db: Db, query: { sql: string; bindings: unknown[] }): Promise<string[]> {
  const client = db.client as {
    acquireConnection(): Promise<PgConnection>;
    releaseConnection(c: PgConnection): Promise<void>;
  };
  // Native placeholders on a connection of its own: the jsonpath's `?` is not a binding there.
  const conn = await client.acquireConnection();
  try {
    const { rows } = await conn.query(`EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) ${numbered(query.sql)}`, query.bindings);
    return rows.map((r) => r['QUERY PLAN']!);
  } finally {
    await client.releaseConnection(conn);
  }
}

await main();
