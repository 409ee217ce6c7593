import { expect } from 'chai';
import { SYSTEM } from '../../../kernel/actor.ts';
import { startWithSchedules } from '../../../test/helpers/jobs.ts';
import { startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';
import { purgeExpiredAuditRows } from '../services/retention.ts';

const DAY_MS = 24 * 3600_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS);

async function seedAged(t: TestKernel, ages: number[]): Promise<void> {
  await t
    .db('audit_log')
    .insert(ages.map((age) => ({ at: daysAgo(age), actor_type: 'system', action: `test.age_${age}` })));
}

const actions = async (t: TestKernel) => (await t.db('audit_log').orderBy('id').pluck('action')) as string[];

describe('audit plugin: retention', () => {
  describe('with the default of 365 days', () => {
    let t: TestKernel;
    let mark: number;
    /** Actions of the rows written since this case started, oldest id first. */
    const recent = async () =>
      (await t.db('audit_log').where('id', '>', mark).orderBy('id').pluck('action')) as string[];
    const purge = () => purgeExpiredAuditRows(t.kernel.pluginDeps('audit'));
    before(async () => {
      t = await startTestKernel({ plugins: ['audit'] });
    });
    // Each case starts with nothing old enough to purge and looks only at the rows written after.
    beforeEach(async () => {
      await purge();
      mark = Number((await t.db('audit_log').max({ id: 'id' }).first())?.id ?? 0);
    });
    after(() => t.close());

    it('deletes only rows older than the retention and records audit.purge as the system', async () => {
      await seedAged(t, [3650, 400, 366, 364, 10, 0]);
      const result = await purge();
      expect(result.deleted).to.equal(3);
      expect(Date.parse(result.olderThan!)).to.be.closeTo(daysAgo(365).getTime(), 60_000);
      expect(await recent()).to.deep.equal(['test.age_364', 'test.age_10', 'test.age_0', 'audit.purge']);
      const purgeRow = await t.db('audit_log').where('id', '>', mark).where({ action: 'audit.purge' }).first();
      expect(purgeRow).to.include({
        actor_type: 'system',
        actor_id: null,
        actor_label: 'system',
        target_type: 'audit_log',
      });
      expect(purgeRow.after).to.deep.equal({ deleted: 3, olderThan: result.olderThan });
      expect(purgeRow.before).to.equal(null);
    });

    it('records nothing when nothing was old enough', async () => {
      await seedAged(t, [364, 1]);
      const result = await purge();
      expect(result.deleted).to.equal(0);
      expect(await recent()).to.deep.equal(['test.age_364', 'test.age_1']);
    });

    it('lets only one of two simultaneous purges delete and record', async () => {
      await seedAged(t, [800, 900]);
      const results = await Promise.all([1, 2, 3].map(() => purge()));
      expect(results.map((r) => r.deleted).sort()).to.deep.equal([0, 0, 2]);
      expect(await recent()).to.deep.equal(['audit.purge']);
    });

    it('never deletes through GET /audit-log, whatever the query', async () => {
      await seedAged(t, [3650, 400, 1]);
      const count = async () => Number((await t.db('audit_log').count({ n: '*' }).first())!.n);
      const before = await count();
      const { cookie } = await t.createUser({ permissions: ['audit:read'] });
      const queries: Array<[string, number]> = [
        ['?limit=5000&format=csv', 200],
        ['?action=test.&to=2000-01-01', 200],
        [`?from=${daysAgo(4000).toISOString()}&limit=1&offset=2`, 200],
        ['?limit=0', 400],
        ['?limit=5001', 400],
        ['?offset=-1', 400],
        ['?format=xml', 400],
        ['?delete=true', 400],
      ];
      for (const [query, status] of queries) {
        const res = await t.inject({ method: 'GET', url: `/audit-log${query}`, headers: { cookie } });
        expect(res.statusCode, `${query}: ${res.body.slice(0, 200)}`).to.equal(status);
      }
      const csv = await t.inject({ method: 'GET', url: '/audit-log?limit=5000&format=csv', headers: { cookie } });
      expect(csv.headers['content-type']).to.match(/^text\/csv/);
      expect(Number(csv.headers['x-total-count'])).to.equal(before);
      expect(await count()).to.equal(before);
      expect(await recent()).to.deep.equal(['test.age_3650', 'test.age_400', 'test.age_1']);
    });
  });

  it('is a daily schedule of the plugin, run once across every process (a minute of a night hour, UTC)', async () => {
    const { t, schedules } = await startWithSchedules({ plugins: ['audit'] });
    try {
      expect(schedules.get('audit.purge')).to.deep.equal({ cron: '23 2 * * *', timezone: 'UTC' });
      // What a tick runs is the purge, on this kernel's database.
      await seedAged(t, [500, 2]);
      await t.runJob('audit', 'purge');
      expect(await actions(t)).to.deep.equal(['test.age_2', 'audit.purge']);
    } finally {
      await t.close();
    }
  });

  it('keeps everything with AUDIT_RETENTION_DAYS=0', async () => {
    const t = await startTestKernel({ plugins: ['audit'], env: { AUDIT_RETENTION_DAYS: '0' } });
    try {
      await seedAged(t, [36500, 3650, 1]);
      const result = await purgeExpiredAuditRows(t.kernel.pluginDeps('audit'));
      expect(result).to.deep.equal({ deleted: 0, olderThan: null });
      expect(await actions(t)).to.deep.equal(['test.age_36500', 'test.age_3650', 'test.age_1']);
    } finally {
      await t.close();
    }
  });

  it("follows AUDIT_RETENTION_DAYS and the kernel clock, which can never push the cutoff past the database's own time", async () => {
    let offset = -5 * DAY_MS;
    const clock = { now: () => new Date(Date.now() + offset) };
    const t = await startTestKernel({ plugins: ['audit'], env: { AUDIT_RETENTION_DAYS: '30' }, clock });
    try {
      await seedAged(t, [36, 31, 29]);
      await t.kernel.resolve('audit').record({ actor: SYSTEM }, { action: 'test.now' });
      // The clock runs 5 days behind: the cutoff is 35 days back, so only the 36-day row goes.
      expect((await purgeExpiredAuditRows(t.kernel.pluginDeps('audit'))).deleted).to.equal(1);
      offset = 0;
      expect((await purgeExpiredAuditRows(t.kernel.pluginDeps('audit'))).deleted).to.equal(1);
      // A clock 2 days ahead asks for a cutoff 28 days back; the database keeps the 30-day retention.
      offset = 2 * DAY_MS;
      expect((await purgeExpiredAuditRows(t.kernel.pluginDeps('audit'))).deleted).to.equal(0);
      expect(await actions(t)).to.deep.equal(['test.age_29', 'test.now', 'audit.purge', 'audit.purge']);
    } finally {
      await t.close();
    }
  });
});
