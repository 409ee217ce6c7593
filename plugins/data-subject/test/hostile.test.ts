import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { definePlugin } from '../../../kernel/index.ts';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';

/** A source of a test plugin that counts how often it is asked (was any work done?). */
function countingSource() {
  const calls = { find: 0, records: 0, erase: 0 };
  const plugin = definePlugin({
    id: 'probe-source',
    processes: ['core-api'],
    needs: [],
    contributes: {
      dataSubjectSources: () => ({
        kind: 'probes',
        async find() {
          calls.find++;
          return { kind: 'probes', count: 0, items: [] };
        },
        async *records() {
          calls.records++;
          yield* [];
        },
        async erase() {
          calls.erase++;
          return { kind: 'probes', erased: 0, kept: [] };
        },
      }),
    },
  });
  return { plugin, calls };
}

describe('data-subject: DATA_SUBJECT_FINGERPRINT_KEY is checked before any work', function () {
  this.timeout(60_000);

  it('production without the key: 503 naming it, no source asked, nothing erased, no audit row; with it, the same calls work', async () => {
    for (const key of [undefined, 'a-passphrase-for-the-fingerprints']) {
      const probe = countingSource();
      const t = await startTestKernel({
        plugins: ['identity', 'data', 'data-subject'],
        extraPlugins: [probe.plugin],
        env: {
          NODE_ENV: 'production',
          TOTP_ENCRYPTION_KEY: 'k'.repeat(64),
          ...(key ? { DATA_SUBJECT_FINGERPRINT_KEY: key } : {}),
        },
      });
      try {
        const admin = await t.admin();
        const made = await t.call('POST', '/data-classes', admin, {
          name: 'person',
          fields: [{ name: 'email', type: 'text' }],
        });
        expect(made.statusCode, made.body).to.equal(201);
        const object = await t.call('POST', '/data-objects', admin, {
          className: 'person',
          attributes: { email: 'kim@example.test' },
        });
        expect(object.statusCode, object.body).to.equal(201);
        const identifier = 'kim@example.test';
        for (const path of ['search', 'export', 'erase']) {
          const body = path === 'erase' ? { identifier, dryRun: false, confirm: identifier } : { identifier };
          const res = await t.call('POST', `/data-subject/${path}`, admin, body);
          if (key) {
            expect(res.statusCode, `${path} ${res.body}`).to.equal(200);
            continue;
          }
          expect(res.statusCode, path).to.equal(503);
          expect(res.json()).to.include({ code: 'SECRET_KEY_MISSING' });
          expect(res.json().message).to.include('DATA_SUBJECT_FINGERPRINT_KEY');
          expect(res.headers['content-disposition']).to.equal(undefined);
        }
        const stillThere = (await t.call('GET', `/data-objects/${object.json().id}`, admin)).statusCode;
        const audited = await t.db('audit_log').where('action', 'like', 'data_subject.%');
        if (key) {
          expect(probe.calls.find).to.be.greaterThan(0);
          expect(probe.calls.erase).to.equal(1);
          expect(stillThere).to.equal(404);
          // search, export, and the erase's started and finished rows
          expect(audited).to.have.length(4);
        } else {
          expect(probe.calls).to.deep.equal({ find: 0, records: 0, erase: 0 });
          expect(stillThere).to.equal(200);
          expect(audited).to.have.length(0);
        }
      } finally {
        await t.close();
      }
    }
  });
});

