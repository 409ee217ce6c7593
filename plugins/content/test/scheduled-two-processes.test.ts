import { expect } from 'chai';
import { createKnex } from '../../../kernel/database.ts';
import { createTestDatabase } from '../../../test/helpers/database.ts';
import { registeredSchedules } from '../../../test/helpers/jobs.ts';
import {
  auditRows,
  eventually,
  startTestKernel,
  type TestKernel,
  type TestUser,
} from '../../../test/helpers/kernel.ts';

const MINUTE = 60_000;

/**
 * Two core-api processes on one database, each with its job engine on: the schedule
 * `content.scheduled-publishing` is registered once, fires every minute, and a scheduled publish (with
 * its working copy) is carried out exactly once however many runs of both processes overlap.
 */
describe('content: a scheduled publish with two processes running', function () {
  this.timeout(120_000);
  let a: TestKernel;
  let b: TestKernel;
  let admin: TestUser;
  let editor: TestUser;
  before(async () => {
    const database = await createTestDatabase();
    a = await startTestKernel({ plugins: ['data', 'content'], database, jobs: true });
    const second = createKnex(database.url, 3);
    b = await startTestKernel({
      plugins: ['data', 'content'],
      jobs: true,
      database: { db: second, url: database.url, close: () => second.destroy() },
    });
    admin = await a.admin();
    ({ editor } = await a.users({ editor: ['objects:read', 'objects:write'] }));
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  it('registers one schedule every minute; overlapping runs in both processes publish once', async () => {
    const schedules = await registeredSchedules(a);
    expect(schedules.get('content.scheduled-publishing')?.cron).to.equal('* * * * *');
    expect(
      [...(await registeredSchedules(b)).keys()].filter((n) => n === 'content.scheduled-publishing'),
    ).to.have.length(1);

    const ok = async (res: ReturnType<TestKernel['call']>, status = 200) => {
      const answer = await res;
      expect(answer.statusCode, answer.body).to.equal(status);
      return answer.json();
    };
    const site = await ok(
      a.call('POST', '/cms-one/websites', admin, { name: 'Two', rootPath: '/two', locales: ['en'] }),
      201,
    );
    const page = await ok(
      a.call('POST', '/cms-one/pages', admin, {
        websiteId: site.id,
        locale: 'en',
        path: '/sale',
        title: 'Sale',
        published: true,
        content: { type: 'p', text: 'Soon' },
      }),
      201,
    );
    // The editor's change waits in the working copy (seen by both processes), published on schedule.
    await ok(b.call('PATCH', `/cms-one/pages/${page.id}`, editor, { content: { type: 'p', text: 'Sale is on' } }));
    const publishAt = new Date(a.clock.now().getTime() + MINUTE).toISOString();
    await ok(a.call('PUT', `/cms-one/pages/${page.id}/schedule`, admin, { publishAt, unpublishAt: null }));
    const text = async (t: TestKernel) => (await t.call('GET', '/public/pages/en/two/sale', null)).json().content.text;

    await Promise.all([a.runJob('content', 'scheduled-publishing'), b.runJob('content', 'scheduled-publishing')]);
    expect(await text(b)).to.equal('Soon');

    const changes = [a.recordChanges('page'), b.recordChanges('page')];
    await a.advanceClock(MINUTE);
    await b.advanceClock(MINUTE);
    await Promise.all([
      a.runJob('content', 'scheduled-publishing'),
      b.runJob('content', 'scheduled-publishing'),
      a.runJob('content', 'scheduled-publishing'),
      b.runJob('content', 'scheduled-publishing'),
    ]);
    // Whichever process published, the other one's caches follow its change notice (within a second).
    for (const t of [a, b])
      await eventually(async () => (await text(t)) === 'Sale is on', { timeoutMs: 5_000, what: 'the published text' });
    expect(await auditRows(a, 'page.publish_draft', page.id)).to.have.length(1);
    expect(await auditRows(a, 'page.scheduled_publish', page.id)).to.have.length(1);
    const updates = changes.flat().filter((e) => e.recordId === page.id && e.kind === 'updated');
    expect(updates).to.have.length(1);
    expect((await ok(b.call('GET', `/cms-one/pages/${page.id}/schedule`, admin))).schedule).to.equal(null);
  });
});
