/**
 * Data-subject search at installation size: 1,000,000 objects in 50 classes (attributes with an
 * e-mail, a name and a nested JSON contact list; one in 10,000 objects holds the subject, half of them
 * nested) plus 100,000 mail log rows, then `POST /data-subject/search` through the real route (data,
 * mail, identity and data-subject plugins) timed RUNS times: p50 and max, with the plan of the object
 * scan. Target < 2 s. Seeds with generate_series straight into the tables (the HTTP write path is not
 * what is measured); the classes are made through the API. Figures on a shared machine move by tens
 * of percent. Run with `npm run bench:data-subject` (BENCH_OBJECTS, BENCH_CLASSES, BENCH_MAILS,
 * BENCH_RUNS, BENCH_TRGM=1 to add the trigram index the README describes before timing).
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { teardownTestDatabases } from '../test/helpers/database.ts';
import { startTestKernel } from '../test/helpers/kernel.ts';

const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 1_000_000);
const CLASSES = Number(process.env.BENCH_CLASSES ?? 50);
const MAILS = Number(process.env.BENCH_MAILS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SUBJECT = 'subject.person@example.test';

async function main(): Promise<void> {
  const t = await startTestKernel({
    plugins: ['identity', 'data', 'mail', 'data-subject'],
    env: { MAIL_WORKER_ENABLED: '0', DATA_SUBJECT_RATE_LIMIT_PER_MINUTE: '10000' },
  });
  try {
    const admin = await t.admin();
    const seedStart = performance.now();
    const perClass = Math.ceil(OBJECTS / CLASSES);
    for (let c = 0; c < CLASSES; c++) {
      const res = await t.call('POST', '/data-classes', admin, {
        name: `class${c}`,
        fields: [
          { name: 'email', type: 'text' },
          { name: 'name', type: 'text' },
          { name: 'profile', type: 'json' },
        ],
      });
      if (res.statusCode !== 201) throw new Error(`class: ${res.statusCode} ${res.body}`);
      const classId = res.json().id as string;
      await t.db.raw(
        `INSERT INTO data_objects (class_id, translation_group_id, key, attributes)
         SELECT ?::uuid, gen_random_uuid(), 'k' || g,
                jsonb_build_object(
                  'email', CASE WHEN g % 10000 = 0 THEN ? ELSE 'person' || g || '@example.test' END,
                  'name', 'Person ' || g,
                  'profile', jsonb_build_object('contacts', jsonb_build_array(
                    jsonb_build_object('kind', 'mail', 'value', CASE WHEN g % 10000 = 5000 THEN upper(?) ELSE 'alt' || g || '@example.test' END),
                    jsonb_build_object('kind', 'phone', 'value', '+49 30 ' || g))))
         FROM generate_series(1, ?) AS g`,
        [classId, SUBJECT, SUBJECT, perClass],
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
    if (process.env.BENCH_TRGM === '1') {
      await t.db.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');
      await t.db.raw(
        'CREATE INDEX data_objects_attributes_trgm ON data_objects USING gin ((lower(attributes::text)) gin_trgm_ops)',
      );
    }
    await t.db.raw('ANALYZE');
    const seedMs = performance.now() - seedStart;

    const times: number[] = [];
    let counts: unknown;
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      const res = await t.call('POST', '/data-subject/search', admin, { identifier: SUBJECT });
      times.push(performance.now() - started);
      if (res.statusCode !== 200) throw new Error(`search: ${res.statusCode} ${res.body}`);
      counts = res.json().counts;
    }
    times.sort((a, b) => a - b);
    const like = `%${SUBJECT}%`;
    const plan = await t.db.raw(
      `EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) SELECT o.id FROM data_objects o WHERE lower(o.attributes::text) LIKE ?
         AND jsonb_path_exists(lower(o.attributes::text)::jsonb, '$.** \\? (@ == $v)', jsonb_build_object('v', ?::text))`,
      [like, SUBJECT],
    );
    console.log(
      JSON.stringify(
        {
          objects: perClass * CLASSES,
          classes: CLASSES,
          mails: MAILS,
          trigramIndex: process.env.BENCH_TRGM === '1',
          seedSeconds: Math.round(seedMs / 100) / 10,
          counts,
          searchMs: { p50: Math.round(times[Math.floor(times.length / 2)]!), max: Math.round(times.at(-1)!) },
          machine: { cpus: os.cpus().length, load1: os.loadavg()[0] },
        },
        null,
        2,
      ),
    );
    // The head of the plan (Append over every class partition) and its totals; the partitions repeat.
    const lines = plan.rows.map((r: Record<string, string>) => r['QUERY PLAN']);
    console.log([...lines.slice(0, 4), '...', ...lines.slice(-3)].join('\n'));
  } finally {
    await t.close();
    await teardownTestDatabases();
  }
}

await main();
