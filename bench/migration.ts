/**
 * Migration benchmark (`npm run bench:migration`): BENCH_MIGRATION_OBJECTS (default 100,000) Pimcore
 * products in two languages (en, de), each with a category relation, in a real MariaDB (Debian's
 * `mariadb-server`, test/helpers/mariadb.ts) are imported by `POST /migration-sources/:id/import-objects`
 * into a product server on a fresh database (the classes first, through `import-classes`). Reported:
 * wall time, time per 10,000 objects, the share spent in the data plugin's write step
 * (`dataObjects.importObjects`, timed in the server) and the server's resident memory growth.
 *
 * Baseline, in the same run: a bare importer (mysql2 + pg, no product code) that reads the same rows
 * with the same keyset pages and writes each batch with one multi-row INSERT into a plain table of
 * the same shape (one row per language, attributes as jsonb).
 *
 * Targets (issue 32): the whole import under 60 s, resident memory growth under 256 MB.
 * Settings: BENCH_MIGRATION_OBJECTS (100000), MIGRATION_IMPORT_BATCH_OBJECTS (250, passed to the server).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { request } from 'undici';
import { createTestDatabase, teardownTestDatabases } from '../test/helpers/database.ts';
import { PIMCORE_FIXTURES, type RunningMariaDb, startMariaDb } from '../test/helpers/mariadb.ts';
import { startChild, type ChildServer } from './lib/children.ts';
import { parentPid, processTreeCpuMs } from './lib/process-cpu.ts';

const OBJECTS = Number(process.env.BENCH_MIGRATION_OBJECTS ?? 100_000);
const BATCH = Number(process.env.MIGRATION_IMPORT_BATCH_OBJECTS ?? 250);
const TARGET_S = 60;
const TARGET_MB = 256;
type Server = ChildServer<{ port: number; cookie: string }>;

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
const per10k = (ms: number) => `${((ms / OBJECTS) * 10).toFixed(2)} s`;

async function call(s: Server, method: 'GET' | 'POST', url: string, body?: unknown) {
  const res = await request(`http://127.0.0.1:${s.info.port}${url}`, {
    method,
    headers: { cookie: s.info.cookie, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

/** The source: the fixture schema and OBJECTS products (Pimcore ids from 100001) in en and de. */
async function seedSource(db: RunningMariaDb): Promise<void> {
  await db.loadPimcoreFixture();
  const seq = `seq_1_to_${OBJECTS}`;
  await db.sql(`USE ${db.database};
    INSERT INTO objects (id, parentId, type, \`key\`, path, \`index\`, published, creationDate, modificationDate, classId, className)
      SELECT 100000 + seq, 2, 'object', CONCAT('p-', seq), '/shop/', seq, 1, 1718000000, 1718000000, 'PROD', 'Product' FROM ${seq};
    INSERT INTO object_store_PROD (oo_id, sku, price, active, releaseDate, color, tags, category__id, category__type)
      SELECT 100000 + seq, CONCAT('SKU-', seq), seq / 10, seq % 2, 1717200000, IF(seq % 2, 'red', 'blue'), ',new,sale,', 3, 'object' FROM ${seq};
    INSERT INTO object_localized_data_PROD (ooo_id, language, name, description)
      SELECT 100000 + seq, 'en', CONCAT('Product ', seq), CONCAT('<p>The <b>product</b> number ', seq, ', described at some length so the row is not tiny.</p>') FROM ${seq};
    INSERT INTO object_localized_data_PROD (ooo_id, language, name, description)
      SELECT 100000 + seq, 'de', CONCAT('Produkt ', seq), CONCAT('<p>Das <b>Produkt</b> Nummer ', seq, ', ausführlich genug beschrieben, damit die Zeile nicht winzig ist.</p>') FROM ${seq};
    INSERT INTO object_relations_PROD (src_id, dest_id, type, fieldname, \`index\`, ownertype, ownername, position)
      SELECT 100000 + seq, 3, 'object', 'category', 1, 'object', '', '0' FROM ${seq};`);
}

