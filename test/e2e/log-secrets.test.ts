import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { LightMyRequestResponse } from 'fastify';
import { authenticator } from 'otplib';
import { definePlugin } from '../../kernel/index.ts';
import { png } from '../helpers/images.ts';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.ts';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp-catcher.ts';
import { startUpstream, type Upstream } from '../helpers/upstream.ts';
import { ANY_JSON_ANSWER } from '../helpers/any-answer.ts';

const PUBLIC_BASE_URL = 'http://cms.test';

/** A route that fails unexpectedly (a 500, which the kernel logs) on a URL that carries a token. */
const failingRoute = definePlugin({
  id: 'log-journey-failure',
  processes: ['core-api'],
  needs: [],
  routes(app) {
    app.get(
      '/log-journey/fail/:token',
      { config: { public: true }, schema: { response: ANY_JSON_ANSWER } },
      async () => {
        throw new Error('an unexpected failure');
      },
    );
  },
});
const REDIRECT_URI = `${PUBLIC_BASE_URL}/auth/oidc/callback`;

/** Every file under the log folder (the process's files and the store's), as one text. */
async function allLogText(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const texts = await Promise.all(
    entries.filter((e) => e.isFile()).map((e) => readFile(path.join(e.parentPath, e.name), 'utf8')),
  );
  return texts.join('\n');
}

const cookieValue = (res: LightMyRequestResponse, name: string): string => {
  const header = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith(`${name}=`));
  if (!header) throw new Error(`no ${name} cookie in ${JSON.stringify(res.headers)}`);
  return header.slice(name.length + 1).split(';')[0];
};

/**
 * Secrets never reach the log: one product with every plugin, file logging at `trace`, and a journey
 * through HTTP that handles every kind of secret the product knows, on the happy path and on the
 * paths that fail and log (a wrong password, a refused SMTP login, an upstream that is down). Then
 * every log file is searched for every secret used, in clear and in the encodings they travel in.
 */
