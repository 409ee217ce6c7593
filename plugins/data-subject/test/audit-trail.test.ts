import { expect } from 'chai';
import { definePlugin } from '../../../kernel/index.ts';
import { auditRows, startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';

/** A source of a test plugin that fails on demand: half-way through the export, or in the erase. */
function failingSource() {
  const fail = { records: true, erase: true };
  const plugin = definePlugin({
    id: 'failing-source',
    processes: ['core-api'],
    needs: [],
    contributes: {
      dataSubjectSources: () => ({
        kind: 'probes',
        async find() {
          return { kind: 'probes', count: 1, items: [] };
        },
        async *records() {
          yield { id: 'probe-1' };
          if (fail.records) throw new Error('the source broke half-way');
        },
        async erase() {
          // Stands for a process that dies after the objects went: nothing after this point runs.
          if (fail.erase) throw new Error('the process died');
          return { kind: 'probes', erased: 0, kept: [] };
        },
      }),
    },
  });
  return { plugin, fail };
}

/**
 * Audit rows exist for what happened (issue 30, items 7 and 8): the export is audited before its
 * first record leaves, and a real erase writes a started row before its first deletion, which the
 * next run of the same person completes.
 */
describe('data-subject: audit rows exist for what happened', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: TestUser;
  const probe = failingSource();

  before(async () => {
    t = await startTestKernel({
      plugins: ['identity', 'data', 'data-subject'],
      extraPlugins: [probe.plugin],
      env: { DATA_SUBJECT_RATE_LIMIT_PER_MINUTE: '1000' },
    });
    admin = await t.admin();
    const made = await t.call('POST', '/data-classes', admin, {
      name: 'person',
      fields: [{ name: 'email', type: 'text' }],
    });
    expect(made.statusCode, made.body).to.equal(201);
  });
  after(() => t?.close());

  it('an export that breaks off after its first records was audited before they left', async () => {
    const res = await t
      .call('POST', '/data-subject/export', admin, { identifier: 'kim@example.test' })
      .catch((err: Error) => err);
    if (!(res instanceof Error)) expect(res.body).to.include('probe-1');
    const rows = await auditRows(t, 'data_subject.export');
    expect(rows).to.have.length(1);
    expect(rows[0].target_id).to.match(/^hmac:/);
  });

  it('an erase that dies half-way left a started row; the re-run completes it and says so', async () => {
    const ids: string[] = [];
    for (const key of ['a', 'b']) {
      const res = await t.call('POST', '/data-objects', admin, {
        className: 'person',
        key,
        attributes: { email: 'lou@example.test' },
      });
      ids.push(res.json().id);
    }
    const body = { identifier: 'lou@example.test', dryRun: false, confirm: 'lou@example.test' };
    const died = await t.call('POST', '/data-subject/erase', admin, body);
    expect(died.statusCode).to.equal(500);
    for (const id of ids) expect((await t.call('GET', `/data-objects/${id}`, admin)).statusCode).to.equal(404);
    const [started] = await auditRows(t, 'data_subject.erase.started');
    expect(started, 'a row from before the first deletion').to.not.equal(undefined);
    expect(started.after).to.deep.include({ found: { objects: 2, probes: 1, accounts: 0 }, resumes: [] });
    expect(await auditRows(t, 'data_subject.erase')).to.have.length(0);

    probe.fail.erase = false;
    const rerun = await t.call('POST', '/data-subject/erase', admin, body);
    expect(rerun.statusCode, rerun.body).to.equal(200);
    const starts = await auditRows(t, 'data_subject.erase.started');
    expect(starts).to.have.length(2);
    const [done] = await auditRows(t, 'data_subject.erase');
    const second = starts.find((s: { after: { runId: string } }) => s.after.runId !== started.after.runId);
    expect(second.after.resumes).to.deep.equal([started.after.runId]);
    expect(done.after).to.deep.include({ runId: second.after.runId, completes: [started.after.runId] });
    expect(done.target_id).to.equal(started.target_id);
    // Finished: a third run resumes nothing.
    await t.call('POST', '/data-subject/erase', admin, body);
    const third = (await auditRows(t, 'data_subject.erase.started')).find(
      (s: { after: { runId: string } }) => ![started.after.runId, second.after.runId].includes(s.after.runId),
    );
    expect(third.after.resumes).to.deep.equal([]);
  });
});
