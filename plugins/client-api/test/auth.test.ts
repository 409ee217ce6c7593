import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { ManualClock } from '../../../kernel/clock.ts';
import { startClientKernel, type ClientKernel } from './helpers.ts';
import { fixtureCatalog } from './fixture-catalog.ts';
import { startIssuer } from './issuer.ts';

type Issuer = Awaited<ReturnType<typeof startIssuer>>;

describe('client-api: authentication on /client/v1', () => {
  let k: ClientKernel;
  const clock = new ManualClock();
  before(async () => {
    k = await startClientKernel({ env: { TRUST_PROXY: '1' }, clock });
  });
  after(() => k?.close());

  describe('keys', () => {
    it('accepts a key as Bearer or X-Cms-Key; /me shows name, mode, scopes, limits, store state and no secret', async () => {
      const { key } = await k.createClient({
        name: 'reporting',
        scopes: ['data:read:Article'],
        limits: { requestsPerMinute: 50 },
      });
      for (const headers of [{ authorization: `Bearer ${key}` }, { 'x-cms-key': key }]) {
        const res = await k.asClient(null, 'GET', '/client/v1/me', { headers });
        expect(res.statusCode).to.equal(200);
        expect(res.json()).to.deep.include({
          name: 'reporting',
          authMode: 'key',
          scopes: ['data:read:Article'],
          limits: { requestsPerMinute: 50 },
          rateLimitStore: { store: 'database', reachable: true },
        });
        expect(res.body).to.not.include(key);
        expect(res.body).to.not.include('hash');
      }
    });

    it('answers 401 without a credential, with an unknown key, a malformed header or a session cookie only', async () => {
      expect((await k.asClient(null, 'GET', '/client/v1/me')).statusCode).to.equal(401);
      expect((await k.asClient('wbk_' + 'x'.repeat(43), 'GET', '/client/v1/me')).statusCode).to.equal(401);
      expect(
        (await k.asClient(null, 'GET', '/client/v1/me', { headers: { 'x-cms-key': 'nope' } })).statusCode,
      ).to.equal(401);
      expect(
        (await k.asClient(null, 'GET', '/client/v1/me', { headers: { authorization: 'Basic abc' } })).statusCode,
      ).to.equal(401);
      expect(
        (await k.asClient(null, 'GET', '/client/v1/me', { headers: { cookie: k.admin.cookie } })).statusCode,
      ).to.equal(401);
    });

    it('refuses a key sent with an Origin header (403), valid or not', async () => {
      const { key } = await k.createClient({});
      for (const headers of [
        { authorization: `Bearer ${key}`, origin: 'https://app.example' },
        { 'x-cms-key': key, origin: 'null' },
        { 'x-cms-key': 'wbk_unknown', origin: 'https://x.test' },
      ]) {
        const res = await k.asClient(null, 'GET', '/client/v1/me', { headers });
        expect(res.statusCode).to.equal(403);
        expect(res.json().code).to.equal('KEY_FROM_BROWSER');
      }
    });

    it('answers 403 for a suspended client, and serves it again once reactivated', async () => {
      const { id, key } = await k.createClient({});
      expect((await k.asClient(key, 'GET', '/client/v1/me')).statusCode).to.equal(200);
      await k.asAdmin('PATCH', `/api/v1/gateway/clients/${id}`, { status: 'suspended' });
      const res = await k.asClient(key, 'GET', '/client/v1/me');
      expect(res.statusCode).to.equal(403);
      expect(res.json().code).to.equal('CLIENT_SUSPENDED');
      await k.asAdmin('PATCH', `/api/v1/gateway/clients/${id}`, { status: 'active' });
      expect((await k.asClient(key, 'GET', '/client/v1/me')).statusCode).to.equal(200);
    });

    it('answers 403 once the client has expired', async () => {
      const { id, key } = await k.createClient({ expiresAt: new Date(Date.now() + 3600_000).toISOString() });
      expect((await k.asClient(key, 'GET', '/client/v1/me')).statusCode).to.equal(200);
      await k.asAdmin('PATCH', `/api/v1/gateway/clients/${id}`, {
        expiresAt: new Date(Date.now() - 1000).toISOString(),
      });
      const res = await k.asClient(key, 'GET', '/client/v1/me');
      expect(res.statusCode).to.equal(403);
      expect(res.json().code).to.equal('CLIENT_EXPIRED');
    });

    it('allows only the listed IPv4 and IPv6 networks, with the address from X-Forwarded-For behind a trusted proxy', async () => {
      const { key } = await k.createClient({ allowedAddresses: ['203.0.113.0/24', '2001:db8:1::/48'] });
      const from = async (remoteAddress: string, forwarded?: string) =>
        (
          await k.asClient(key, 'GET', '/client/v1/me', {
            remoteAddress,
            headers: forwarded ? { 'x-forwarded-for': forwarded } : {},
          })
        ).statusCode;
      expect(await from('203.0.113.9')).to.equal(200);
      expect(await from('198.51.100.1')).to.equal(403);
      expect(await from('2001:db8:1:ffff::1')).to.equal(200);
      expect(await from('2001:db8:2::1')).to.equal(403);
      expect(await from('::ffff:203.0.113.7')).to.equal(200);
      // TRUST_PROXY=1: the proxy (a loopback peer) appended the caller's address.
      expect(await from('127.0.0.1', '203.0.113.50')).to.equal(200);
      expect(await from('127.0.0.1', '198.51.100.2')).to.equal(403);
      // A spoofed left-most entry is not used.
      expect(await from('127.0.0.1', '203.0.113.1, 198.51.100.3')).to.equal(403);
      const res = await k.asClient(key, 'GET', '/client/v1/me', { remoteAddress: '198.51.100.1' });
      expect(res.json().code).to.equal('ADDRESS_NOT_ALLOWED');
    });

    it('answers CORS open and cookie-free on /client/v1, preflight included', async () => {
      const pre = await k.t.inject({
        method: 'OPTIONS',
        url: '/client/v1/me',
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization',
        },
      });
      expect(pre.headers['access-control-allow-origin']).to.equal('*');
      expect(pre.headers['access-control-allow-credentials']).to.equal(undefined);
      const { key } = await k.createClient({});
      const res = await k.asClient(null, 'GET', '/client/v1/me', {
        headers: { 'x-cms-key': key, origin: 'https://app.example' },
      });
      expect(res.headers['access-control-allow-origin']).to.equal('*');
      expect(res.headers['access-control-allow-credentials']).to.equal(undefined);
      expect(String(res.headers['access-control-expose-headers'])).to.include('RateLimit-Remaining');
    });
  });

  describe('identity provider tokens (jwt clients)', () => {
    let issuer: Issuer;
    let audience: string;
    before(async () => {
      issuer = await startIssuer();
      audience = `app-${Date.now()}`;
      await k.createClient({
        authMode: 'jwt',
        name: 'spa',
        jwt: { issuer: issuer.url, audience, maxTokenLifetimeSeconds: 600, clockSkewSeconds: 30 },
        scopes: ['data:read:Article', 'gateway:call:crm'],
      });
    });
    after(() => issuer?.close());

    const me = (token: string, headers: Record<string, string> = {}) =>
      k.asClient(null, 'GET', '/client/v1/me', { headers: { authorization: `Bearer ${token}`, ...headers } });

    it("accepts a valid token; the scopes are the client's narrowed by the token's scope claim", async () => {
      const res = await me(await issuer.token({ aud: audience, sub: 'u1', scope: 'data:read:Article openid' }), {
        origin: 'https://app.example',
      });
      expect(res.statusCode).to.equal(200);
      expect(res.json()).to.deep.include({ name: 'spa', authMode: 'jwt', scopes: ['data:read:Article'] });
      expect(res.headers['access-control-allow-origin']).to.equal('*');
    });

    it('answers 403 once the jwt client is suspended or its address list excludes the caller', async () => {
      const aud = `other-${Date.now()}`;
      const { id } = await k.createClient({
        authMode: 'jwt',
        jwt: { issuer: issuer.url, audience: aud },
        scopes: ['data:read:Article'],
      });
      const token = await issuer.token({ aud, scope: 'data:read:Article' });
      expect((await me(token)).statusCode).to.equal(200);
      await k.asAdmin('PATCH', `/api/v1/gateway/clients/${id}`, { status: 'suspended' });
      expect((await me(token)).json().code).to.equal('CLIENT_SUSPENDED');
      await k.asAdmin('PATCH', `/api/v1/gateway/clients/${id}`, { status: 'active', allowedAddresses: ['10.0.0.0/8'] });
      expect((await me(token)).json().code).to.equal('ADDRESS_NOT_ALLOWED');
    });

    it('answers 403 for a valid token whose claims give no access', async () => {
      const res = await me(await issuer.token({ aud: audience, sub: 'u1', scope: 'openid profile' }));
      expect(res.statusCode).to.equal(403);
      expect(res.json().code).to.equal('TOKEN_NO_ACCESS');
      expect((await me(await issuer.token({ aud: audience, sub: 'u1' }))).statusCode).to.equal(403);
    });

    it('answers 401 for a wrong audience, an expired token, a token from the future, too long a lifetime, a foreign signature or garbage', async () => {
      const scope = 'data:read:Article';
      const now = Math.floor(Date.now() / 1000);
      const cases = {
        audience: await issuer.token({ aud: 'someone-else', scope }),
        expired: await issuer.token({ aud: audience, scope }, { iat: now - 400, lifetime: 300 }),
        future: await issuer.token({ aud: audience, scope, nbf: now + 600 }),
        lifetime: await issuer.token({ aud: audience, scope }, { lifetime: 3600 }),
        signature: await issuer.token({ aud: audience, scope }, { key: await issuer.otherKey() }),
        issuer: await issuer.token({ aud: audience, scope }, { issuer: 'https://other.example' }),
        garbage: 'not.a.token',
      };
      for (const [name, token] of Object.entries(cases)) expect((await me(token)).statusCode, name).to.equal(401);
      // Within the clock skew an expired-by-10-seconds token still passes.
      expect(
        (await me(await issuer.token({ aud: audience, scope }, { iat: now - 310, lifetime: 300 }))).statusCode,
      ).to.equal(200);
    });

    it('bounds a token to its maximum lifetime from now, however iat, nbf and exp are dated (401)', async () => {
      const scope = 'data:read:Article';
      const now = Math.floor(clock.now().getTime() / 1000);
      const year = 365 * 24 * 3600;
      const cases = {
        // Issued "in a year" with a 600 s lifetime: valid for a year and 10 minutes if iat were trusted.
        'iat a year ahead': await issuer.token({ aud: audience, scope }, { iat: now + year, lifetime: 600 }),
        'iat beyond the skew': await issuer.token({ aud: audience, scope }, { iat: now + 45, lifetime: 300 }),
        'nbf after exp': await issuer.token({ aud: audience, scope, nbf: now + 20 }, { iat: now, lifetime: 10 }),
      };
      for (const [name, token] of Object.entries(cases)) {
        const res = await me(token);
        expect(res.statusCode, name).to.equal(401);
        expect(res.json().code, name).to.equal('INVALID_TOKEN');
      }
      // Within the skew (30 s) a clock running ahead at the provider is tolerated.
      expect((await me(await issuer.token({ aud: audience, scope }, { iat: now + 20 }))).statusCode).to.equal(200);
    });

    it('refuses alg none, an HS256 token keyed with the public key, and tokens missing exp or iat (401)', async () => {
      const now = Math.floor(clock.now().getTime() / 1000);
      const claims = { iss: issuer.url, aud: audience, scope: 'data:read:Article', iat: now, exp: now + 300 };
      const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
      const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
      const publicJwk = await issuer.publicJwk();
      const hsInput = `${b64({ alg: 'HS256', kid: publicJwk.kid })}.${b64(claims)}`;
      const hsSignature = createHmac('sha256', JSON.stringify(publicJwk)).update(hsInput).digest('base64url');
      const { exp: _exp, ...noExp } = claims;
      const { iat: _iat, ...noIat } = claims;
      const cases = {
        'alg none': unsigned,
        'HS256 with the public key': `${hsInput}.${hsSignature}`,
        'no exp': await issuer.sign(noExp),
        'no iat': await issuer.sign(noIat),
      };
      for (const [name, token] of Object.entries(cases)) {
        const res = await me(token);
        expect(res.statusCode, name).to.equal(401);
        expect(res.json().code, name).to.equal('INVALID_TOKEN');
      }
      expect((await me(await issuer.sign(claims))).statusCode).to.equal(200);
    });

    it('caches the key set, and fetches it again when the provider rotates its key', async () => {
      await me(await issuer.token({ aud: audience, scope: 'data:read:Article' }));
      const before = issuer.requests();
      expect((await me(await issuer.token({ aud: audience, scope: 'data:read:Article' }))).statusCode).to.equal(200);
      expect(issuer.requests()).to.equal(before);
      await issuer.rotate();
      // The cache is younger than the refresh cool-down: the new key id is unknown until it passes.
      clock.advance(60_000);
      expect((await me(await issuer.token({ aud: audience, scope: 'data:read:Article' }))).statusCode).to.equal(200);
      expect(issuer.requests()).to.be.greaterThan(before);
    });
  });
});

describe("client-api: provider documents through the gateway's outbound fetch when it is loaded", () => {
  it('fetches discovery and key set with outboundFetch.fetch', async () => {
    const issuer = await startIssuer();
    const fixture = fixtureCatalog([]);
    const k = await startClientKernel({ extraPlugins: [fixture.plugin] });
    try {
      await k.createClient({ authMode: 'jwt', jwt: { issuer: issuer.url, audience: 'a' }, scopes: ['data:read:X'] });
      const res = await k.asClient(await issuer.token({ aud: 'a', scope: 'data:read:X' }), 'GET', '/client/v1/me');
      expect(res.statusCode).to.equal(200);
      expect(fixture.outboundCalls).to.deep.equal([
        `${issuer.url}/.well-known/openid-configuration`,
        `${issuer.url}/jwks.json`,
      ]);
    } finally {
      await k.close();
      await issuer.close();
    }
  });
});
