import { expect } from 'chai';
import { definePlugin, type PluginManifest } from '../../../kernel/plugin.ts';
import { auditRows, startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';
import { ANY_JSON_ANSWER } from '../../../test/helpers/any-answer.ts';

// Another plugin that declares the settings reader as a dependency and serves what it reads.
const settingsConsumer = definePlugin({
  id: 'test-settings-consumer',
  processes: ['core-api'],
  needs: ['securitySettings'],
  routes(app, deps) {
    app.get('/t/settings-seen', { config: { public: true }, schema: { response: ANY_JSON_ANSWER } }, async () => ({
      settings: await deps.securitySettings.get(),
      methods: Object.keys(deps.securitySettings).sort(),
    }));
  },
}) as PluginManifest;

describe('identity: security settings', () => {
  let t: TestKernel;
  let cookie: string;
  before(async () => {
    t = await startTestKernel({ plugins: ['identity'], extraPlugins: [settingsConsumer] });
    cookie = (await t.admin()).cookie;
  });
  // Each case starts from the settings row as the migration creates it.
  beforeEach(async () => {
    await t.db('identity_security_settings').delete();
    await t.db('identity_security_settings').insert({ id: 1 });
  });
  after(() => t.close());

  const get = (as = cookie) => t.inject({ method: 'GET', url: '/security-settings', headers: { cookie: as } });
  const put = (payload: object, as = cookie) =>
    t.inject({ method: 'PUT', url: '/security-settings', payload, headers: { cookie: as } });

  it('GET answers the defaults: no mandatory 2FA, minimum length 8, no class rule, mail log kept', async () => {
    const res = await get();
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.deep.equal({
      mfaRequiredRoles: [],
      passwordPolicy: { minLength: 8, requireThreeClasses: false },
      mailLogRetentionDays: null,
    });
  });

  it('needs settings:manage (403) and a session (401)', async () => {
    const editor = await t.createUser({ roles: ['editor'] });
    expect((await get(editor.cookie)).statusCode).to.equal(403);
    expect((await put({ mailLogRetentionDays: 5 }, editor.cookie)).statusCode).to.equal(403);
    expect((await t.inject({ method: 'GET', url: '/security-settings' })).statusCode).to.equal(401);
    const settingsManager = await t.createUser({ permissions: ['settings:manage'] });
    expect((await get(settingsManager.cookie)).statusCode).to.equal(200);
  });

  it('PUT changes only the fields sent and audits setting.security_update with the changed fields only', async () => {
    const earlier = (await auditRows(t, 'setting.security_update')).length;
    const res = await put({ passwordPolicy: { minLength: 10 }, mailLogRetentionDays: 30 });
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.deep.equal({
      mfaRequiredRoles: [],
      passwordPolicy: { minLength: 10, requireThreeClasses: false },
      mailLogRetentionDays: 30,
    });
    expect((await get()).json()).to.deep.equal(res.json());
    const rows = (await auditRows(t, 'setting.security_update')).slice(earlier);
    expect(rows).to.have.length(1);
    expect(rows[0].before).to.deep.equal({ 'passwordPolicy.minLength': 8, mailLogRetentionDays: null });
    expect(rows[0].after).to.deep.equal({ 'passwordPolicy.minLength': 10, mailLogRetentionDays: 30 });
  });

  it('a PUT that changes nothing writes no audit row', async () => {
    expect((await put({ mailLogRetentionDays: 21 })).statusCode).to.equal(200);
    const before = (await auditRows(t, 'setting.security_update')).length;
    const current = (await get()).json();
    expect(current.mailLogRetentionDays).to.equal(21);
    const same = await put(current);
    expect(same.statusCode).to.equal(200);
    expect(same.json()).to.deep.equal(current);
    expect((await put({})).statusCode).to.equal(200);
    expect((await auditRows(t, 'setting.security_update')).length).to.equal(before);
  });

  it('mailLogRetentionDays accepts null (off) again', async () => {
    expect((await put({ mailLogRetentionDays: 14 })).json().mailLogRetentionDays).to.equal(14);
    const res = await put({ mailLogRetentionDays: null });
    expect(res.statusCode).to.equal(200);
    expect(res.json().mailLogRetentionDays).to.equal(null);
    expect((await get()).json().mailLogRetentionDays).to.equal(null);
    const rows = await auditRows(t, 'setting.security_update');
    expect(rows[rows.length - 1].after).to.deep.equal({ mailLogRetentionDays: null });
  });

  it('refuses bad values with 400 naming the field and writes nothing', async () => {
    const before = (await auditRows(t, 'setting.security_update')).length;
    const cases: Array<[object, string]> = [
      [{ passwordPolicy: { minLength: 7 } }, 'passwordPolicy.minLength'],
      [{ passwordPolicy: { minLength: 129 } }, 'passwordPolicy.minLength'],
      [{ passwordPolicy: { requireThreeClasses: 'sometimes' } }, 'passwordPolicy.requireThreeClasses'],
      [{ mailLogRetentionDays: 0 }, 'mailLogRetentionDays'],
      [{ mailLogRetentionDays: 'forever' }, 'mailLogRetentionDays'],
      [{ mfaRequiredRoles: ['no-such-role'] }, 'mfaRequiredRoles'],
    ];
    for (const [payload, field] of cases) {
      const res = await put(payload);
      expect(res.statusCode, JSON.stringify(payload)).to.equal(400);
      expect(res.json().field, JSON.stringify(payload)).to.equal(field);
    }
    expect((await auditRows(t, 'setting.security_update')).length).to.equal(before);
  });

  it('mandatory 2FA roles are stored by name, each once', async () => {
    // Not the admin role: mandatory 2FA would end the sessions of admins without a second factor.
    const res = await put({ mfaRequiredRoles: ['viewer', 'editor', 'viewer'] });
    expect(res.statusCode).to.equal(200);
    expect(res.json().mfaRequiredRoles).to.deep.equal(['editor', 'viewer']);
    expect((await t.db('identity_security_settings').first()).mfa_required_roles).to.deep.equal(['editor', 'viewer']);
    const rows = await auditRows(t, 'setting.security_update');
    expect(rows[rows.length - 1].after).to.deep.equal({ mfaRequiredRoles: ['editor', 'viewer'] });
  });

  it('another plugin that needs securitySettings reads the stored settings, and can only read', async () => {
    const seen = async () => (await t.inject({ method: 'GET', url: '/t/settings-seen' })).json();
    expect((await seen()).settings).to.deep.equal((await get()).json());
    const res = await put({ mailLogRetentionDays: 90, passwordPolicy: { requireThreeClasses: true } });
    expect(res.statusCode).to.equal(200);
    expect(await seen()).to.deep.equal({
      settings: {
        mfaRequiredRoles: [],
        passwordPolicy: { minLength: 8, requireThreeClasses: true },
        mailLogRetentionDays: 90,
      },
      methods: ['get'],
    });
  });
});