describe('data-subject: hostile identifiers, concurrent erases, the scan limit', function () {
  this.timeout(120_000);
  let t: TestKernel;
  let admin: TestUser;
  const ids: Record<string, string> = {};

  const search = (identifier: string, options?: Record<string, unknown>) =>
    t.call('POST', '/data-subject/search', admin, { identifier, ...(options ? { options } : {}) });

  before(async () => {
    t = await startTestKernel({
      plugins: ['identity', 'data', 'assets', 'mail', 'data-subject'],
      ownDataDir: true,
      env: { MAIL_WORKER_ENABLED: '0', DATA_SUBJECT_RATE_LIMIT_PER_MINUTE: '1000' },
    });
    admin = await t.admin();
    const made = await t.call('POST', '/data-classes', admin, {
      name: 'contact',
      fields: [
        { name: 'value', type: 'text' },
        { name: 'photo', type: 'asset' },
      ],
    });
    expect(made.statusCode, made.body).to.equal(201);
    for (const [key, value] of [
      ['plain', 'anna@example.test'],
      ['percent', '100% off'],
      ['underscore', 'a_b@example.test'],
      ['quote', 'o"brien@example.test'],
      ['backslash', 'C:\\Users\\kim'],
      ['unicode', 'ÅSA.ÖBERG@EXAMPLE.TEST'],
      ['german', 'Jürgen@Straße.test'],
    ] as const) {
      const res = await t.call('POST', '/data-objects', admin, { className: 'contact', key, attributes: { value } });
      expect(res.statusCode, res.body).to.equal(201);
      ids[key] = res.json().id;
    }
    const port = t.kernel.resolve('mail');
    await port.send({ to: 'a.b@example.test', subject: 'Hello a.b@example.test', text: 'x', kind: 'ds' });
    await port.send({ to: 'shop@example.test', subject: 'About axb@example.test', text: 'x', kind: 'ds' });
    await port.send({
      to: 'shop@example.test',
      subject: 'Order',
      text: 'Von ÅSA.ÖBERG@EXAMPLE.TEST, danke',
      kind: 'ds',
    });
  });
  after(() => t?.close());

  it('LIKE wildcards are characters: %%%%%, _____ and %@%%% find nothing; a literal 100% and a_b are found', async () => {
    for (const identifier of [
      '%%%%%',
      '_____',
      '%@%%%',
      '%example%',
      'anna@example_test',
      'a%b@example.test',
      '\\\\\\\\\\',
    ]) {
      const res = await search(identifier, { lookInsideText: true });
      expect(res.statusCode, identifier).to.equal(200);
      expect(res.json().counts, identifier).to.deep.include({ objects: 0 });
    }
    expect((await search('100% off')).json().results.objects.map((o: { id: string }) => o.id)).to.deep.equal([
      ids.percent,
    ]);
    expect((await search('A_B@example.test')).json().results.objects.map((o: { id: string }) => o.id)).to.deep.equal([
      ids.underscore,
    ]);
    // Regular expression characters in the mail text search are characters too.
    const mails = await search('a.b@example.test', { lookInsideText: true });
    expect(mails.json().counts.mails).to.equal(1);
    expect((await search('a+b@example.test', { lookInsideText: true })).json().counts.mails).to.equal(0);
  });

  it('quotes and backslashes are found (the JSON text escapes them); case folds by Unicode rules', async () => {
    const found = async (identifier: string) =>
      (await search(identifier)).json().results.objects.map((o: { id: string; matched: string[] }) => o.id);
    expect(await found('O"Brien@example.test')).to.deep.equal([ids.quote]);
    expect(await found('c:\\users\\KIM')).to.deep.equal([ids.backslash]);
    expect(await found('åsa.öberg@example.test')).to.deep.equal([ids.unicode]);
    // A file's metadata and the mail text too (a C-locale database folds ASCII only by itself).
    const boundary = `----ds${randomBytes(6).toString('hex')}`;
    const part = (k: string, v: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`;
    const up = await t.inject({
      method: 'POST',
      url: '/api/v1/dam/upload',
      payload: Buffer.concat([
        Buffer.from(part('folder', 'people') + part('metadata', JSON.stringify({ owner: 'ÅSA.ÖBERG@EXAMPLE.TEST' }))),
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="asa.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\n%%EOF\n\r\n--${boundary}--\r\n`,
        ),
      ]),
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, cookie: admin.cookie },
    });
    expect(up.statusCode, up.body).to.equal(201);
    expect(
      (await search('åsa.öberg@example.test')).json().results.files.map((f: { label: string }) => f.label),
    ).to.deep.equal(['people/asa.pdf']);
    expect((await search('åsa.öberg@example.test', { lookInsideText: true })).json().counts.mails).to.equal(1);
    expect(await found('JÜRGEN@STRASSE.TEST')).to.deep.equal([]);
    expect(await found('jürgen@straße.test')).to.deep.equal([ids.german]);
  });

  it('over-long, control, blank and non-text identifiers and unknown options are refused with a 400 naming the field', async () => {
    const long = await search(`${'a'.repeat(310)}@example.test`);
    expect(long.statusCode).to.equal(400);
    expect(long.json().message).to.match(/identifier/);
    const multibyte = await search('ä'.repeat(320));
    expect(multibyte.statusCode, multibyte.body).to.equal(200);
    for (const identifier of ['anna\u0000@example.test', 'anna@example.test\u0000', 'anna\n@example.test', ' \t ']) {
      const res = await search(identifier);
      expect(res.statusCode, res.body).to.equal(400);
      expect(res.json()).to.include({ field: 'identifier' });
    }
    for (const body of [
      { identifier: { $ne: null } },
      { identifier: 'a', options: { limit: 0 } },
      { identifier: 'a', options: { limit: 1_000_000 } },
      { identifier: 'a', options: { constructor: 1 } },
    ]) {
      const res = await t.call('POST', '/data-subject/search', admin, body);
      expect(res.statusCode, JSON.stringify(body)).to.equal(400);
    }
  });

  it("a library file the person's object merely names is not theirs: neither listed as their file nor erased", async () => {
    const boundary = `----ds${randomBytes(6).toString('hex')}`;
    const up = await t.inject({
      method: 'POST',
      url: '/api/v1/dam/upload',
      payload: Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="folder"\r\n\r\nshared\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="avatar.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\n%%EOF\n\r\n--${boundary}--\r\n`,
      ),
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, cookie: admin.cookie },
    });
    expect(up.statusCode, up.body).to.equal(201);
    const avatar = up.json() as { id: string; path: string };
    const made: string[] = [];
    for (const value of ['lena@example.test', 'someone.else@example.test']) {
      const res = await t.call('POST', '/data-objects', admin, {
        className: 'contact',
        attributes: { value, photo: avatar.path },
      });
      expect(res.statusCode, res.body).to.equal(201);
      made.push(res.json().id);
    }
    // The object lists the file it names; the file is no upload of hers (staff put it there).
    const found = (await search('lena@example.test')).json();
    expect(found.counts).to.include({ objects: 1, files: 0 });
    expect(found.results.objects[0].files).to.deep.equal([avatar.path]);
    const dry = await t.call('POST', '/data-subject/erase', admin, { identifier: 'lena@example.test' });
    expect(dry.json()).to.deep.include({ erased: { files: 0, objects: 1, mails: 0 }, sharedFiles: [] });
    const erased = await t.call('POST', '/data-subject/erase', admin, {
      identifier: 'lena@example.test',
      dryRun: false,
      confirm: 'lena@example.test',
    });
    expect(erased.json()).to.deep.include({ erased: { files: 0, objects: 1, mails: 0 }, complete: true });
    expect(await t.db('assets').where({ id: avatar.id }).first()).to.not.equal(undefined);
    expect((await t.call('GET', `/data-objects/${made[1]}`, admin)).statusCode).to.equal(200);
    expect((await t.call('GET', `/data-objects/${made[0]}`, admin)).statusCode).to.equal(404);
  });

  it('a second real erase of the same person while one runs: 409 ERASE_IN_PROGRESS (any case); others go on, two at a time', async () => {
    const bo = await t.call('POST', '/data-objects', admin, {
      className: 'contact',
      attributes: { value: 'bo@example.test' },
    });
    expect(bo.statusCode, bo.body).to.equal(201);
    // The data plugin holds each erase inside its first object delete until the test lets them go.
    const objects = t.services<{ objects: { deleteRows(...args: unknown[]): Promise<void> } }>('data').objects;
    const original = objects.deleteRows.bind(objects);
    let inside = 0;
    const entered = (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (inside >= n ? resolve() : setTimeout(check, 10));
        check();
      });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    objects.deleteRows = async (...args) => {
      inside++;
      await gate;
      return original(...args);
    };
    const objectEvents = t.recordChanges('object');
    const erasesBefore = (await t.db('audit_log').where({ action: 'data_subject.erase' })).length;
    const erase = (identifier: string, dryRun = false) =>
      t.call('POST', '/data-subject/erase', admin, { identifier, dryRun, confirm: identifier });
    try {
      const first = erase('anna@example.test');
      await entered(1);
      const second = await erase('ANNA@example.test');
      expect(second.statusCode, second.body).to.equal(409);
      expect(second.json()).to.include({ code: 'ERASE_IN_PROGRESS' });
      expect((await erase('anna@example.test', true)).statusCode).to.equal(200);
      expect((await erase('nobody-else@example.test')).statusCode).to.equal(200);
      // Two real erases run at once in a process; a third waits for one of them.
      const third = erase('bo@example.test');
      await entered(2);
      const busy = await erase('someone@example.test');
      expect(busy.statusCode, busy.body).to.equal(429);
      expect(busy.json()).to.include({ code: 'ERASES_BUSY' });
      expect(Number(busy.headers['retry-after'])).to.be.greaterThan(0);
      release();
      const done = await first;
      expect(done.statusCode, done.body).to.equal(200);
      expect(done.json()).to.deep.include({ erased: { files: 0, objects: 1, mails: 0 }, complete: true });
      expect((await third).json()).to.deep.include({ erased: { files: 0, objects: 1, mails: 0 }, complete: true });
    } finally {
      release();
      objects.deleteRows = original;
    }
    expect(objectEvents.filter((e) => e.kind === 'deleted')).to.have.length(2);
    // The refused erases left no audit row; the lock is free again.
    const erases = await t.db('audit_log').where({ action: 'data_subject.erase' });
    expect(erases.length - erasesBefore).to.equal(4);
    expect((await erase('anna@example.test')).json()).to.deep.include({ erased: { files: 0, objects: 0, mails: 0 } });
  });
});

