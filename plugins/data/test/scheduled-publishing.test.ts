import { expect } from 'chai';
import { auditRows } from '../../../test/helpers/kernel.ts';
import { startDataKernel, type DataKernel } from './data-kernel.ts';

const MINUTE = 60_000;

describe('data: scheduled publishing', () => {
  let k: DataKernel;
  let cls: { id: string; name: string };
  before(async () => {
    k = await startDataKernel();
    cls = await k.createClass([{ name: 'title', type: 'text' }]);
  });
  after(() => k.t.close());

  const at = (ms: number) => new Date(k.t.clock.now().getTime() + ms).toISOString();
  const publicStatus = async (id: string) => (await k.call('GET', `/public/data-objects/${id}`, null)).statusCode;

  it('a publisher schedules; an editor may not; the schedule is listed', async () => {
    const obj = await k.createObject({ classId: cls.id, attributes: { title: 'later' } });
    const denied = await k.call('PUT', `/data-objects/${obj.id}/schedule`, k.editor, {
      publishAt: at(MINUTE),
      unpublishAt: null,
    });
    expect(denied.statusCode).to.equal(403);
    expect(denied.json().code).to.equal('PUBLISH_FORBIDDEN');
    const wrongOrder = await k.call('PUT', `/data-objects/${obj.id}/schedule`, k.publisher, {
      publishAt: at(2 * MINUTE),
      unpublishAt: at(MINUTE),
    });
    expect(wrongOrder.statusCode).to.equal(400);
    expect(wrongOrder.json().field).to.equal('unpublishAt');
    const set = await k.call('PUT', `/data-objects/${obj.id}/schedule`, k.publisher, {
      publishAt: at(MINUTE),
      unpublishAt: null,
    });
    expect(set.statusCode).to.equal(200);
    expect(set.json().schedule).to.include({ objectId: obj.id, scheduledBy: k.publisher.id, unpublishAt: null });
    const list = (await k.call('GET', '/data-objects/schedules', k.reader)).json();
    expect(list.schedules.map((s: { objectId: string }) => s.objectId)).to.include(obj.id);
    const cleared = await k.call('PUT', `/data-objects/${obj.id}/schedule`, k.publisher, {
      publishAt: null,
      unpublishAt: null,
    });
    expect(cleared.json().schedule).to.equal(null);
    expect((await k.call('GET', `/data-objects/${obj.id}/schedule`, k.reader)).json().schedule).to.equal(null);
  });

  it('the run publishes what is due (promoting the working copy) as the scheduling user, then unpublishes', async () => {
    const fresh = await k.createObject({ classId: cls.id, attributes: { title: 'new' } });
    const live = await k.createObject({ classId: cls.id, published: true, attributes: { title: 'old' } });
    await k.call('PATCH', `/data-objects/${live.id}`, k.editor, { attributes: { title: 'reviewed' } });
    await k.call('PUT', `/data-objects/${fresh.id}/schedule`, k.publisher, {
      publishAt: at(MINUTE),
      unpublishAt: at(10 * MINUTE),
    });
    await k.call('PUT', `/data-objects/${live.id}/schedule`, k.admin, { publishAt: at(MINUTE), unpublishAt: null });

    await k.t.runJob('data', 'scheduled-publishing');
    expect(await publicStatus(fresh.id)).to.equal(404);

    await k.t.advanceClock(MINUTE);
    k.clearEvents();
    await k.t.runJob('data', 'scheduled-publishing');
    expect(await publicStatus(fresh.id)).to.equal(200);
    const promoted = (await k.call('GET', `/public/data-objects/${live.id}`, null)).json();
    expect(promoted.attributes.title).to.equal('reviewed');
    expect(k.events.map((e) => [e.recordId, e.kind, e.actor.id])).to.have.deep.members([
      [fresh.id, 'published', k.publisher.id],
      [live.id, 'updated', k.admin.id],
    ]);
    const [audit] = await auditRows(k.t, 'data_object.scheduled_publish', fresh.id);
    expect(audit.actor_id).to.equal(k.publisher.id);
    expect(await auditRows(k.t, 'data_object.publish_draft', live.id)).to.have.length(1);
    expect((await k.call('GET', `/data-objects/${live.id}/schedule`, k.reader)).json().schedule).to.equal(null);
    expect((await k.call('GET', `/data-objects/${fresh.id}/schedule`, k.reader)).json().schedule.publishAt).to.equal(
      null,
    );

    // A second run in the same minute finds nothing left to do.
    k.clearEvents();
    await k.t.runJob('data', 'scheduled-publishing');
    expect(k.events).to.have.length(0);

    await k.t.advanceClock(9 * MINUTE);
    await k.t.runJob('data', 'scheduled-publishing');
    expect(await publicStatus(fresh.id)).to.equal(404);
    expect(await auditRows(k.t, 'data_object.scheduled_unpublish', fresh.id)).to.have.length(1);
    expect((await k.call('GET', `/data-objects/${fresh.id}/schedule`, k.reader)).json().schedule).to.equal(null);
  });

  it('two runs at once (two processes) carry a schedule out once', async () => {
    const obj = await k.createObject({ classId: cls.id, attributes: { title: 'once' } });
    await k.call('PUT', `/data-objects/${obj.id}/schedule`, k.publisher, { publishAt: at(MINUTE), unpublishAt: null });
    await k.t.advanceClock(MINUTE);
    k.clearEvents();
    await Promise.all([k.t.runJob('data', 'scheduled-publishing'), k.t.runJob('data', 'scheduled-publishing')]);
    expect(k.events.filter((e) => e.recordId === obj.id).map((e) => e.kind)).to.deep.equal(['published']);
    expect(await auditRows(k.t, 'data_object.scheduled_publish', obj.id)).to.have.length(1);
  });

  it('a working copy that no longer fits is reported and dropped, not retried', async () => {
    const c = await k.createClass([{ name: 'code', type: 'text', unique: true }]);
    await k.createObject({ classId: c.id, published: true, attributes: { code: 'A' } });
    const obj = await k.createObject({ classId: c.id, published: true, attributes: { code: 'B' } });
    await k.call('PATCH', `/data-objects/${obj.id}`, k.editor, { attributes: { code: 'A' } });
    await k.call('PUT', `/data-objects/${obj.id}/schedule`, k.publisher, { publishAt: at(MINUTE), unpublishAt: null });
    await k.t.advanceClock(MINUTE);
    await k.t.runJob('data', 'scheduled-publishing');
    expect(await auditRows(k.t, 'data_object.scheduled_publish_failed', obj.id)).to.have.length(1);
    expect((await k.call('GET', `/public/data-objects/${obj.id}`, null)).json().attributes.code).to.equal('B');
    expect((await k.call('GET', `/data-objects/${obj.id}/schedule`, k.reader)).json().schedule).to.equal(null);
  });
});
