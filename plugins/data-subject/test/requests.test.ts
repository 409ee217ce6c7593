import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { auditRows, startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';

const SUBJECT = 'Anna.Berg@Example.test';

interface Found {
  id: string;
  label: string;
  matched: string[];
  class?: string;
}

/**
 * Data-subject requests through the HTTP surface: a person whose e-mail is in objects of two classes
 * (nested inside a JSON value too), a file's metadata and the mail log is searched, exported and
 * erased; a file-store failure keeps the file and the object that refers to it, and a second erase
 * finishes; permission, rate limit and audit rows without the identifier in clear.
 */
describe('data-subject: search, export, erase', function () {
  this.timeout(120_000);
  let t: TestKernel;
  let admin: TestUser;
  const ids: Record<string, string> = {};

  before(async () => {
    t = await startTestKernel({
      plugins: ['identity', 'data', 'assets', 'mail', 'data-subject'],
      ownDataDir: true,
      env: { MAIL_WORKER_ENABLED: '0', DATA_SUBJECT_RATE_LIMIT_PER_MINUTE: '1000' },
    });
    admin = await t.admin();
    const upload = async (name: string, metadata: Record<string, unknown>) => {
      const boundary = `----ds${randomBytes(6).toString('hex')}`;
      const part = (k: string, v: string) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`;
      const payload = Buffer.concat([
        Buffer.from(
          part('folder', 'people') + part('visibility', 'private') + part('metadata', JSON.stringify(metadata)),
        ),
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
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, cookie: admin.cookie },
      });
      expect(res.statusCode, res.body).to.equal(201);
      return res.json() as { id: string; path: string };
    };
    const create = async (path: string, body: unknown) => {
      const res = await t.call('POST', path, admin, body);
      expect(res.statusCode, res.body).to.equal(201);
      return res.json().id as string;
    };
    await create('/data-classes', {
      name: 'customer',
      fields: [
        { name: 'email', type: 'text' },
        { name: 'photo', type: 'asset' },
        { name: 'profile', type: 'json' },
      ],
    });
    await create('/data-classes', {
      name: 'ticket',
      fields: [
        { name: 'subject', type: 'text' },
        { name: 'body', type: 'text' },
      ],
    });
    const signed = await upload('contract.pdf', { signedBy: 'anna.berg@example.test' });
    const portrait = await upload('portrait.pdf', { caption: 'portrait' });
    const unrelated = await upload('other.pdf', { caption: 'anna.berg@example.test.old' });
    Object.assign(ids, { signed: signed.id, portrait: portrait.id, unrelated: unrelated.id });
    // The portrait came in through a public form, as the form attach records it (own-files.test.ts
    // walks that flow): only such files are the person's own to erase.
    await t
      .db('assets')
      .where({ id: portrait.id })
      .update({ form_upload_id: t.db.raw('gen_random_uuid()') });
    ids.customer = await create('/data-objects', {
      className: 'customer',
      key: 'anna',
      attributes: { email: SUBJECT, photo: portrait.path },
    });
    ids.ticket = await create('/data-objects', {
      className: 'ticket',
      key: 't-1',
      attributes: { subject: 'Refund', body: 'see profile' },
    });
    ids.nested = await create('/data-objects', {
      className: 'customer',
      key: 'anna-2',
      attributes: { profile: { contacts: [{ kind: 'mail', value: 'ANNA.BERG@example.test' }] } },
    });
    ids.ticketOfAnna = await create('/data-objects', {
      className: 'ticket',
      key: 't-2',
      attributes: { subject: 'anna.berg@example.test', body: 'Write to anna.berg@example.test soon' },
    });
    const port = t.kernel.resolve('mail');
    await port.send({ to: 'anna.berg@example.test', subject: 'Welcome', text: 'Hello', kind: 'ds' });
    await port.send({ to: 'shop@example.test', subject: 'About anna.berg@example.test', text: 'x', kind: 'ds' });
    // Delivered (the worker is off here): a mail still queued is reported, not erased.
    await t.db('mail_outbox').update({ status: 'sent' });
  });
  after(() => t?.close());

  it('search: objects of two classes (nested values too, whole values only), files by metadata and attached, mails', async () => {
    const res = await t.call('POST', '/data-subject/search', admin, { identifier: ` ${SUBJECT} ` });
    expect(res.statusCode, res.body).to.equal(200);
    const body = res.json();
    expect(body.counts).to.deep.equal({ objects: 3, mails: 1, files: 2, accounts: 0 });
    const objects = body.results.objects as Found[];
    expect(objects.map((o) => o.id).sort()).to.deep.equal([ids.customer, ids.nested, ids.ticketOfAnna].sort());
    expect(objects.find((o) => o.id === ids.nested)).to.include({ class: 'customer' });
    expect(objects.find((o) => o.id === ids.nested)!.matched).to.deep.equal(['profile.contacts.0.value']);
    expect(objects.find((o) => o.id === ids.ticketOfAnna)!.matched).to.deep.equal(['subject']);
    const files = body.results.files as Found[];
    expect(Object.fromEntries(files.map((f) => [f.label, f.matched]))).to.deep.equal({
      'people/contract.pdf': ['metadata'],
      'people/portrait.pdf': ['attached'],
    });
    expect(body.notSearched).to.deep.equal([]);

    const inText = await t.call('POST', '/data-subject/search', admin, {
      identifier: SUBJECT,
      options: { lookInsideText: true, classes: ['ticket'] },
    });
    expect(inText.json().counts).to.include({ objects: 1, mails: 2 });
  });

  it('export: a JSON download named data-subject-<12 hex>.json with the records and the files', async () => {
    const res = await t.call('POST', '/data-subject/export', admin, { identifier: SUBJECT });
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.headers['content-disposition']).to.match(/^attachment; filename="data-subject-[0-9a-f]{12}\.json"$/);
    expect(res.headers['cache-control']).to.equal('no-store');
    const body = res.json();
    expect(body.records.objects.map((o: { key: string }) => o.key).sort()).to.deep.equal(['anna', 'anna-2', 't-2']);
    expect(body.records.files.map((f: { path: string }) => f.path).sort()).to.deep.equal([
      'people/contract.pdf',
      'people/portrait.pdf',
    ]);
    expect(body.records.mails).to.have.length(1);
    expect(body.records.mails[0]).to.include({ subject: 'Welcome', secrets_sealed: null });
  });

  it('erase: a dry run by default; a real run needs confirm; a file-store failure keeps the file and its object; a re-run finishes', async () => {
    const dry = await t.call('POST', '/data-subject/erase', admin, { identifier: SUBJECT });
    expect(dry.statusCode, dry.body).to.equal(200);
    expect(dry.json()).to.deep.include({ dryRun: true, erased: { files: 1, objects: 3, mails: 1 }, complete: true });
    // The contract only names her in its metadata: found and exported, reported, never erased.
    expect(dry.json().reported.map((r: { id: string }) => r.id)).to.deep.equal([ids.signed]);
    expect(dry.json().notTouched).to.include('audit log');
    expect((await t.call('GET', `/data-objects/${ids.customer}`, admin)).statusCode).to.equal(200);

    const unconfirmed = await t.call('POST', '/data-subject/erase', admin, { identifier: SUBJECT, dryRun: false });
    expect(unconfirmed.statusCode).to.equal(400);
    expect(unconfirmed.json()).to.include({ code: 'CONFIRMATION_REQUIRED', field: 'confirm' });

    // The store refuses to delete the portrait's bytes once.
    const storage = t.services<{ storage: { deletePrefix(p: string): Promise<number> } }>('assets').storage;
    const original = storage.deletePrefix.bind(storage);
    storage.deletePrefix = async (prefix) => {
      if (prefix.includes(ids.portrait!)) throw new Error('store unavailable');
      return original(prefix);
    };
    const events = t.recordChanges('object');
    const first = await t.call('POST', '/data-subject/erase', admin, {
      identifier: SUBJECT,
      dryRun: false,
      confirm: SUBJECT,
    });
    storage.deletePrefix = original;
    expect(first.statusCode, first.body).to.equal(200);
    const answer = first.json();
    expect(answer).to.deep.include({ dryRun: false, erased: { files: 0, objects: 2, mails: 1 }, complete: false });
    expect(answer.kept.map((k: { kind: string; id: string }) => [k.kind, k.id])).to.deep.equal([
      ['files', ids.portrait],
      ['objects', ids.customer],
    ]);
    expect(answer.kept[1].reason).to.match(/people\/portrait\.pdf could not be deleted: .*store unavailable/);
    expect(
      events
        .filter((e) => e.kind === 'deleted')
        .map((e) => e.recordId)
        .sort(),
    ).to.deep.equal([ids.nested, ids.ticketOfAnna].sort());
    expect((await t.call('GET', `/data-objects/${ids.customer}`, admin)).statusCode).to.equal(200);
    expect((await t.call('GET', `/data-objects/${ids.ticket}`, admin)).statusCode).to.equal(200);

    const second = await t.call('POST', '/data-subject/erase', admin, {
      identifier: SUBJECT,
      dryRun: false,
      confirm: SUBJECT,
    });
    expect(second.json()).to.deep.include({ erased: { files: 1, objects: 1, mails: 0 }, kept: [], complete: true });
    expect((await t.call('GET', `/data-objects/${ids.customer}`, admin)).statusCode).to.equal(404);
    const after = (await t.call('POST', '/data-subject/search', admin, { identifier: SUBJECT })).json();
    expect(after.counts).to.deep.equal({ objects: 0, mails: 0, files: 1, accounts: 0 });
    expect(await t.db('assets').where({ id: ids.signed }).first()).to.not.equal(undefined);
    // The unrelated file (the identifier is only part of a longer value) is still there.
    expect(await t.db('assets').where({ id: ids.unrelated }).first()).to.not.equal(undefined);
  });

  it('staff accounts are reported only; audit rows carry a keyed fingerprint, never the identifier', async () => {
    const { staff } = await t.users({ staff: ['objects:read'] });
    const email = (await t.db('users').where({ id: staff.id }).first()).email as string;
    const search = (await t.call('POST', '/data-subject/search', admin, { identifier: email.toUpperCase() })).json();
    expect(search.counts.accounts).to.equal(1);
    const erase = await t.call('POST', '/data-subject/erase', admin, {
      identifier: email,
      dryRun: false,
      confirm: email,
    });
    expect(erase.json().reportedOnly).to.deep.equal({ accounts: 1 });
    expect(erase.json().reported).to.deep.equal([]);
    expect(await t.db('users').where({ id: staff.id }).first()).to.not.equal(undefined);

    const rows = await t.db('audit_log').where('action', 'like', 'data_subject.%');
    expect(new Set(rows.map((r: { action: string }) => r.action))).to.deep.equal(
      new Set(['data_subject.search', 'data_subject.export', 'data_subject.erase', 'data_subject.erase.started']),
    );
    for (const row of rows) {
      const text = JSON.stringify(row).toLowerCase();
      expect(text).to.not.include('anna.berg');
      expect(text).to.not.include(email.toLowerCase());
      expect(row.target_id).to.match(/^hmac:[0-9a-f]{32}$/);
    }
    const [one] = await auditRows(t, 'data_subject.erase');
    expect(one.target_type).to.equal('data_subject');
  });
});

describe('data-subject: access, limits and missing plugins', function () {
  this.timeout(60_000);
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({
      plugins: ['identity', 'data', 'data-subject'],
      env: { DATA_SUBJECT_RATE_LIMIT_PER_MINUTE: '3' },
    });
  });
  after(() => t?.close());

  it('needs data_subject:manage (401, 403) and a non-blank identifier (400 naming it)', async () => {
    const { editor } = await t.users({ editor: ['objects:read', 'objects:write'] });
    for (const path of ['/data-subject/search', '/data-subject/export', '/data-subject/erase']) {
      expect((await t.call('POST', path, null, { identifier: 'a@b.test' })).statusCode, path).to.equal(401);
      expect((await t.call('POST', path, editor, { identifier: 'a@b.test' })).statusCode, path).to.equal(403);
    }
    const { officer } = await t.users({ officer: ['data_subject:manage'] });
    const blank = await t.call('POST', '/data-subject/search', officer, { identifier: '   ' });
    expect(blank.statusCode).to.equal(400);
    expect(blank.json()).to.include({ field: 'identifier' });
  });

  it('a plugin that is not loaded contributes nothing and the answer says so; scans are limited per administrator', async () => {
    const { dpo, other } = await t.users({ dpo: ['data_subject:manage'], other: ['data_subject:manage'] });
    const first = await t.call('POST', '/data-subject/search', dpo, { identifier: 'x@example.test' });
    expect(first.statusCode).to.equal(200);
    expect(first.json().notSearched).to.deep.equal([
      { kind: 'files', plugin: 'assets', reason: 'the assets plugin is not loaded' },
      { kind: 'mails', plugin: 'mail', reason: 'the mail plugin is not loaded' },
    ]);
    await t.call('POST', '/data-subject/export', dpo, { identifier: 'x@example.test' });
    await t.call('POST', '/data-subject/erase', dpo, { identifier: 'x@example.test' });
    const limited = await t.call('POST', '/data-subject/search', dpo, { identifier: 'x@example.test' });
    expect(limited.statusCode).to.equal(429);
    expect(Number(limited.headers['retry-after'])).to.be.greaterThan(0);
    expect((await t.call('POST', '/data-subject/search', other, { identifier: 'x@example.test' })).statusCode).to.equal(
      200,
    );
  });
});