describe('data-subject: the scan limit', function () {
  this.timeout(60_000);

  it('counts per administrator across sessions; refused input and refused callers do not use it up', async () => {
    const t = await startTestKernel({
      plugins: ['identity', 'data', 'data-subject'],
      env: { DATA_SUBJECT_RATE_LIMIT_PER_MINUTE: '2' },
    });
    try {
      const { dpo, editor } = await t.users({ dpo: ['data_subject:manage'], editor: ['objects:write'] });
      const otherSession = { cookie: await t.newSession(dpo.id) };
      for (let i = 0; i < 3; i++) {
        expect((await t.call('POST', '/data-subject/search', dpo, { identifier: '' })).statusCode).to.equal(400);
        expect((await t.call('POST', '/data-subject/search', editor, { identifier: 'x@y.test' })).statusCode).to.equal(
          403,
        );
      }
      expect((await t.call('POST', '/data-subject/search', dpo, { identifier: 'x@y.test' })).statusCode).to.equal(200);
      expect(
        (await t.call('POST', '/data-subject/erase', otherSession, { identifier: 'x@y.test' })).statusCode,
      ).to.equal(200);
      const refused = await t.call('POST', '/data-subject/export', otherSession, { identifier: 'x@y.test' });
      expect(refused.statusCode).to.equal(429);
      expect(Number(refused.headers['retry-after'])).to.be.within(1, 60);
      await t.advanceClock(61_000);
      expect((await t.call('POST', '/data-subject/search', dpo, { identifier: 'x@y.test' })).statusCode).to.equal(200);
    } finally {
      await t.close();
    }
  });
});
