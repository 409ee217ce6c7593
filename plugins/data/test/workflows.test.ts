import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { RecordChange } from '../../../kernel/record-hooks.ts';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { seedClass, seedObject } from './seed-rows.ts';

type User = TestUser;

const REVIEW_WORKFLOW = {
  places: [{ name: 'draft', label: 'Draft' }, { name: 'review' }, { name: 'live' }],
  transitions: [
    { name: 'submit', from: ['draft'], to: 'review', permissions: ['objects:write'] },
    { name: 'approve', label: 'Approve', from: ['review'], to: 'live', permissions: ['objects:publish'] },
    { name: 'reject', from: ['review'], to: 'draft', permissions: ['objects:write'] },
    { name: 'retract', from: ['live'], to: 'draft', permissions: [] },
  ],
};

describe('data: workflows and transitions', () => {
  let t: TestKernel;
  let admin: User;
  let editor: User;
  let viewer: User;
  let classId: string;
  let events: RecordChange[];

  before(async () => {
    t = await startTestKernel({ plugins: ['data'] });
    admin = await t.admin();
    editor = await t.createUser({ roles: ['editor'] });
    viewer = await t.createUser({ roles: ['viewer'] });
    t.kernel.resolve('recordHooks').subscribe('object', (change) => void events.push(change));
  });
  // Each case gets a class of its own, without a workflow, and no event yet.
  beforeEach(async () => {
    classId = (await seedClass(t.db)).id;
    events = [];
  });
  after(() => t.close());

  const putWorkflow = (body: unknown, cookie = editor.cookie, id = classId) =>
    t.inject({ method: 'PUT', url: `/data-classes/${id}/workflow`, headers: { cookie }, payload: body as object });
  const transitions = (objectId: string, cookie: string) =>
    t.inject({ method: 'GET', url: `/data-objects/${objectId}/transitions`, headers: { cookie } });
  const run = (objectId: string, transition: string, cookie: string, headers: Record<string, string> = {}) =>
    t.inject({
      method: 'POST',
      url: `/data-objects/${objectId}/transition`,
      headers: { cookie, ...headers },
      payload: { transition },
    });

  describe('PUT /data-classes/:id/workflow', () => {
    const withChange = (change: (w: typeof REVIEW_WORKFLOW & { initialPlace?: string }) => void) => {
      const w = structuredClone(REVIEW_WORKFLOW) as typeof REVIEW_WORKFLOW & { initialPlace?: string };
      change(w);
      return w;
    };
    const cases: Array<[string, unknown, string, string]> = [
      ['a duplicate place', withChange((w) => w.places.push({ name: 'draft' })), 'places.3.name', 'DUPLICATE_PLACE'],
      [
        'a duplicate transition',
        withChange((w) => w.transitions.push({ ...w.transitions[0] })),
        'transitions.4.name',
        'DUPLICATE_TRANSITION',
      ],
      [
        'an unknown from place',
        withChange((w) => (w.transitions[1].from = ['review', 'nowhere'])),
        'transitions.1.from.1',
        'UNKNOWN_PLACE',
      ],
      [
        'an unknown to place',
        withChange((w) => (w.transitions[2].to = 'nowhere')),
        'transitions.2.to',
        'UNKNOWN_PLACE',
      ],
      [
        'an unknown permission key',
        withChange((w) => (w.transitions[0].permissions = ['objects:write', 'objects:fly'])),
        'transitions.0.permissions.1',
        'UNKNOWN_PERMISSION',
      ],
      ['an unknown initial place', withChange((w) => (w.initialPlace = 'nowhere')), 'initialPlace', 'UNKNOWN_PLACE'],
      ['no places', { places: [], transitions: [] }, 'places', 'VALIDATION_FAILED'],
      [
        'a transition without from',
        withChange((w) => (w.transitions[0].from = [])),
        'transitions.0.from',
        'VALIDATION_FAILED',
      ],
      ['a missing transitions list', { places: [{ name: 'a' }] }, 'transitions', 'VALIDATION_FAILED'],
    ];
    for (const [what, body, field, code] of cases) {
      it(`answers 400 naming the field for ${what}`, async () => {
        const res = await putWorkflow(body);
        expect(res.statusCode, res.body).to.equal(400);
        expect(res.json()).to.include({ field, code });
        expect(await t.db('data_classes').where({ id: classId }).first('workflow')).to.deep.equal({ workflow: null });
      });
    }

    it('needs objects:write (403 for a viewer) and a known class (404)', async () => {
      expect((await putWorkflow(REVIEW_WORKFLOW, viewer.cookie)).statusCode).to.equal(403);
      const res = await putWorkflow(REVIEW_WORKFLOW, editor.cookie, randomUUID());
      expect(res.statusCode).to.equal(404);
      expect(
        (await t.inject({ method: 'PUT', url: `/data-classes/${classId}/workflow`, payload: REVIEW_WORKFLOW }))
          .statusCode,
      ).to.equal(401);
    });

    it('stores the workflow with defaults filled in; GET returns it', async () => {
      const res = await putWorkflow(REVIEW_WORKFLOW);
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.json().initialPlace).to.equal('draft');
      expect(res.json().places[1]).to.deep.equal({ name: 'review', label: 'review' });
      expect(res.json().transitions[1]).to.deep.equal({
        name: 'approve',
        label: 'Approve',
        from: ['review'],
        to: 'live',
        permissions: ['objects:publish'],
      });
      const got = await t.inject({
        method: 'GET',
        url: `/data-classes/${classId}/workflow`,
        headers: { cookie: viewer.cookie },
      });
      expect(got.statusCode).to.equal(200);
      expect(got.json()).to.deep.equal(res.json());
      const stored = await t.db('data_classes').where({ id: classId }).first('workflow');
      expect(stored.workflow.transitions).to.have.length(4);
    });
  });

  describe('transitions of an object', () => {
    beforeEach(async () => {
      expect((await putWorkflow(REVIEW_WORKFLOW)).statusCode).to.equal(200);
      events = [];
    });

    it('lists only transitions from the current place whose keys the caller holds; a null state is the initial place', async () => {
      const obj = await seedObject(t.db, classId);
      const forEditor = await transitions(obj.id, editor.cookie);
      expect(forEditor.statusCode).to.equal(200);
      expect(forEditor.json().place).to.equal('draft');
      expect(forEditor.json().transitions.map((x: { name: string }) => x.name)).to.deep.equal(['submit']);
      expect((await transitions(obj.id, viewer.cookie)).json().transitions).to.deep.equal([]);

      const inReview = await seedObject(t.db, classId, { workflowState: 'review' });
      expect(
        (await transitions(inReview.id, editor.cookie)).json().transitions.map((x: { name: string }) => x.name),
      ).to.deep.equal(['reject']);
      expect(
        (await transitions(inReview.id, admin.cookie)).json().transitions.map((x: { name: string }) => x.name),
      ).to.deep.equal(['approve', 'reject']);
      expect((await transitions(randomUUID(), editor.cookie)).statusCode).to.equal(404);
    });

    it('runs a transition, stores the state and announces object.transitioned with from and to', async () => {
      const obj = await seedObject(t.db, classId);
      const res = await run(obj.id, 'submit', editor.cookie);
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.json()).to.include({ id: obj.id, workflowState: 'review', classId });
      expect(res.json().class).to.deep.equal({
        id: classId,
        name: (await t.db('data_classes').where({ id: classId }).first()).name,
      });
      expect(new Date(res.json().updatedAt).getTime()).to.be.greaterThan(new Date(obj.updated_at).getTime());
      expect((await t.db('data_objects').where({ id: obj.id }).first()).workflow_state).to.equal('review');

      expect(events).to.have.length(1);
      expect(events[0]).to.include({ recordType: 'object', recordId: obj.id, kind: 'transitioned' });
      expect(events[0].actor).to.deep.equal({ type: 'user', id: editor.id });
      expect(events[0].data?.transition).to.deep.equal({ from: 'draft', to: 'review' });
      expect((events[0].data!.object as { workflowState: string }).workflowState).to.equal('review');

      const approved = await run(obj.id, 'approve', admin.cookie, { 'x-cms-flow': 'stop' });
      expect(approved.statusCode).to.equal(200);
      expect(events[1].data?.transition).to.deep.equal({ from: 'review', to: 'live' });
      expect(events[1].flags).to.deep.equal({ flow: 'stop' });
    });

    it('answers 403 without a key the transition declares, and changes nothing', async () => {
      const obj = await seedObject(t.db, classId, { workflowState: 'review' });
      const res = await run(obj.id, 'approve', editor.cookie);
      expect(res.statusCode).to.equal(403);
      expect(res.json().message).to.contain('objects:publish');
      expect((await t.db('data_objects').where({ id: obj.id }).first()).workflow_state).to.equal('review');
      expect(events).to.have.length(0);
    });

    it('a transition declaring no keys still needs objects:write', async () => {
      const obj = await seedObject(t.db, classId, { workflowState: 'live' });
      expect((await run(obj.id, 'retract', viewer.cookie)).statusCode).to.equal(403);
      expect((await run(obj.id, 'retract', editor.cookie)).json().workflowState).to.equal('draft');
    });

    it('answers 409 TRANSITION_NOT_ALLOWED from the wrong place', async () => {
      const obj = await seedObject(t.db, classId, { workflowState: 'live' });
      const res = await run(obj.id, 'submit', editor.cookie);
      expect(res.statusCode).to.equal(409);
      expect(res.json().code).to.equal('TRANSITION_NOT_ALLOWED');
      expect((await t.db('data_objects').where({ id: obj.id }).first()).workflow_state).to.equal('live');
      expect(events).to.have.length(0);
    });

    it('answers 400 for an unknown transition and 404 for an unknown object', async () => {
      const obj = await seedObject(t.db, classId);
      const res = await run(obj.id, 'teleport', editor.cookie);
      expect(res.statusCode).to.equal(400);
      expect(res.json()).to.include({ code: 'UNKNOWN_TRANSITION', field: 'transition' });
      expect((await run(randomUUID(), 'submit', editor.cookie)).statusCode).to.equal(404);
      expect(
        (
          await t.inject({
            method: 'POST',
            url: `/data-objects/${obj.id}/transition`,
            headers: { cookie: editor.cookie },
            payload: {},
          })
        ).statusCode,
      ).to.equal(400);
    });

    it('lets only one of two concurrent transitions from the same state succeed', async () => {
      const obj = await seedObject(t.db, classId, { workflowState: 'review' });
      const results = await Promise.all([run(obj.id, 'approve', admin.cookie), run(obj.id, 'reject', admin.cookie)]);
      const codes = results.map((r) => r.statusCode).sort();
      expect(codes).to.deep.equal([200, 409]);
      const winner = results.find((r) => r.statusCode === 200)!.json().workflowState;
      expect((await t.db('data_objects').where({ id: obj.id }).first()).workflow_state).to.equal(winner);
      expect(events).to.have.length(1);
    });
  });

  describe('with classes and objects made through the API', () => {
    it('a new object (workflowState null) is at the initial place until its first transition', async () => {
      const cls = await t.inject({
        method: 'POST',
        url: '/data-classes',
        headers: { cookie: editor.cookie },
        payload: { name: `Article_${randomUUID().slice(0, 8)}`, fields: [{ name: 'title', type: 'text' }] },
      });
      expect(cls.statusCode, cls.body).to.equal(201);
      const workflow = { ...REVIEW_WORKFLOW, initialPlace: 'review' };
      expect((await putWorkflow(workflow, editor.cookie, cls.json().id)).json().initialPlace).to.equal('review');
      const created = await t.inject({
        method: 'POST',
        url: '/data-objects',
        headers: { cookie: editor.cookie },
        payload: { classId: cls.json().id, attributes: { title: 'Hello' } },
      });
      expect(created.statusCode, created.body).to.equal(201);
      const id = created.json().id;
      expect(created.json().workflowState).to.equal(null);
      expect((await transitions(id, admin.cookie)).json().place).to.equal('review');
      events = [];
      expect((await run(id, 'submit', editor.cookie)).statusCode).to.equal(409);
      const approved = await run(id, 'approve', admin.cookie);
      expect(approved.statusCode, approved.body).to.equal(200);
      expect(events.find((e) => e.kind === 'transitioned')?.data?.transition).to.deep.equal({
        from: 'review',
        to: 'live',
      });
      const read = await t.inject({ method: 'GET', url: `/data-objects/${id}`, headers: { cookie: viewer.cookie } });
      expect(read.json().workflowState).to.equal('live');
    });
  });

  describe('DELETE /data-classes/:id/workflow', () => {
    it('removes the workflow; objects keep their state and have no transitions', async () => {
      const cls = await seedClass(t.db);
      expect((await putWorkflow(REVIEW_WORKFLOW, editor.cookie, cls.id)).statusCode).to.equal(200);
      const obj = await seedObject(t.db, cls.id, { workflowState: 'review' });
      expect(
        (
          await t.inject({
            method: 'DELETE',
            url: `/data-classes/${cls.id}/workflow`,
            headers: { cookie: viewer.cookie },
          })
        ).statusCode,
      ).to.equal(403);
      const res = await t.inject({
        method: 'DELETE',
        url: `/data-classes/${cls.id}/workflow`,
        headers: { cookie: editor.cookie },
      });
      expect(res.statusCode).to.equal(204);
      const got = await t.inject({
        method: 'GET',
        url: `/data-classes/${cls.id}/workflow`,
        headers: { cookie: editor.cookie },
      });
      expect(got.statusCode).to.equal(404);
      expect(got.json().code).to.equal('NO_WORKFLOW');
      expect((await t.db('data_objects').where({ id: obj.id }).first()).workflow_state).to.equal('review');
      expect((await transitions(obj.id, admin.cookie)).json()).to.deep.equal({ place: 'review', transitions: [] });
      expect((await run(obj.id, 'approve', admin.cookie)).json().code).to.equal('UNKNOWN_TRANSITION');
      expect(
        (
          await t.inject({
            method: 'DELETE',
            url: `/data-classes/${randomUUID()}/workflow`,
            headers: { cookie: editor.cookie },
          })
        ).statusCode,
      ).to.equal(404);
    });
  });
});
