import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { createTestDatabase } from '../../../test/helpers/database.ts';
import { startTestKernel } from '../../../test/helpers/kernel.ts';
import { KERNEL_MIGRATIONS_DIR } from '../../../kernel/loader.ts';
import { migrateAll } from '../../../kernel/migrations.ts';
import { listFieldIndexes } from '../store/field-index-store.ts';
import { startDataKernel, type DataKernel } from './data-kernel.ts';

interface PgConnection {
  query(sql: string, values: unknown[]): Promise<{ rows: Array<Record<string, string>> }>;
}

const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'migrations');

/** The data plugin's migrations up to `last` only, under the names the kernel records. */
const migrationsUpTo = (last: string): Knex.MigrationSource<string> => ({
  getMigrations: async () => [last],
  getMigrationName: (name) => name,
  getMigration: async (name) => import(path.join(MIGRATIONS, `${name}.ts`)),
});

/** Partitions of data_objects named in a plan. */
const partitionsIn = (plan: string) => [...new Set(plan.match(/data_objects_c[0-9a-f]{32}/g) ?? [])];

describe('data: storage partitioned by class', () => {
  describe('migration 0002 on a database with objects', () => {
    it('moves classes, objects, claims and preview links into the partitioned layout; the API answers the same', async function () {
      this.timeout(60_000);
      const database = await createTestDatabase({ fresh: true });
      const db = database.db;
      await migrateAll(db, [{ owner: 'kernel', directory: KERNEL_MIGRATIONS_DIR }]);
      await db.migrate.up({ migrationSource: migrationsUpTo('0001_data_model'), tableName: 'knex_migrations_data' });

      const classId = randomUUID();
      const fields = [
        { name: 'title', type: 'text', required: false, unique: false, localized: true },
        { name: 'sku', type: 'text', required: false, unique: true, localized: false },
        { name: 'price', type: 'number', required: false, unique: false, localized: false },
      ];
      await db('data_classes').insert({
        id: classId,
        name: 'product',
        label: 'Product',
        fields: JSON.stringify(fields),
      });
      const hex = classId.replace(/-/g, '');
      await db.raw(
        `CREATE INDEX data_objects_f_${hex}_old ON data_objects (((attributes ->> 'price')::numeric), id) WHERE class_id = '${classId}'`,
      );
      const group = randomUUID();
      const at = new Date('2024-05-01T10:00:00.000Z');
      const parent = {
        id: randomUUID(),
        class_id: classId,
        translation_group_id: group,
        locale: 'en',
        key: 'shoe',
        parent_id: null,
        path: '/shoe',
        published: true,
        attributes: { title: 'Shoe', sku: 'S-1', price: 40 },
      };
      const german = {
        ...parent,
        id: randomUUID(),
        locale: 'de',
        attributes: { title: 'Schuh', sku: 'S-1', price: 40 },
      };
      const child = {
        id: randomUUID(),
        class_id: classId,
        translation_group_id: randomUUID(),
        locale: 'en',
        key: 'lace',
        parent_id: parent.id,
        path: '/shoe/lace',
        published: false,
        attributes: { title: 'Lace', price: 2 },
      };
      for (const row of [parent, german, child]) {
        await db('data_objects').insert({
          ...row,
          attributes: JSON.stringify(row.attributes),
          created_at: at,
          updated_at: at,
        });
      }
      await db('data_unique_values').insert({
        class_id: classId,
        field: 'sku',
        scope: '',
        value: 'S-1',
        translation_group_id: group,
      });
      await db('data_preview_links').insert({
        token: 'tok-migrated',
        object_id: child.id,
        expires_at: new Date(Date.now() + 86_400_000),
      });

      const k = await startTestKernel({ plugins: ['data'], database });
      try {
        expect(k.kernel.appliedMigrations).to.include('data/0002_objects_partitioned_by_class');
        const admin = await k.admin();
        const get = (url: string, auth = true) =>
          k.inject({ method: 'GET', url, headers: auth ? { cookie: admin.cookie } : {} });
        const dto = (row: typeof parent | typeof child) => ({
          id: row.id,
          class: { id: classId, name: 'product' },
          classId,
          translationGroupId: row.translation_group_id,
          locale: row.locale,
          key: row.key,
          parentId: row.parent_id,
          path: row.path,
          published: row.published,
          workflowState: null,
          attributes: row.attributes,
          createdAt: at.toISOString(),
          updatedAt: at.toISOString(),
        });
        for (const row of [parent, german, child])
          expect((await get(`/data-objects/${row.id}`)).json()).to.deep.equal(dto(row));
        expect((await get(`/public/data-objects/${parent.id}`, false)).json()).to.deep.equal(dto(parent));
        expect(
          (await get(`/data-objects/translations/${group}`)).json().objects.map((o: { locale: string }) => o.locale),
        ).to.deep.equal(['de', 'en']);
        const listed = await get(`/public/data-objects?className=product&price=40`, false);
        expect(
          listed
            .json()
            .objects.map((o: { id: string }) => o.id)
            .sort(),
        ).to.deep.equal([parent.id, german.id].sort());
        expect((await get('/preview/objects/tok-migrated', false)).json().id).to.equal(child.id);

        // Storage: one partition holding the rows, the registry, field indexes on the partition only.
        expect((await db.raw(`select count(*)::int as n from only data_objects_c${hex}`)).rows[0].n).to.equal(3);
        expect(await db('data_object_registry').orderBy('id').select('id', 'class_id')).to.deep.equal(
          [parent, german, child]
            .map((r) => ({ id: r.id, class_id: classId }))
            .sort((a, b) => a.id.localeCompare(b.id)),
        );
        expect(await listFieldIndexes(db, classId)).to.have.length(6);
        expect((await db.raw(`select to_regclass(?) as t`, [`data_objects_f_${hex}_old`])).rows[0].t).to.equal(null);
        expect((await db.raw(`select to_regclass('data_objects_unpartitioned') as t`)).rows[0].t).to.equal(null);

        // The rules still hold on the moved rows: unique claims, keys, children, release on delete.
        const create = (body: Record<string, unknown>) =>
          k.inject({
            method: 'POST',
            url: '/data-objects',
            headers: { cookie: admin.cookie },
            payload: { classId, ...body },
          });
        expect((await create({ attributes: { sku: 'S-1' } })).json().code).to.equal('UNIQUE_VIOLATION');
        expect((await create({ key: 'shoe', attributes: {} })).json().code).to.equal('KEY_IN_USE');
        const del = (id: string) =>
          k.inject({ method: 'DELETE', url: `/data-objects/${id}`, headers: { cookie: admin.cookie } });
        expect((await del(parent.id)).json().code).to.equal('OBJECT_HAS_CHILDREN');
        await db('data_objects').where({ class_id: classId, id: parent.id }).delete();
        expect((await db('data_objects').where({ class_id: classId, id: child.id }).first()).parent_id).to.equal(null);
        expect((await create({ attributes: { sku: 'S-1' } })).statusCode).to.equal(409); // the German row still holds it
        await del(german.id);
        expect((await create({ attributes: { sku: 'S-1' } })).statusCode).to.equal(201);
        await del(child.id);
        expect(await db('data_preview_links').where({ token: 'tok-migrated' }).first()).to.equal(undefined);
      } finally {
        await k.close();
      }
    });
  });

  describe('with many classes', () => {
    let k: DataKernel;
    before(async () => {
      k = await startDataKernel({ PUBLIC_DATA_RATE_LIMIT_PER_MINUTE: '10000' });
    });
    after(() => k.t.close());

    /** EXPLAIN of the exact statement the route sent ($n placeholders). */
    const explain = async (sql: string, bindings: unknown[]): Promise<string> => {
      const client = k.t.db.client as {
        acquireConnection(): Promise<PgConnection>;
        releaseConnection(c: PgConnection): Promise<void>;
      };
      const conn = await client.acquireConnection();
      try {
        return (await conn.query(`explain ${sql}`, bindings)).rows.map((r) => r['QUERY PLAN']).join('\n');
      } finally {
        await client.releaseConnection(conn);
      }
    };
    /** Plans of the statements on data_objects that a request sent. */
    const plansOf = async (url: string): Promise<string[]> => {
      const seen: Array<{ sql: string; bindings: unknown[] }> = [];
      const listener = (q: { sql: string; bindings: unknown[] }) => seen.push(q);
      k.t.db.on('query', listener);
      try {
        const res = await k.call('GET', url, null);
        expect(res.statusCode, res.body).to.equal(200);
      } finally {
        k.t.db.removeListener('query', listener);
      }
      const plans: string[] = [];
      for (const q of seen.filter((s) => s.sql.includes('data_objects'))) plans.push(await explain(q.sql, q.bindings));
      return plans;
    };

    it('a by-id read and a filtered public list plan one partition, however many classes exist', async function () {
      this.timeout(120_000);
      const tenFields = (i: number) =>
        Array.from({ length: 10 }, (_, f) => ({ name: `f${f}`, type: f % 2 ? 'number' : 'text', label: `${i}` }));
      const cls = await k.createClass([{ name: 'title', type: 'text' }, ...tenFields(0)], 'main');
      const obj = await k.createObject({ classId: cls.id, published: true, attributes: { title: 'one', f1: 3 } });
      const urls = [`/public/data-objects/${obj.id}`, `/public/data-objects?className=${cls.name}&f1=3`];
      // One request at a time: the query listener sees every statement on the pool.
      const plansOfAll = async () => {
        const plans: string[][] = [];
        for (const url of urls) plans.push(await plansOf(url));
        return plans;
      };
      const before = await plansOfAll();
      for (let i = 0; i < 50; i++) await k.createClass(tenFields(i), 'extra');
      const after = await plansOfAll();
      const own = `data_objects_c${cls.id.replace(/-/g, '')}`;
      for (const plans of after) {
        expect(plans).to.not.be.empty;
        for (const plan of plans) expect(partitionsIn(plan), plan).to.deep.equal([own]);
      }
      expect(after).to.deep.equal(before);
    });

    it('adding a field to a class with objects answers before its index exists; reads go on; the index follows', async function () {
      this.timeout(120_000);
      const cls = await k.createClass([{ name: 'title', type: 'text' }], 'grow');
      await k.t.db.raw(
        `insert into data_objects (class_id, translation_group_id, locale, published, attributes)
         select ?, gen_random_uuid(), 'en', true, jsonb_build_object('title', 't' || n, 'rank', n % 100) from generate_series(1, 20000) n`,
        [cls.id],
      );
      // A transaction holding an older snapshot keeps CREATE INDEX CONCURRENTLY from finishing (as a
      // long report would): the PATCH must not wait for it, and the class stays readable meanwhile.
      const writer = await k.t.db.transaction({ isolationLevel: 'repeatable read' });
      try {
        await writer.raw('select 1 from data_classes limit 1');
        const patched = await k.call('PATCH', `/data-classes/${cls.id}`, k.admin, {
          fields: [
            { name: 'title', type: 'text' },
            { name: 'rank', type: 'number' },
          ],
        });
        expect(patched.statusCode, patched.body).to.equal(200);
        expect(await k.t.kernel.resolve('jobs').unfinished('data.index-builds', cls.id)).to.equal(true);
        expect(await listFieldIndexes(k.t.db, cls.id)).to.have.length(2);
        const filtered = await k.call('POST', '/public/data-objects/query', null, {
          className: cls.name,
          filters: [{ field: 'rank', op: 'eq', value: 7 }],
          limit: 5,
          includeTotal: true,
        });
        expect(filtered.statusCode, filtered.body).to.equal(200);
        expect(filtered.json().total).to.equal(200);
        await writer.commit();
      } catch (err) {
        await writer.rollback();
        throw err;
      }
      await k.t.kernel.resolve('jobs').settled('data.index-builds');
      expect(await listFieldIndexes(k.t.db, cls.id)).to.have.length(4);
    });

    it('of two concurrent creates with the same localized unique value in one locale, exactly one succeeds', async () => {
      const cls = await k.createClass([{ name: 'slug', type: 'slug', unique: true, localized: true }], 'uniq');
      const create = () =>
        k.call('POST', '/data-objects', k.editor, { classId: cls.id, locale: 'de', attributes: { slug: 'same' } });
      const results = await Promise.all([create(), create(), create()]);
      expect(results.map((r) => r.statusCode).sort()).to.deep.equal([201, 409, 409]);
    });
  });
});
