import { expect } from 'chai';
import { authenticator } from 'otplib';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';

/**
 * An administrator's first session, over a real port with every plugin loaded: the first admin signs
 * in, creates a viewer who is refused on /auth/users, enables TOTP and completes a challenge, and
 * reads each of those actions in /audit-log, as JSON and CSV.
 */
describe('administrator journey (all plugins, real port)', () => {
  let t: TestKernel;
  let base: string;
  const adminEmail = 'first.admin@example.com';
  const adminPassword = 'first-admin-password';

  before(async () => {
    t = await startTestKernel({ service: 'all' });
    await t.kernel
      .resolve('users')
      .create({ email: adminEmail, password: adminPassword, roles: ['admin'], displayName: 'Admin' });
    base = await t.kernel.listen(0);
    base = base.replace('0.0.0.0', '127.0.0.1');
  });
  after(() => t.close());

  const call = async (
    method: string,
    path: string,
    opts: { cookie?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const res = await fetch(base + path, {
      method,
      headers: {
        ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(opts.cookie ? { cookie: opts.cookie } : {}),
        ...opts.headers,
      },
      body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
    });
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    return {
      status: res.status,
      headers: res.headers,
      text,
      json: type.includes('json') && text ? JSON.parse(text) : undefined,
    };
  };
  const cookieOf = (headers: Headers) => {
    const set = headers.getSetCookie().find((c) => c.startsWith('cms_session='));
    expect(set, 'session cookie').to.be.a('string');
    expect(set)
      .to.match(/HttpOnly/i)
      .and.to.match(/SameSite=Lax/i);
    return set!.split(';')[0];
  };

  it('walks through sign-in, users, 403, TOTP and the audit log', async () => {
    const login = await call('POST', '/auth/login', {
      body: { email: adminEmail, password: adminPassword },
      headers: { 'x-request-id': 'journey-1' },
    });
    expect(login.status).to.equal(200);
    const admin = cookieOf(login.headers);

    const created = await call('POST', '/auth/users', {
      cookie: admin,
      body: { email: 'viewer@example.com', password: 'viewer-password', roles: ['viewer'], displayName: 'Vera Viewer' },
      headers: { 'x-request-id': 'journey-create-viewer' },
    });
    expect(created.status).to.equal(201);

    const viewerLogin = await call('POST', '/auth/login', {
      body: { email: 'viewer@example.com', password: 'viewer-password' },
    });
    expect(viewerLogin.status).to.equal(200);
    const viewer = cookieOf(viewerLogin.headers);
    expect((await call('GET', '/auth/users', { cookie: viewer })).status).to.equal(403);
    expect((await call('GET', '/audit-log', { cookie: viewer })).status).to.equal(403);
    expect((await call('GET', '/auth/users')).status).to.equal(401);

    const setup = await call('POST', '/auth/mfa/setup', { cookie: admin, body: {} });
    expect(setup.status).to.equal(200);
    expect(setup.json.qrCodeDataUrl).to.match(/^data:image\/png;base64,/);
    const secret: string = setup.json.secret;
    const verified = await call('POST', '/auth/mfa/verify-setup', {
      cookie: admin,
      body: { code: authenticator.generate(secret) },
    });
    expect(verified.status).to.equal(200);
    expect(verified.json.recoveryCodes).to.have.length.greaterThan(0);

    const second = await call('POST', '/auth/login', { body: { email: adminEmail, password: adminPassword } });
    expect(second.status).to.equal(200);
    expect(second.json).to.include({ mfaRequired: true });
    expect(second.headers.getSetCookie().some((c) => c.startsWith('cms_session='))).to.equal(false);
    const challenged = await call('POST', '/auth/mfa/challenge', {
      body: { mfaToken: second.json.mfaToken, code: authenticator.generate(secret) },
    });
    expect(challenged.status).to.equal(200);
    const admin2 = cookieOf(challenged.headers);
    expect((await call('GET', '/auth/me', { cookie: admin2 })).json.email).to.equal(adminEmail);

    const log = await call('GET', '/audit-log?action=user.', { cookie: admin2 });
    expect(log.status).to.equal(200);
    const create = log.json.entries.find((e: { action: string }) => e.action === 'user.create');
    expect(create).to.include({
      actor_type: 'user',
      actor_label: adminEmail,
      target_type: 'user',
      request_id: 'journey-create-viewer',
    });
    expect(create.after.email).to.equal('viewer@example.com');
    expect(JSON.stringify(log.json)).not.to.contain('viewer-password');

    const csv = await call('GET', '/audit-log?format=csv', { cookie: admin2 });
    expect(csv.status).to.equal(200);
    expect(csv.headers.get('content-type')).to.contain('text/csv');
    const [header, ...rows] = csv.text.trim().split('\n');
    expect(header).to.contain('action');
    expect(rows.some((r) => r.includes('user.create') && r.includes('viewer@example.com'))).to.equal(true);
  });

  it('logout revokes the session: the old cookie answers 401', async () => {
    const { email, password } = await t.createUser({ roles: ['viewer'] });
    const login = await call('POST', '/auth/login', { body: { email, password } });
    const cookie = cookieOf(login.headers);
    expect((await call('GET', '/auth/me', { cookie })).status).to.equal(200);
    expect((await call('POST', '/auth/logout', { cookie })).status).to.be.within(200, 204);
    expect((await call('GET', '/auth/me', { cookie })).status).to.equal(401);
  });

  it('serves the OpenAPI document of every loaded route', async () => {
    const doc = await call('GET', '/openapi.json');
    expect(doc.status).to.equal(200);
    expect(doc.json.openapi).to.match(/^3\./);
    for (const path of ['/auth/login', '/auth/users', '/audit-log', '/data-objects', '/health'])
      expect(doc.json.paths).to.have.property(path);
  });
});
