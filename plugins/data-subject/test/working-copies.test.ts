import { expect } from 'chai';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';

const SUBJECT = 'Lena.Voss@Example.test';

/**
 * Personal data inside a working copy (a draft of a published object): found by a search, exported
 * beside the live record, erased. An object whose copy alone names the person loses the copy and keeps
 * its live row; one whose live row names her is deleted with its copy.
 */
describe('data-subject: working copies of objects', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: TestUser;
  const ids: Record<string, string> = {};

  before(async () => {
    t = await startTestKernel({
      plugins: ['identity', 'data', 'data-subject'],
      env: { DATA_SUBJECT_RATE_LIMIT_PER_MINUTE: '1000' },
    });
    admin = await t.admin();
    const ok = async (res: ReturnType<TestKernel['call']>, status: number) => {
      const answer = await res;
      expect(answer.statusCode, answer.body).to.equal(status);
      return answer.json();
    };
    await ok(
      t.call('POST', '/data-classes', admin, {
        name: 'contact',
        fields: [
          { name: 'email', type: 'text' },
          { name: 'note', type: 'text' },
        ],
      }),
      201,
    );
    const create = async (key: string, attributes: Record<string, unknown>) =>
      (
        await ok(
          t.call('POST', '/data-objects', admin, { className: 'contact', key, published: true, attributes }),
          201,
        )
      ).id as string;
    // Only the working copy names her.
    ids.copyOnly = await create('copy-only', { email: 'someone@example.test', note: 'x' });
    await ok(
      t.call('PATCH', `/data-objects/${ids.copyOnly}?draft=true`, admin, { attributes: { email: SUBJECT } }),
      200,
    );
    // The live row and the copy name her.
    ids.both = await create('both', { email: SUBJECT, note: 'y' });
    await ok(
      t.call('PATCH', `/data-objects/${ids.both}?draft=true`, admin, { attributes: { note: SUBJECT.toUpperCase() } }),
      200,
    );
    // Neither: a copy of someone else.
    ids.other = await create('other', { email: 'other@example.test' });
    await ok(t.call('PATCH', `/data-objects/${ids.other}?draft=true`, admin, { attributes: { note: 'changed' } }), 200);
  });
  after(() => t?.close());

  it('search finds a person named only in a working copy, and says which fields', async () => {
    const res = await t.call('POST', '/data-subject/search', admin, { identifier: SUBJECT });
    expect(res.statusCode, res.body).to.equal(200);
    const objects = res.json().results.objects as Array<{ id: string; matched: string[]; label: string }>;
    expect(res.json().counts.objects).to.equal(2);
    expect(Object.fromEntries(objects.map((o) => [o.id, o.matched]))).to.deep.equal({
      [ids.copyOnly]: ['workingCopy.email'],
      // The copy holds every attribute: the live one's e-mail too.
      [ids.both]: ['email', 'workingCopy.email', 'workingCopy.note'],
    });
    expect(objects.find((o) => o.id === ids.copyOnly)!.label).to.include('(working copy)');
  });

  it('export carries the working copy beside the live record', async () => {
    const res = await t.call('POST', '/data-subject/export', admin, { identifier: SUBJECT });
    expect(res.statusCode, res.body).to.equal(200);
    const records = res.json().records.objects as Array<{
      id: string;
      attributes: Record<string, unknown>;
      workingCopy?: { attributes: Record<string, unknown> };
    }>;
    const copyOnly = records.find((r) => r.id === ids.copyOnly)!;
    expect(copyOnly.attributes.email).to.equal('someone@example.test');
    expect(copyOnly.workingCopy!.attributes.email).to.equal(SUBJECT);
    expect(records.find((r) => r.id === ids.both)!.workingCopy!.attributes.note).to.equal(SUBJECT.toUpperCase());
    expect(records.map((r) => r.id)).to.not.include(ids.other);
  });

  it('erase discards a copy that alone names her (live row stays) and deletes an object whose live row does', async () => {
    const dry = await t.call('POST', '/data-subject/erase', admin, { identifier: SUBJECT });
    expect(dry.json().erased.objects).to.equal(2);
    expect(await t.db('data_object_drafts').whereIn('object_id', [ids.copyOnly, ids.both])).to.have.length(2);

    const res = await t.call('POST', '/data-subject/erase', admin, {
      identifier: SUBJECT,
      dryRun: false,
      confirm: SUBJECT,
    });
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.json()).to.deep.include({ erased: { objects: 2 }, complete: true });
    const kept = (await t.call('GET', `/data-objects/${ids.copyOnly}`, admin)).json();
    expect(kept.attributes.email).to.equal('someone@example.test');
    expect(kept).to.not.have.property('draft');
    expect((await t.call('GET', `/data-objects/${ids.both}`, admin)).statusCode).to.equal(404);
    expect(await t.db('data_object_drafts').whereIn('object_id', [ids.copyOnly, ids.both])).to.have.length(0);
    // Someone else's working copy is untouched.
    expect((await t.call('GET', `/data-objects/${ids.other}`, admin)).json().attributes.note).to.equal('changed');
    const after = await t.call('POST', '/data-subject/search', admin, { identifier: SUBJECT });
    expect(after.json().counts.objects).to.equal(0);
  });
});
