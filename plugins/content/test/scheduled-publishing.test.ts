import { expect } from 'chai';
import { auditRows } from '../../../test/helpers/kernel.ts';
import { startContentKernel, type ContentKernel } from './content-kernel.ts';

const MINUTE = 60_000;
const tree = (text: string) => ({ type: 'section', children: [{ type: 'p', text }] });

describe('content: scheduled publishing of pages', () => {
  let k: ContentKernel;
  let site: { id: string; rootPath: string };
  before(async () => {
    k = await startContentKernel();
    site = await k.createWebsite();
  });
  after(() => k.t.close());

  const at = (ms: number) => new Date(k.t.clock.now().getTime() + ms).toISOString();
  const publicPage = (path: string) => k.call('GET', `/public/pages/en${site.rootPath}${path}`, null);

  it('a publisher schedules a publish and an unpublish; an editor may not; the run carries them out as the publisher', async () => {
    const page = await k.createPage({ websiteId: site.id, path: '/launch' });
    const denied = await k.call('PUT', `/cms-one/pages/${page.id}/schedule`, k.editor, {
      publishAt: at(MINUTE),
      unpublishAt: null,
    });
    expect(denied.statusCode).to.equal(403);
    const set = await k.call('PUT', `/cms-one/pages/${page.id}/schedule`, k.publisher, {
      publishAt: at(MINUTE),
      unpublishAt: at(5 * MINUTE),
    });
    expect(set.statusCode).to.equal(200);
    expect(set.json().schedule).to.include({ pageId: page.id, scheduledBy: k.publisher.id });
    expect((await k.call('GET', '/cms-one/schedules', k.reader)).json().schedules).to.have.length(1);

    await k.t.runJob('content', 'scheduled-publishing');
    expect((await publicPage('/launch')).statusCode).to.equal(404);
    await k.t.advanceClock(MINUTE);
    k.clearEvents();
    await k.t.runJob('content', 'scheduled-publishing');
    expect((await publicPage('/launch')).statusCode).to.equal(200);
    expect(k.events.map((e) => [e.kind, e.actor.id])).to.deep.equal([['published', k.publisher.id]]);
    const [audit] = await auditRows(k.t, 'page.scheduled_publish', page.id);
    expect(audit.actor_id).to.equal(k.publisher.id);

    await k.t.advanceClock(4 * MINUTE);
    await k.t.runJob('content', 'scheduled-publishing');
    expect((await publicPage('/launch')).statusCode).to.equal(404);
    expect((await k.call('GET', `/cms-one/pages/${page.id}/schedule`, k.reader)).json().schedule).to.equal(null);
  });

  it('a scheduled publish of a published page promotes its working copy', async () => {
    const page = await k.createPage({ websiteId: site.id, path: '/sale', published: true });
    await k.call('PATCH', `/cms-one/pages/${page.id}`, k.editor, { content: tree('Sale starts') });
    await k.call('PUT', `/cms-one/pages/${page.id}/schedule`, k.admin, { publishAt: at(MINUTE), unpublishAt: null });
    await k.t.advanceClock(MINUTE);
    await Promise.all([k.t.runJob('content', 'scheduled-publishing'), k.t.runJob('content', 'scheduled-publishing')]);
    expect((await publicPage('/sale')).json().content.children[0].text).to.equal('Sale starts');
    expect(await auditRows(k.t, 'page.publish_draft', page.id)).to.have.length(1);
    expect(await auditRows(k.t, 'page.scheduled_publish', page.id)).to.have.length(1);
  });
});
