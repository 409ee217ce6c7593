import { expect } from 'chai';
import type { UserActor } from '../../../kernel/actor.ts';
import { SYSTEM } from '../../../kernel/actor.ts';
import type { AuditWriter } from '../../../kernel/audit.ts';
import { startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';
import { parseCsv } from './csv-parse.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies of many shapes, read by the assertions
type ResponseJson = any;

const userActor = (id: string, email: string): UserActor => ({
  type: 'user',
  id,
  email,
  displayName: email,
  roles: [],
  permissions: new Set(),
});
const alice = userActor('u-alice', 'alice@example.test');
const bob = userActor('u-bob', 'Bob@Example.test');

const ENTRY_FIELDS = [
  'id',
  'at',
  'actor_type',
  'actor_id',
  'actor_label',
  'ip',
  'action',
  'target_type',
  'target_id',
  'target_label',
  'before',
  'after',
  'request_id',
];

describe('audit plugin: GET /audit-log', () => {
  let t: TestKernel;
  let reader: { cookie: string };
  let get: (
    query?: string,
  ) => Promise<{ statusCode: number; body: string; headers: Record<string, unknown>; json: () => ResponseJson }>;

  before(async () => {
    t = await startTestKernel({ plugins: ['audit'] });
    reader = await t.createUser({ permissions: ['audit:read'] });
    get = (query = '') => t.inject({ method: 'GET', url: `/audit-log${query}`, headers: { cookie: reader.cookie } });
    const audit: AuditWriter = t.kernel.resolve('audit');
    // 150 filler rows first (oldest), then the rows the filters look for.
    for (let i = 0; i < 150; i++)
      await audit.record({ actor: SYSTEM }, { action: 'retention.purge', targetType: 'filler', targetId: String(i) });
    await audit.record(
      { actor: alice, ip: '10.0.0.1', requestId: 'req-1' },
      {
        action: 'user.create',
        targetType: 'user',
        targetId: 'u-1',
        targetLabel: 'one@example.test',
        after: { email: 'one@example.test', roles: ['editor'] },
      },
    );
    await audit.record(
      { actor: alice },
      {
        action: 'user.update',
        targetType: 'user',
        targetId: 'u-1',
        before: { active: true },
        after: { active: false },
      },
    );
    await audit.record(
      { actor: bob },
      { action: 'role.create', targetType: 'role', targetId: 'r-1', targetLabel: '=cmd|calc' },
    );
    await audit.record(
      { actor: bob },
      {
        action: 'user.delete',
        targetType: 'user',
        targetId: 'u-2',
        targetLabel: '+x',
        before: { email: 'two@example.test' },
      },
    );
    await audit.record(
      { actor: SYSTEM },
      { action: 'usermeta.update', targetType: 'user', targetId: 'u-1', targetLabel: '-y' },
    );
    await audit.record(
      { actor: alice },
      { action: 'website_path.create', targetType: 'website_path', targetId: 'p-1', targetLabel: '@z' },
    );
    await audit.record(
      { actor: alice },
      { action: 'websiteXpath.create', targetType: 'website_path', targetId: 'p-2', targetLabel: 'a "quoted", label' },
    );
  });
  after(() => t.close());

  it('answers 401 without a session and 403 without audit:read', async () => {
    expect((await t.inject({ method: 'GET', url: '/audit-log' })).statusCode).to.equal(401);
    const other = await t.createUser({ permissions: ['objects:read'] });
    const res = await t.inject({ method: 'GET', url: '/audit-log', headers: { cookie: other.cookie } });
    expect(res.statusCode).to.equal(403);
    expect(res.json().code).to.equal('FORBIDDEN');
  });

  it('lists newest first with the spec fields, 100 by default, and the total', async () => {
    const res = await get();
    expect(res.statusCode).to.equal(200);
    expect(res.headers['cache-control']).to.equal('no-store');
    const { entries, total } = res.json();
    expect(total).to.equal(157);
    expect(entries).to.have.length(100);
    expect(Object.keys(entries[0]).sort()).to.deep.equal([...ENTRY_FIELDS].sort());
    expect(entries[0].action).to.equal('websiteXpath.create');
    expect(entries[6]).to.deep.include({
      action: 'user.create',
      actor_type: 'user',
      actor_id: 'u-alice',
      actor_label: 'alice@example.test',
      ip: '10.0.0.1',
      target_type: 'user',
      target_id: 'u-1',
      target_label: 'one@example.test',
      before: null,
      request_id: 'req-1',
    });
    expect(entries[6].after).to.deep.equal({ email: 'one@example.test', roles: ['editor'] });
    expect(entries[0].at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    for (let i = 1; i < entries.length; i++) {
      const [newer, older] = [entries[i - 1], entries[i]];
      expect(newer.at > older.at || (newer.at === older.at && newer.id > older.id), `entry ${i} order`).to.equal(true);
    }
  });

  it('pages with limit and offset; limit is capped at 5000 and names the field beyond it', async () => {
    const first = (await get('?limit=3')).json();
    const second = (await get('?limit=3&offset=3')).json();
    expect(first.entries.map((e: { id: number }) => e.id)).to.have.length(3);
    expect(second.total).to.equal(157);
    expect(second.entries[0].id).to.be.below(first.entries[2].id);
    expect((await get('?limit=5000')).json().entries).to.have.length(157);
    const tooMany = await get('?limit=5001');
    expect(tooMany.statusCode).to.equal(400);
    expect(tooMany.json().field).to.equal('limit');
    expect((await get('?limit=0')).json().field).to.equal('limit');
    expect((await get('?offset=-1')).json().field).to.equal('offset');
    expect((await get('?offset=1000')).json()).to.deep.equal({ entries: [], total: 157 });
  });

  it('caps offset at 1,000,000: beyond it (even past bigint) answers 400 naming offset, never 500', async () => {
    expect((await get('?offset=1000000')).json()).to.deep.equal({ entries: [], total: 157 });
    for (const offset of ['100000000000000000000', '1e21', '1000001']) {
      const res = await get(`?offset=${offset}`);
      expect(res.statusCode, `${offset}: ${res.body}`).to.equal(400);
      expect(res.json(), offset).to.include({ code: 'VALIDATION_FAILED', field: 'offset' });
    }
  });

  it('filters by exact action and by prefix ending in a dot', async () => {
    const exact = (await get('?action=user.update')).json();
    expect(exact.total).to.equal(1);
    expect(exact.entries[0].action).to.equal('user.update');
    const prefix = (await get('?action=user.')).json();
    expect(prefix.entries.map((e: { action: string }) => e.action)).to.deep.equal([
      'user.delete',
      'user.update',
      'user.create',
    ]);
    expect(prefix.total).to.equal(3);
    // `_` is literal, not a LIKE wildcard.
    const underscore = (await get('?action=website_path.')).json();
    expect(underscore.entries.map((e: { action: string }) => e.action)).to.deep.equal(['website_path.create']);
    expect((await get('?action=user')).json().total).to.equal(0);
  });

  it('filters by actor id or by actor e-mail in any case', async () => {
    const byId = (await get('?actor=u-bob')).json();
    expect(byId.entries.map((e: { action: string }) => e.action)).to.deep.equal(['user.delete', 'role.create']);
    const byEmail = (await get('?actor=BOB%40example.TEST')).json();
    expect(byEmail.total).to.equal(2);
    expect((await get('?actor=system')).json().total).to.equal(151);
    expect((await get('?actor=bob')).json().total).to.equal(0);
    const paged = (await get('?actor=ALICE%40example.test&limit=2&offset=1')).json();
    expect(paged.total).to.equal(4);
    expect(paged.entries.map((e: { action: string }) => e.action)).to.deep.equal([
      'website_path.create',
      'user.update',
    ]);
  });

  it('counts a row whose actor id and label both match once', async () => {
    const t2 = await startTestKernel({ plugins: ['audit'] });
    try {
      const importer = { type: 'system' as const, id: 'importer', label: 'Importer' };
      await t2.kernel.resolve('audit').record({ actor: importer }, { action: 'migration_source.import_objects' });
      await t2.kernel
        .resolve('audit')
        .record(
          { actor: { type: 'system', id: 'other', label: 'importer' } },
          { action: 'migration_source.import_classes' },
        );
      const { cookie } = await t2.createUser({ permissions: ['audit:read'] });
      const res = await t2.inject({ method: 'GET', url: '/audit-log?actor=importer', headers: { cookie } });
      expect(res.json().total).to.equal(2);
      expect(res.json().entries).to.have.length(2);
    } finally {
      await t2.close();
    }
  });

  it('filters by target type and id', async () => {
    expect((await get('?targetType=user')).json().total).to.equal(4);
    const one = (await get('?targetType=user&targetId=u-1')).json();
    expect(one.entries.map((e: { action: string }) => e.action)).to.deep.equal([
      'usermeta.update',
      'user.update',
      'user.create',
    ]);
    expect((await get('?targetId=p-2')).json().entries[0].action).to.equal('websiteXpath.create');
    expect((await get('?targetType=user&targetId=p-2')).json().total).to.equal(0);
  });

  it('refuses unknown query parameters and formats', async () => {
    const res = await get('?actions=user.');
    expect(res.statusCode).to.equal(400);
    expect((await get('?format=xml')).json().field).to.equal('format');
  });

  it('has no route that writes, changes or deletes a row', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const res = await t.inject({ method, url: '/audit-log', headers: { cookie: reader.cookie }, payload: {} });
      expect(res.statusCode, method).to.equal(404);
    }
    const doc = (await t.inject({ method: 'GET', url: '/openapi.json' })).json();
    const auditPaths = Object.keys(doc.paths).filter((p) => p.startsWith('/audit'));
    expect(auditPaths).to.deep.equal(['/audit-log']);
    expect(Object.keys(doc.paths['/audit-log'])).to.deep.equal(['get']);
  });

  describe('CSV', () => {
    it('has a header row, one record per entry, JSON before/after and the download headers', async () => {
      const res = await get('?format=csv&action=user.update');
      expect(res.statusCode).to.equal(200);
      expect(res.headers['content-type']).to.equal('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).to.match(/^attachment; filename="audit-log-\d{8}T\d{6}Z\.csv"$/);
      expect(res.headers['x-total-count']).to.equal('1');
      const rows = parseCsv(res.body);
      expect(rows[0]).to.deep.equal(ENTRY_FIELDS);
      expect(rows).to.have.length(2);
      const row = Object.fromEntries(ENTRY_FIELDS.map((f, i) => [f, rows[1][i]]));
      expect(row).to.include({ action: 'user.update', actor_id: 'u-alice', target_id: 'u-1', ip: '' });
      expect(JSON.parse(row.before)).to.deep.equal({ active: true });
      expect(JSON.parse(row.after)).to.deep.equal({ active: false });
      expect(new Date(row.at).toISOString()).to.equal(row.at);
    });

    it('puts an apostrophe before values starting with =, +, - or @ and quotes commas and quotes', async () => {
      const res = await get('?format=csv&limit=7');
      const rows = parseCsv(res.body);
      const labels = rows.slice(1).map((r) => r[ENTRY_FIELDS.indexOf('target_label')]);
      expect(labels).to.deep.equal(['a "quoted", label', "'@z", "'-y", "'+x", "'=cmd|calc", '', 'one@example.test']);
      expect(res.body).to.contain('"a ""quoted"", label"');
      expect(res.body).not.to.match(/(^|,)[=+\-@]/m);
    });

    it('honours the same filters and limit', async () => {
      const rows = parseCsv((await get('?format=csv&actor=u-alice&limit=2')).body);
      expect(rows).to.have.length(3);
      expect(rows.slice(1).map((r) => r[ENTRY_FIELDS.indexOf('action')])).to.deep.equal([
        'websiteXpath.create',
        'website_path.create',
      ]);
    });
  });
});

describe('audit plugin: GET /audit-log date range', () => {
  let t: TestKernel;
  let get: (query: string) => Promise<{ statusCode: number; json: () => ResponseJson }>;

  before(async () => {
    t = await startTestKernel({ plugins: ['audit'] });
    const { cookie } = await t.createUser({ permissions: ['audit:read'] });
    get = (query) => t.inject({ method: 'GET', url: `/audit-log?${query}`, headers: { cookie } });
    // Only the retention job may delete, but anyone may insert: rows with chosen times.
    const at = [
      '2020-01-01T10:00:00Z',
      '2020-01-02T00:00:00Z',
      '2020-01-02T23:59:59.999Z',
      '2020-01-03T00:00:00Z',
      '2020-01-04T12:00:00.123456Z',
    ];
    await t.db('audit_log').insert(at.map((a, i) => ({ at: a, actor_type: 'system', action: `test.row${i}` })));
  });
  after(() => t.close());

  const actions = (body: { entries: Array<{ action: string }> }) => body.entries.map((e) => e.action);

  it('from is inclusive; to as a plain date includes that whole UTC day', async () => {
    expect(actions((await get('from=2020-01-02&to=2020-01-02')).json())).to.deep.equal(['test.row2', 'test.row1']);
    expect(actions((await get('from=2020-01-02')).json())).to.deep.equal([
      'test.row4',
      'test.row3',
      'test.row2',
      'test.row1',
    ]);
    expect(actions((await get('to=2020-01-01')).json())).to.deep.equal(['test.row0']);
  });

  it('accepts timestamps with or without zone; a timestamp `to` includes that instant', async () => {
    expect(actions((await get('from=2020-01-01T10:00:00Z&to=2020-01-02T00:00:00Z')).json())).to.deep.equal([
      'test.row1',
      'test.row0',
    ]);
    expect(actions((await get('from=2020-01-02T01:00:00%2B01:00&to=2020-01-02T00:00')).json())).to.deep.equal([
      'test.row1',
    ]);
    // An unencoded + arrives as a space and is read back as +.
    expect(actions((await get('from=2020-01-02T01:00:00+01:00&to=2020-01-02T00:00')).json())).to.deep.equal([
      'test.row1',
    ]);
    // A row's own `at` (milliseconds) used as `to` keeps that row although it is stored with microseconds.
    const row4 = (await get('action=test.row4')).json().entries[0];
    expect(row4.at).to.equal('2020-01-04T12:00:00.123Z');
    expect(actions((await get(`from=2020-01-04&to=${row4.at}`)).json())).to.deep.equal(['test.row4']);
  });

  it('answers 400 naming the field for an invalid date', async () => {
    for (const [query, field] of [
      ['from=yesterday', 'from'],
      ['to=2020-02-30', 'to'],
      ['from=2020-01-01T25:00:00Z', 'from'],
      ['to=01/02/2020', 'to'],
      ['from=2020-01-03&to=2020-01-01', 'to'],
    ]) {
      const res = await get(query);
      expect(res.statusCode, query).to.equal(400);
      expect(res.json().field, query).to.equal(field);
    }
  });
});
