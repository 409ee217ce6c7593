import { expect } from 'chai';
import { expectNoLeaks } from '../../../test/helpers/answer-leaks.ts';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import type { MailServices } from '../services/index.ts';

const PASSWORD = 'smtp-password-that-never-leaves';

/**
 * The answer schemas are the filter: even when the code building an answer hands over the stored
 * rows (the sealed secrets, the unsealed SMTP password, a worker's claim, the outbox sequence), no
 * answer of the mail routes carries them.
 */
describe('mail: no answer carries a secret or an internal column', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: TestUser;
  const sealed: string[] = [];

  before(async () => {
    t = await startTestKernel({
      plugins: ['identity', 'mail'],
      env: { MAIL_WORKER_ENABLED: '0', MAIL_SETTINGS_ENCRYPTION_KEY: 'a1'.repeat(32) },
    });
    admin = await t.admin();
    const saved = await t.call('PUT', '/mail-settings', admin, {
      provider: 'smtp',
      smtp: { host: 'smtp.example.test', port: 587, user: 'mailer', password: PASSWORD },
      from: 'site@example.test',
    });
    expect(saved.statusCode, saved.body).to.equal(200);
    await t.kernel.resolve('mail').send({ to: 'leak@example.test', subject: 'Leak check', text: 'x', kind: 'leaks' });

    // Careless answer builders: the stored rows (and the unsealed password) go along.
    const { settings, log } = t.services<MailServices>('mail');
    const settingsRow = async () => {
      const row = await t.db('mail_settings').where({ scope: 'default' }).first();
      sealed.push(row.secrets_sealed);
      return row;
    };
    const outboxRow = async (id: string) => t.db('mail_outbox').where({ id }).first();
    const describe = settings.describe.bind(settings);
    settings.describe = (async (websiteId) => {
      const out = await describe(websiteId);
      const smtp = 'smtp' in out ? out.smtp : {};
      return { ...(await settingsRow()), ...out, smtp: { ...smtp, password: PASSWORD } };
    }) as typeof settings.describe;
    const list = log.list.bind(log);
    log.list = (async (...args) => {
      const out = await list(...args);
      return {
        ...out,
        entries: await Promise.all(out.entries.map(async (e) => ({ ...(await outboxRow(e.id)), ...e }))),
      };
    }) as typeof log.list;
    const get = log.get.bind(log);
    log.get = (async (id) => ({ ...(await outboxRow(id)), ...(await get(id)) })) as typeof log.get;
  });
  after(() => t?.close());

  const forbidden = () => ({
    keys: ['password', 'secrets_sealed', 'claimed_by', 'seq', 'recipients'],
    values: [PASSWORD, ...sealed],
  });

  it('settings (read and save), providers, log (list and entry) and templates', async () => {
    const entries = (await t.call('GET', '/mail-log?kind=leaks', admin)).json().entries;
    expect(entries).to.have.length(1);
    const answers = [
      ['GET /mail-settings', await t.call('GET', '/mail-settings', admin)],
      [
        'PUT /mail-settings',
        await t.call('PUT', '/mail-settings', admin, {
          provider: 'smtp',
          smtp: { host: 'smtp.example.test', port: 587, user: 'mailer' },
          from: 'site@example.test',
        }),
      ],
      ['GET /mail-providers', await t.call('GET', '/mail-providers', admin)],
      ['GET /mail-log', await t.call('GET', '/mail-log', admin)],
      ['GET /mail-log/:id', await t.call('GET', `/mail-log/${entries[0].id}`, admin)],
      ['GET /mail-templates', await t.call('GET', '/mail-templates', admin)],
    ] as const;
    expect(sealed.filter(Boolean)).to.not.be.empty;
    for (const [what, res] of answers) {
      expect(res.statusCode, `${what}: ${res.body}`).to.equal(200);
      expectNoLeaks(res, forbidden());
    }
    expect(answers[0][1].json().smtp).to.include({ passwordSet: true, user: 'mailer' });
  });
});