describe('no secret reaches the log files (journey through HTTP, LOG_LEVEL=trace)', function () {
  this.timeout(120_000);
  const secrets = new Map<string, string>(); // value → what it is
  const keep = (what: string, value: string | undefined) => {
    if (!value) throw new Error(`no value for ${what}`);
    secrets.set(value, what);
    return value;
  };
  const env = {
    LOG_LEVEL: 'trace',
    PUBLIC_BASE_URL,
    TRUST_PROXY: '1',
    TOTP_ENCRYPTION_KEY: 'totp-encryption-key-for-the-log-journey',
    UPLOAD_TOKEN_SECRET: 'upload-ticket-secret-for-the-log-journey',
    DAM_SERVICE_TOKEN: 'dam-service-token-for-the-log-journey',
    MAIL_SETTINGS_ENCRYPTION_KEY: 'mail-settings-key-for-the-log-journey',
    OIDC_SETTINGS_ENCRYPTION_KEY: 'oidc-settings-key-for-the-log-journey',
    INTEGRATION_SECRETS_ENCRYPTION_KEY: 'integration-secrets-key-for-the-log-journey',
    METRICS_TOKEN: 'metrics-token-for-the-log-journey',
  };
  let dir: string;
  let t: TestKernel;
  let smtp: SmtpCatcher;
  let upstream: Upstream;
  let provider: TestOidcProvider;
  let admin: { cookie: string; id: string; email: string };
  const oidcClient = { clientId: 'cms', clientSecret: 'oidc-client-secret-log-journey', redirectUris: [REDIRECT_URI] };
  const person = {
    login: 'sso-person',
    password: 'sso-person-password-log-journey',
    email: 'sso.person@example.test',
    emailVerified: true,
    name: 'SSO Person',
    groups: ['cms-admins'],
  };

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'cms-log-secrets-'));
    for (const [name, value] of Object.entries(env)) if (/KEY|SECRET|TOKEN/.test(name)) keep(name, value);
    smtp = await startSmtpCatcher();
    keep('SMTP password', smtp.password);
    upstream = await startUpstream();
    provider = await startOidcProvider({ clients: [oidcClient], accounts: [person] });
    keep('OIDC client secret', oidcClient.clientSecret);
    keep('OIDC account password', person.password);
    // Kernel mail before any mail settings: SMTP_URL, whose password the catcher refuses.
    const smtpUrlPassword = keep('SMTP_URL password', 'smtp-url-password-log-journey');
    t = await startTestKernel({
      service: 'all',
      ownDataDir: true,
      extraPlugins: [failingRoute],
      env: { ...env, LOG_DIR: dir, SMTP_URL: `smtp://mailer:${smtpUrlPassword}@${smtp.host}:${smtp.port}` },
    });
  });
  after(async () => {
    await t?.close();
    await smtp?.close();
    await upstream?.close();
    await provider?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const call = (method: string, url: string, cookie: string | null, body?: unknown, headers?: Record<string, string>) =>
    t.call(method, url, cookie ? { cookie } : null, body, headers);
  const ok = (res: LightMyRequestResponse, status = 200) => {
    expect(res.statusCode, `${res.statusCode} ${res.body}`).to.equal(status);
    return res;
  };

  it('signs in with a password, sets up two factors and signs in with them', async () => {
    const password = keep('admin password', 'admin-password-of-the-log-journey');
    const email = 'journey.admin@example.test';
    const { id } = await t.kernel.resolve('users').create({ email, password, roles: ['admin'], displayName: 'Admin' });
    ok(await call('POST', '/auth/login', null, { email, password: 'a-wrong-password-no-secret' }), 401);
    const login = ok(await call('POST', '/auth/login', null, { email, password }));
    const cookie = `cms_session=${keep('session token', cookieValue(login, 'cms_session'))}`;
    admin = { cookie, id, email };

    const setup = ok(await call('POST', '/auth/mfa/setup', cookie)).json();
    const totpSecret = keep('TOTP secret', setup.secret);
    ok(await call('POST', '/auth/mfa/verify-setup', cookie, { code: '000000' }), 400);
    const verified = ok(
      await call('POST', '/auth/mfa/verify-setup', cookie, { code: authenticator.generate(totpSecret) }),
    );
    for (const code of verified.json().recoveryCodes as string[]) keep('recovery code', code);

    const second = ok(await call('POST', '/auth/login', null, { email, password })).json();
    const mfaToken = keep('MFA token', second.mfaToken);
    const recovery = verified.json().recoveryCodes[0] as string;
    const challenged = ok(await call('POST', '/auth/mfa/challenge', null, { mfaToken, code: recovery }));
    keep('second session token', cookieValue(challenged, 'cms_session'));
  });

  it('configures SMTP with a password (a refused login first), sends a test mail and resets a password by mail', async () => {
    const smtpSettings = (password: string) => ({
      provider: 'smtp',
      smtp: {
        host: smtp.host,
        port: smtp.port,
        requireTls: true,
        allowInvalidCertificate: true,
        user: smtp.user,
        password,
      },
      from: 'cms@example.test',
    });
    const early = await t.createUser({ roles: ['viewer'] });
    keep('early viewer password', early.password);
    expect((await call('POST', '/auth/forgot-password', null, { email: early.email })).statusCode).to.be.within(
      200,
      204,
    );
    keep('wrong SMTP password', 'wrong-smtp-password-log-journey');
    ok(await call('PUT', '/mail-settings', admin.cookie, smtpSettings('wrong-smtp-password-log-journey')));
    const refused = await call('POST', '/mail-settings/test', admin.cookie, { to: 'me@example.test' });
    expect(refused.statusCode, refused.body).to.be.within(400, 599);
    ok(await call('PUT', '/mail-settings', admin.cookie, smtpSettings(smtp.password)));
    ok(await call('POST', '/mail-settings/test', admin.cookie, { to: 'me@example.test' }));

    const user = await t.createUser({ roles: ['viewer'] });
    keep('viewer password', user.password);
    const before = smtp.received.length;
    expect((await call('POST', '/auth/forgot-password', null, { email: user.email })).statusCode).to.be.within(
      200,
      204,
    );
    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    const token = keep('reset token', /token=([A-Za-z0-9_%-]+)/.exec(String(mail.parsed.text))?.[1]);
    const newPassword = keep('new password', 'a-new-password-log-journey');
    const reset = await call('POST', '/auth/reset-password', null, {
      token: decodeURIComponent(token),
      password: newPassword,
    });
    expect(reset.statusCode, reset.body).to.be.within(200, 204);
  });

  it('single sign-on: the client secret in the settings, a sign-in through the provider', async () => {
    ok(
      await call('PUT', '/oidc-settings', admin.cookie, {
        enabled: true,
        issuer: provider.issuer,
        clientId: oidcClient.clientId,
        clientSecret: oidcClient.clientSecret,
        scopes: ['openid', 'email', 'profile', 'groups'],
        roleClaim: 'groups',
        roleMapping: { 'cms-admins': ['viewer'] },
        provisionUsers: true,
        defaultRoles: ['viewer'],
        localLogin: 'all',
      }),
    );
    const start = await call('GET', '/auth/oidc/start', null);
    expect(start.statusCode, start.body).to.equal(302);
    const state = keep('OIDC state', cookieValue(start, 'cms_oidc_state'));
    const callback = await provider.browse(String(start.headers.location), person.login, REDIRECT_URI);
    keep('OIDC authorization code', callback.searchParams.get('code') ?? undefined);
    const done = await call('GET', `${callback.pathname}${callback.search}`, null, undefined, {
      cookie: `cms_oidc_state=${state}`,
    });
    expect(done.statusCode, done.body).to.be.within(200, 399);
    keep('SSO session token', cookieValue(done, 'cms_session'));
    for (const token of provider.issuedIdTokens) keep('ID token', token);
  });

  it('API keys of the client API: created, used, refused with an Origin, and a wrong one', async () => {
    const created = ok(
      await call('POST', '/api/v1/gateway/clients', admin.cookie, { name: 'journey', authMode: 'key', scopes: [] }),
      201,
    ).json();
    const key = keep('API key', created.key);
    ok(await call('GET', '/client/v1/me', null, undefined, { authorization: `Bearer ${key}` }));
    ok(await call('GET', '/client/v1/me', null, undefined, { 'x-cms-key': key, origin: 'https://a.example' }), 403);
    const wrong = keep('wrong API key', `${key.slice(0, 10)}${'A'.repeat(key.length - 10)}`);
    ok(await call('GET', '/client/v1/me', null, undefined, { 'x-cms-key': wrong }), 401);
  });

  it('gateway endpoint credentials of every kind, on calls that work and on an upstream that is down', async () => {
    upstream.handle((req, res) => {
      if (req.url === '/token') {
        res.setHeader('content-type', 'application/json');
        return void res.end(
          JSON.stringify({ access_token: 'upstream-access-token-log-journey', token_type: 'Bearer', expires_in: 600 }),
        );
      }
      res.statusCode = req.url.startsWith('/fail') ? 500 : 200;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: res.statusCode === 200 }));
    });
    keep('upstream access token', 'upstream-access-token-log-journey');
    const auths: Array<Record<string, unknown>> = [
      {
        type: 'apiKeyHeader',
        headerName: 'X-Api-Key',
        key: keep('gateway header key', 'gateway-header-key-log-journey'),
      },
      { type: 'apiKeyQuery', paramName: 'appid', key: keep('gateway query key', 'gateway-query-key-log-journey') },
      { type: 'bearer', token: keep('gateway bearer token', 'gateway-bearer-token-log-journey') },
      {
        type: 'basic',
        username: 'ann',
        password: keep('gateway basic password', 'gateway-basic-password-log-journey'),
      },
      {
        type: 'oauth2ClientCredentials',
        tokenUrl: `${upstream.url}/token`,
        clientId: 'app',
        clientSecret: keep('gateway OAuth2 client secret', 'gateway-oauth2-secret-log-journey'),
      },
    ];
    keep('gateway basic header', Buffer.from('ann:gateway-basic-password-log-journey').toString('base64'));
    let n = 0;
    for (const auth of auths) {
      for (const baseUrl of [upstream.url, 'http://127.0.0.1:9']) {
        const endpoint = ok(
          await call('POST', '/api/v1/gateway/endpoints', admin.cookie, { name: `journey-${n++}`, baseUrl, auth }),
          201,
        ).json();
        for (const routePath of ['/items', '/fail']) {
          const route = ok(
            await call('POST', `/api/v1/gateway/endpoints/${endpoint.id}/routes`, admin.cookie, {
              method: 'GET',
              path: routePath,
            }),
            201,
          ).json();
          const res = await call('POST', `/api/v1/gateway/routes/${route.id}/execute`, admin.cookie, {});
          expect(res.statusCode, `${baseUrl}${routePath} ${JSON.stringify(auth.type)}`).to.be.oneOf([
            200, 500, 502, 503, 504,
          ]);
        }
      }
    }
    expect(upstream.requests.length).to.be.greaterThan(5);
  });

  it('upload tickets: issued, used, and a forged one', async () => {
    const site = ok(
      await call('POST', '/cms-one/websites', admin.cookie, {
        name: 'Journey',
        rootPath: '/journey',
        domains: ['journey.example'],
      }),
      201,
    ).json();
    ok(
      await call('PUT', `/cms-one/websites/${site.id}/upload-settings`, admin.cookie, {
        enabled: true,
        allowedTypes: ['image/png'],
        maxFileBytes: 200_000,
      }),
    );
    const picture = await png(32, 32);
    const intent = ok(
      await t.inject({
        method: 'POST',
        url: '/public/uploads/intent',
        payload: { fieldId: 'photo', filename: 'me.png', size: picture.length },
        headers: { origin: 'https://journey.example', 'x-forwarded-for': '198.51.100.7' },
      }),
      201,
    ).json();
    const url = intent.uploadUrl as string;
    keep('upload ticket', url.slice(url.lastIndexOf('/') + 1));
    ok(await t.inject({ method: 'PUT', url, payload: picture, headers: { 'content-type': 'image/png' } }), 201);
    const again = await t.inject({ method: 'PUT', url, payload: picture, headers: { 'content-type': 'image/png' } });
    expect(again.statusCode).to.be.within(400, 499);
  });

  it('service and metrics tokens in use', async () => {
    ok(await call('GET', '/metrics', null, undefined, { authorization: `Bearer ${env.METRICS_TOKEN}` }));
    ok(await call('GET', '/metrics', null, undefined, { authorization: 'Bearer not-the-metrics-token-0123' }), 401);
    ok(
      await call('GET', '/api/v1/system/log-store/segments/gateway', null, undefined, {
        authorization: `Bearer ${env.DAM_SERVICE_TOKEN}`,
      }),
    );
  });

  it('an unexpected failure on a URL that carries a token logs the route, not the URL', async () => {
    const token = keep('token in a failing URL', 'token-in-a-failing-url-log-journey');
    const code = keep('code in a failing query', 'code-in-a-failing-query-log-journey');
    ok(await call('GET', `/log-journey/fail/${token}?code=${code}`, null), 500);
  });

  it('the log files hold the journey and none of its secrets, in clear or encoded', async () => {
    await t.kernel.resolve('logFiles').flush();
    const text = await allLogText(dir);
    // The journey is there: the refused sign-in names the user; the failure names its route.
    expect(text).to.contain(admin.id);
    expect(text).to.contain('"route":"/log-journey/fail/:token"');
    const leaks: string[] = [];
    for (const [value, what] of secrets) {
      for (const form of new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)]))
        if (text.includes(form)) leaks.push(`${what} (${form === value ? 'clear' : 'encoded'})`);
    }
    expect(leaks, 'secrets found in the log').to.deep.equal([]);
    // And the log answers through its route, as an operator reads it.
    const tail = ok(await call('GET', '/api/v1/system/logs?lines=1000', admin.cookie)).json();
    expect(tail.lines.map((l: { msg: string }) => l.msg)).to.include.members(['sign-in failed', 'request failed']);
  });
});
