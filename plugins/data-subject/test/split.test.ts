import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';

const TOKEN = 'split-data-subject-token-0123456789';
const SUBJECT = 'Rita.Lind@Example.test';

/** Uploads a small PDF with metadata to a kernel's library as `user`. */
async function upload(t: TestKernel, user: TestUser, name: string, metadata: Record<string, unknown>) {
  const boundary = `----ds${randomBytes(6).toString('hex')}`;
  const part = (k: string, v: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`;
  const payload = Buffer.concat([
    Buffer.from(part('folder', 'people') + part('visibility', 'private') + part('metadata', JSON.stringify(metadata))),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/pdf\r\n\r\n`,
    ),
    Buffer.from(`%PDF-1.4\n% ${name}\n%%EOF\n`),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const res = await t.inject({
    method: 'POST',
    url: '/api/v1/dam/upload',
    payload,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, cookie: user.cookie },
  });
  expect(res.statusCode, res.body).to.equal(201);
  return res.json() as { id: string; path: string };
}

/**
 * The split deployment: core-api and the asset-processor are two kernels on two databases and two
 * file stores, the asset-processor listening on a real port. core-api's data-subject files (search,
 * export, erase) can only come from the asset-processor over HTTP with DAM_SERVICE_TOKEN.
 */
describe('data-subject in the split deployment: files through the asset-processor over HTTP', function () {
  this.timeout(120_000);
  let processor: TestKernel;
  let core: TestKernel;
  let admin: TestUser;
  let url: string;
  const ids: Record<string, string> = {};

  before(async () => {
    processor = await startTestKernel({
      service: 'asset-processor',
      plugins: ['assets'],
      ownDataDir: true,
      env: { DAM_SERVICE_TOKEN: TOKEN },
    });
    await processor.kernel.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = processor.kernel.app.server.address() as { port: number };
    url = `http://127.0.0.1:${port}/api/v1`;
    core = await startTestKernel({
      service: 'core-api',
      plugins: ['identity', 'data', 'assets', 'mail', 'data-subject'],
      ownDataDir: true,
      env: {
        DAM_SERVICE_TOKEN: TOKEN,
        ASSET_SERVICE_URL: url,
        MAIL_WORKER_ENABLED: '0',
        DATA_SUBJECT_RATE_LIMIT_PER_MINUTE: '1000',
      },
    });
    admin = await core.admin();
    const pAdmin = await processor.admin();
    const signed = await upload(processor, pAdmin, 'contract.pdf', { signedBy: 'rita.lind@example.test' });
    const portrait = await upload(processor, pAdmin, 'portrait.pdf', { caption: 'portrait' });
    const other = await upload(processor, pAdmin, 'other.pdf', { caption: 'someone else' });
    Object.assign(ids, { signed: signed.id, portrait: portrait.id, other: other.id });
    // Uploaded by visitors through a form, as the form attach records it (this asset-processor loads
    // no forms plugin): only such files are a person's own to erase.
    await processor
      .db('assets')
      .whereIn('id', [portrait.id, other.id])
      .update({ form_upload_id: processor.db.raw('gen_random_uuid()') });
    const made = await core.call('POST', '/data-classes', admin, {
      name: 'customer',
      fields: [
        { name: 'email', type: 'text' },
        { name: 'photo', type: 'asset' },
      ],
    });
    expect(made.statusCode, made.body).to.equal(201);
    for (const [key, attributes] of [
      ['rita', { email: SUBJECT, photo: portrait.path }],
      ['rita-2', { email: 'RITA.LIND@example.test' }],
    ] as const) {
      const res = await core.call('POST', '/data-objects', admin, { className: 'customer', key, attributes });
      expect(res.statusCode, res.body).to.equal(201);
      ids[key] = res.json().id;
    }
  });
  after(async () => {
    await core?.close();
    await processor?.close();
  });

  it('search and export list the files the asset-processor holds (core-api has none of its own)', async () => {
    expect(Number((await core.db('assets').count('* as n'))[0].n)).to.equal(0);
    const res = await core.call('POST', '/data-subject/search', admin, { identifier: SUBJECT });
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.json().counts).to.include({ objects: 2, files: 2 });
    expect(
      Object.fromEntries(
        res.json().results.files.map((f: { label: string; matched: string[] }) => [f.label, f.matched]),
      ),
    ).to.deep.equal({ 'people/contract.pdf': ['metadata'], 'people/portrait.pdf': ['attached'] });

    const exported = await core.call('POST', '/data-subject/export', admin, { identifier: SUBJECT });
    expect(exported.statusCode, exported.body).to.equal(200);
    const files = exported.json().records.files as Array<{ path: string; metadata: unknown }>;
    expect(files.map((f) => f.path).sort()).to.deep.equal(['people/contract.pdf', 'people/portrait.pdf']);
    expect(files.find((f) => f.path === 'people/contract.pdf')!.metadata).to.deep.equal({
      signedBy: 'rita.lind@example.test',
    });
  });

  it('erase deletes the files in the asset-processor first; a file it cannot delete keeps its object; a re-run finishes', async () => {
    const dry = await core.call('POST', '/data-subject/erase', admin, { identifier: SUBJECT });
    // The contract only names the person in its metadata: reported, not erased.
    expect(dry.json()).to.deep.include({ dryRun: true, erased: { files: 1, objects: 2, mails: 0 } });
    expect(dry.json().reported.map((r: { id: string }) => r.id)).to.deep.equal([ids.signed]);
    expect(await processor.db('assets').whereIn('id', [ids.signed, ids.portrait])).to.have.length(2);

    const storage = processor.services<{ storage: { deletePrefix(p: string): Promise<number> } }>('assets').storage;
    const original = storage.deletePrefix.bind(storage);
    storage.deletePrefix = async (prefix) => {
      if (prefix.includes(ids.portrait!)) throw new Error('store unavailable');
      return original(prefix);
    };
    const events = processor.recordChanges('asset');
    const first = await core.call('POST', '/data-subject/erase', admin, {
      identifier: SUBJECT,
      dryRun: false,
      confirm: SUBJECT,
    });
    storage.deletePrefix = original;
    expect(first.statusCode, first.body).to.equal(200);
    expect(first.json()).to.deep.include({ erased: { files: 0, objects: 1, mails: 0 }, complete: false });
    expect(first.json().kept.map((k: { kind: string; id: string }) => [k.kind, k.id])).to.deep.equal([
      ['files', ids.portrait],
      ['objects', ids.rita],
    ]);
    expect(first.json().kept[1].reason).to.match(/people\/portrait\.pdf could not be deleted: .*store unavailable/);
    expect(await processor.db('assets').where({ id: ids.signed }).first()).to.not.equal(undefined);
    expect(events.filter((e) => e.kind === 'deleted')).to.deep.equal([]);

    const second = await core.call('POST', '/data-subject/erase', admin, {
      identifier: SUBJECT,
      dryRun: false,
      confirm: SUBJECT,
    });
    expect(second.json()).to.deep.include({ erased: { files: 1, objects: 1, mails: 0 }, kept: [], complete: true });
    expect(await processor.db('assets').where({ id: ids.portrait })).to.have.length(0);
    expect(await processor.db('assets').where({ id: ids.signed })).to.have.length(1);
    expect(events.filter((e) => e.kind === 'deleted').map((e) => [e.recordId, e.actor])).to.deep.equal([
      [ids.portrait, { type: 'user', id: admin.id }],
    ]);
    expect(await processor.db('assets').where({ id: ids.other }).first()).to.not.equal(undefined);
    expect((await core.call('GET', `/data-objects/${ids.rita}`, admin)).statusCode).to.equal(404);
  });

  it('a person whose objects name 70,000 files: the asset service takes the whole list (one array parameter)', async () => {
    const linkedFiles = Array.from({ length: 70_000 }, (_, i) => `people/none-${i}.pdf`);
    linkedFiles.push('people/other.pdf');
    const res = await processor.inject({
      method: 'POST',
      url: '/api/v1/dam/data-subject/find',
      payload: { identifier: 'nobody@example.test', options: { linkedFiles, limit: 5 } },
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.statusCode, res.body.slice(0, 300)).to.equal(200);
    expect(res.json()).to.deep.include({ count: 1 });
    expect(res.json().items[0]).to.include({ id: ids.other, label: 'people/other.pdf' });
  });

  it('the asset-processor refuses the routes without the token; core-api with a wrong token answers 502, erasing nothing', async () => {
    for (const path of ['find', 'records', 'erase']) {
      const res = await processor.inject({
        method: 'POST',
        url: `/api/v1/dam/data-subject/${path}`,
        payload: { identifier: SUBJECT, options: {}, dryRun: false },
        headers: { authorization: 'Bearer not-the-token-0123456789' },
      });
      expect(res.statusCode, path).to.equal(401);
      // With the token, the body is checked: a 400 naming the problem, nothing done.
      for (const payload of [
        { identifier: '', options: {} },
        { identifier: SUBJECT, options: { linkedFiles: 'x' }, extra: 1 },
        { identifier: SUBJECT, options: { limit: -1 } },
        { identifier: 'x'.repeat(321), options: {} },
        { identifier: 'rita\u0000@example.test', options: {} },
        { identifier: SUBJECT, options: { linkedFiles: ['\ud800'] } },
        '{"identifier": ',
        [],
      ]) {
        const bad = await processor.inject({
          method: 'POST',
          url: `/api/v1/dam/data-subject/${path}`,
          payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        });
        expect(bad.statusCode, `${path} ${JSON.stringify(payload)}`).to.equal(400);
      }
    }
    const wrong = await startTestKernel({
      service: 'core-api',
      plugins: ['identity', 'data', 'assets', 'data-subject'],
      ownDataDir: true,
      env: { DAM_SERVICE_TOKEN: 'another-token-0123456789abcdef', ASSET_SERVICE_URL: url },
    });
    try {
      const other = await wrong.admin();
      const res = await wrong.call('POST', '/data-subject/erase', other, {
        identifier: 'someone@example.test',
        dryRun: false,
        confirm: 'someone@example.test',
      });
      expect(res.statusCode, res.body).to.equal(502);
      expect(res.json().message).to.match(/asset service/);
      expect(await wrong.db('audit_log').where('action', 'data_subject.erase')).to.have.length(0);
    } finally {
      await wrong.close();
    }
  });
});