/** The bare importer: same reads, one multi-row INSERT per batch into a plain table. */
async function bareImport(db: RunningMariaDb, url: string, finished: () => void): Promise<number> {
  const my = await mysql.createConnection({
    host: db.host,
    port: db.port,
    user: db.user,
    password: db.password,
    database: db.database,
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  await client.query(`CREATE TABLE bare_objects (id uuid PRIMARY KEY, group_id uuid NOT NULL, locale text NOT NULL,
    key text, path text NOT NULL, published boolean NOT NULL, attributes jsonb NOT NULL, UNIQUE (group_id, locale))`);
  const started = performance.now();
  let last = 0;
  for (;;) {
    const [rows] = await my.query<mysql.RowDataPacket[]>(
      `SELECT o.id, o.\`key\`, o.path, o.published, s.* FROM objects o JOIN object_store_PROD s ON s.oo_id = o.id
        WHERE o.classId = 'PROD' AND o.id > ? ORDER BY o.id LIMIT ?`,
      [last, BATCH],
    );
    if (rows.length === 0) break;
    const ids = rows.map((r) => r.id);
    const [loc] = await my.query<mysql.RowDataPacket[]>(
      'SELECT * FROM object_localized_data_PROD WHERE ooo_id IN (?)',
      [ids],
    );
    const [rel] = await my.query<mysql.RowDataPacket[]>(
      'SELECT src_id, dest_id FROM object_relations_PROD WHERE src_id IN (?)',
      [ids],
    );
    const values: unknown[] = [];
    const tuples: string[] = [];
    for (const r of rows) {
      const group = randomUUID();
      for (const l of loc.filter((x) => x.ooo_id === r.id)) {
        const attributes = {
          name: l.name,
          description: l.description,
          sku: r.sku,
          price: Number(r.price),
          active: Number(r.active) === 1,
          releaseDate: new Date(Number(r.releaseDate) * 1000).toISOString().slice(0, 10),
          color: r.color,
          tags: String(r.tags).split(',').filter(Boolean),
          category: rel.find((x) => x.src_id === r.id)?.dest_id ?? null,
        };
        const n = values.length;
        tuples.push(`($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}, $${n + 5}, $${n + 6}, $${n + 7})`);
        values.push(
          l.language === 'en' ? group : randomUUID(),
          group,
          l.language,
          r.key,
          `${r.path}${r.key}`,
          true,
          attributes,
        );
      }
    }
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO bare_objects (id, group_id, locale, key, path, published, attributes) VALUES ${tuples.join(',')}`,
      values,
    );
    await client.query('COMMIT');
    last = Number(rows[rows.length - 1].id);
  }
  const ms = performance.now() - started;
  const { rows: count } = await client.query('SELECT count(*)::int AS n FROM bare_objects');
  if (count[0].n < OBJECTS * 2) throw new Error(`bare import wrote ${count[0].n} rows`);
  finished();
  await client.end();
  await my.end();
  return ms;
}

/** The PostgreSQL postmaster (its backends and workers are its children) and the MariaDB server. */
async function serverPids(db: RunningMariaDb, url: string): Promise<{ postgres: number; mariadb: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query('SELECT pg_backend_pid() AS pid');
  const postgres = parentPid(Number(rows[0].pid));
  await client.end();
  const my = await mysql.createConnection({ host: db.host, port: db.port, user: db.user, password: db.password });
  const [vars] = await my.query<mysql.RowDataPacket[]>('SELECT @@pid_file AS f');
  await my.end();
  const mariadb = Number((await fs.readFile(String(vars[0]!.f), 'utf8')).trim());
  return { postgres, mariadb };
}

interface CpuSplit {
  pg: number;
  maria: number;
  node: number;
}
const cpuSince = (from: { pg: number; maria: number }, to: { pg: number; maria: number }, node: NodeJS.CpuUsage) => ({
  pg: to.pg - from.pg,
  maria: to.maria - from.maria,
  node: (node.user + node.system) / 1000,
});
const total = (c: CpuSplit) => c.pg + c.maria + c.node;
const cpuText = (c: CpuSplit) => `${secs(c.pg)} / ${secs(c.maria)} / ${secs(c.node)} (${secs(total(c))})`;

/** The Product partition's indexes after the import (all valid?) and the plan of a filter on a field. */
async function partitionIndexes(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT count(*)::int AS all, count(*) FILTER (WHERE i.indisvalid)::int AS valid,
              count(*) FILTER (WHERE c.relname LIKE 'data\\_objects\\_f\\_%' OR c.relname LIKE 'data\\_objects\\_p\\_%')::int AS field
         FROM data_classes k JOIN pg_index i ON i.indrelid = to_regclass('data_objects_c' || replace(k.id::text, '-', ''))
         JOIN pg_class c ON c.oid = i.indexrelid WHERE k.name = 'Product'`,
    );
    const { rows: cls } = await client.query(`SELECT id FROM data_classes WHERE name = 'Product'`);
    const { rows: plan } = await client.query(
      `EXPLAIN SELECT id FROM data_objects WHERE class_id = '${cls[0].id}'
         AND (attributes ->> 'sku') COLLATE "C" = 'SKU-5000' ORDER BY (attributes ->> 'sku') COLLATE "C", id LIMIT 20`,
    );
    const scan = plan.map((r) => String(r['QUERY PLAN'])).find((l) => /Scan/.test(l)) ?? '';
    return { ...rows[0], plan: scan.trim() } as { all: number; valid: number; field: number; plan: string };
  } finally {
    await client.end();
  }
}

const work = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-migration-'));
let source: RunningMariaDb | undefined;
let server: Server | undefined;
try {
  source = await startMariaDb();
  const seedStart = performance.now();
  await seedSource(source);
  console.log(
    `load average before: ${os
      .loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')}; source seeded with ${OBJECTS} products in 2 languages in ${secs(performance.now() - seedStart)}`,
  );
  const [product, bare] = [await createTestDatabase(), await createTestDatabase({ fresh: true })];
  server = await startChild<{ port: number; cookie: string }>(
    'migration-server.ts',
    {
      BENCH_DATABASE_URL: product.url,
      BENCH_DATA_DIR: path.join(work, 'data'),
      MIGRATION_IMPORT_BATCH_OBJECTS: String(BATCH),
    },
    180_000,
  );
  const created = await call(server, 'POST', '/migration-sources', {
    name: 'bench',
    kind: 'pimcore',
    connection: {
      host: source.host,
      port: source.port,
      database: source.database,
      user: source.user,
      password: source.password,
    },
    classPath: path.join(PIMCORE_FIXTURES, 'var', 'classes'),
  });
  await call(server, 'POST', `/migration-sources/${created.id}/import-classes`);

  const pids = await serverPids(source, bare.url);
  const cpuOf = () => ({ pg: processTreeCpuMs(pids.postgres), maria: processTreeCpuMs(pids.mariadb) });
  const bareCpu0 = { ...cpuOf(), node: process.cpuUsage() };
  let bareCpu: CpuSplit | undefined;
  const bareMs = await bareImport(source, bare.url, () => {
    bareCpu = cpuSince(bareCpu0, cpuOf(), process.cpuUsage(bareCpu0.node));
  });
  await server.ask('rss-start');
  const productCpu0 = cpuOf();
  const started = performance.now();
  const answer = await call(server, 'POST', `/migration-sources/${created.id}/import-objects`, {});
  const ms = performance.now() - started;
  const { baseline, peak, writeMs, indexMs, calls, cpu } = await server.ask<{
    baseline: number;
    peak: number;
    writeMs: number;
    indexMs: number;
    calls: number;
    cpu: NodeJS.CpuUsage;
  }>('rss-stop');
  const productCpu = cpuSince(productCpu0, cpuOf(), cpu);
  const growth = peak - baseline;
  console.log(
    `\ncounts ${JSON.stringify(answer.counts)}; ${answer.failed.length} failed; ${calls} importObjects calls`,
  );
  const indexes = await partitionIndexes(product.url);
  console.log(
    `phases: write step (importObjects) ${secs(writeMs)}; bulk load index steps (drop before, build + analyze after) ${secs(indexMs)}; the rest (reading the source, id map, checkpoints, relations pass) ${secs(ms - writeMs - indexMs)}`,
  );
  console.log(
    `Product partition after the import: ${indexes.valid} valid indexes of ${indexes.all} (${indexes.field} field indexes); a filter on sku plans: ${indexes.plan}`,
  );
  if (indexes.valid !== indexes.all || indexes.field === 0) throw new Error('the import left indexes unbuilt');
  console.log(
    `load average after: ${os
      .loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')}\n`,
  );
  const timeMet = ms < TARGET_S * 1000;
  const memoryMet = growth < TARGET_MB * 1024 * 1024;
  console.log(
    '| Import | Wall time | Per 10k objects | Write step (importObjects) | CPU: PostgreSQL / MariaDB / importer | RSS growth |',
  );
  console.log('| --- | --- | --- | --- | --- | --- |');
  console.log(
    `| product (import-objects, batches of ${BATCH}) | ${secs(ms)} | ${per10k(ms)} | ${secs(writeMs)} (${per10k(writeMs)} per 10k) | ${cpuText(productCpu)} | ${mb(growth)} |`,
  );
  console.log(
    `| bare (mysql2 + pg, one INSERT per batch) | ${secs(bareMs)} | ${per10k(bareMs)} | | ${cpuText(bareCpu!)} | |`,
  );
  console.log(
    `\nproduct / bare: wall ${(ms / bareMs).toFixed(2)}, CPU ${(total(productCpu) / total(bareCpu!)).toFixed(2)}`,
  );
  console.log(`wall time < ${TARGET_S} s: ${timeMet ? 'met' : 'MISSED'} (${secs(ms)})`);
  console.log(`RSS growth < ${TARGET_MB} MB: ${memoryMet ? 'met' : 'MISSED'} (${mb(growth)})`);
  if (answer.counts.created < OBJECTS) throw new Error(`expected ${OBJECTS}+ created, got ${answer.counts.created}`);
} finally {
  await server?.stop();
  await source?.stop();
  await teardownTestDatabases();
  await fs.rm(work, { recursive: true, force: true });
}
