import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type Adapter, type AdapterPayload } from 'oidc-provider';

/** A person at the test provider: signs in with `login` and `password` on its login form. */
export interface ProviderAccount {
  login: string;
  password: string;
  /** The provider's subject; by default `sub-<login>`. */
  sub?: string;
  email?: string;
  emailVerified?: boolean;
  name?: string;
  /** The `groups` claim (the role claim of the tests). */
  groups?: string[];
  /** What the provider asserts about the sign-in (`amr`), e.g. `['pwd', 'mfa']`. */
  amr?: string[];
}

export interface ProviderClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

/**
 * A real OpenID Provider (the `oidc-provider` package) on a free loopback port with its own signing
 * keys, a login form of its own (it checks the accounts' passwords and asserts their `amr`), and two
 * hooks a test uses to play a provider that misbehaves: the ID token of the next token answer can be
 * swapped for another one, and issued authorization codes can be made to run out.
 */
export interface TestOidcProvider {
  issuer: string;
  /** Accounts by login; change them between sign-ins (new groups, another e-mail). */
  accounts: Map<string, ProviderAccount>;
  /** Every ID token the token endpoint handed out, in order. */
  issuedIdTokens: string[];
  /** When set, the next token answer carries this ID token instead of its own (then it is cleared). */
  swapNextIdToken(idToken: string): void;
  /** Makes every authorization code issued so far expired. */
  expireCodes(): void;
  /**
   * Plays a browser from the provider's authorization URL: follows redirects, posts the login form
   * with the account's password, and returns the URL it is sent back to at `redirectUri`.
   */
  browse(authorizationUrl: string, login: string, redirectUri: string): Promise<URL>;
  /** As a client of its own: a full sign-in and code exchange, returning the ID token (for tests that replay one). */
  idTokenFor(client: ProviderClient, login: string, nonce: string): Promise<string>;
  /** Stops answering (a provider that is down); `close` also ends open connections. */
  close(): Promise<void>;
}

export async function startOidcProvider(opts: {
  clients: ProviderClient[];
  accounts: ProviderAccount[];
}): Promise<TestOidcProvider> {
  const server = http.createServer();
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const accounts = new Map(opts.accounts.map((a) => [a.login, a]));
  const subjectOf = (a: ProviderAccount) => a.sub ?? `sub-${a.login}`;
  const bySubject = (sub: string) => [...accounts.values()].find((a) => subjectOf(a) === sub);

  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: `test-${Date.now()}`, alg: 'RS256', use: 'sig' };

  const storage = new Map<string, { payload: AdapterPayload; model: string }>();
  const provider = new Provider(issuer, {
    clients: opts.clients.map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      redirect_uris: c.redirectUris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    })),
    adapter: memoryAdapter(storage),
    jwks: { keys: [jwk] },
    cookies: { keys: ['test-provider-cookie-key'] },
    pkce: { required: () => true },
    ttl: { AuthorizationCode: 60, Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600 },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    scopes: ['openid', 'email', 'profile', 'groups'],
    claims: { openid: ['sub', 'amr'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    // The ID token carries the scopes' claims (e-mail, groups) as most providers' do.
    conformIdTokenClaims: false,
    findAccount: async (_ctx, sub) => {
      const account = bySubject(sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        claims: async () => ({
          sub,
          ...(account.email !== undefined
            ? { email: account.email, email_verified: account.emailVerified ?? false }
            : {}),
          ...(account.name ? { name: account.name } : {}),
          ...(account.groups ? { groups: account.groups } : {}),
        }),
      };
    },
  });
  const providerCallback = provider.callback();

  let swap: string | null = null;
  const issuedIdTokens: string[] = [];

  server.on('request', (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    if (url.pathname.startsWith('/interaction/')) {
      interaction(req, res, url).catch((err) => {
        res.statusCode = 500;
        res.end(String(err));
      });
      return;
    }
    if (url.pathname === '/token') captureTokenAnswer(res);
    providerCallback(req, res);
  });

  /** Records the ID token of a token answer, or swaps it, before the answer leaves. */
  function captureTokenAnswer(res: http.ServerResponse): void {
    const end = res.end.bind(res) as (chunk?: unknown) => http.ServerResponse;
    res.end = ((chunk?: unknown) => {
      if (chunk === undefined || res.statusCode !== 200) return end(chunk);
      const body = JSON.parse(Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
      if (body.id_token) issuedIdTokens.push(body.id_token);
      if (swap && body.id_token) {
        body.id_token = swap;
        swap = null;
      }
      const text = JSON.stringify(body);
      res.setHeader('content-length', Buffer.byteLength(text));
      return end(text);
    }) as typeof res.end;
  }

  /** The provider's own login page: any account of `accounts` with its password. */
  async function interaction(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (req.method === 'GET') {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(
        `<form method="post" action="${url.pathname}"><input name="login"><input name="password" type="password"><button>Sign in</button></form>`,
      );
      return;
    }
    const form = new URLSearchParams(await readBody(req));
    const account = accounts.get(form.get('login') ?? '');
    if (!account || account.password !== form.get('password')) {
      res.statusCode = 401;
      res.end('wrong login or password');
      return;
    }
    const grant = new provider.Grant({ accountId: subjectOf(account), clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope));
    const grantId = await grant.save();
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: subjectOf(account), amr: account.amr ?? ['pwd'] }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  }

  const browse: TestOidcProvider['browse'] = async (authorizationUrl, login, redirectUri) => {
    const jar = new Map<string, string>();
    const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const keep = (res: Response) => {
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const eq = pair.indexOf('=');
        jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1));
      }
    };
    let next: { url: URL; init?: RequestInit } = { url: new URL(authorizationUrl) };
    for (let step = 0; step < 12; step++) {
      if (next.url.href.startsWith(redirectUri)) return next.url;
      const res = await fetch(next.url, {
        ...next.init,
        redirect: 'manual',
        headers: { ...(next.init?.headers as Record<string, string>), cookie: cookieHeader() },
      });
      keep(res);
      const location = res.headers.get('location');
      if (location) {
        next = { url: new URL(location, next.url) };
        continue;
      }
      const page = await res.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
      if (res.status !== 200 || !action) throw new Error(`provider answered ${res.status}: ${page.slice(0, 300)}`);
      const account = accounts.get(login);
      if (!account) throw new Error(`no account ${login}`);
      next = {
        url: new URL(action, next.url),
        init: {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ login, password: account.password }).toString(),
        },
      };
    }
    throw new Error('the provider never sent the browser back');
  };

  return {
    issuer,
    accounts,
    issuedIdTokens,
    swapNextIdToken(idToken) {
      swap = idToken;
    },
    expireCodes() {
      for (const entry of storage.values())
        if (entry.model === 'AuthorizationCode') entry.payload.exp = Math.floor(Date.now() / 1000) - 3600;
    },
    browse,
    async idTokenFor(client, login, nonce) {
      const redirectUri = client.redirectUris[0];
      const verifier = 'v'.repeat(43) + Math.random().toString(36).slice(2);
      const challenge = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))).toString(
        'base64url',
      );
      const authorize = new URL('/auth', issuer);
      authorize.search = new URLSearchParams({
        client_id: client.clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid email profile groups',
        nonce,
        state: 'own',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }).toString();
      const back = await browse(authorize.href, login, redirectUri);
      const res = await fetch(new URL('/token', issuer), {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: back.searchParams.get('code') ?? '',
          redirect_uri: redirectUri,
          code_verifier: verifier,
        }).toString(),
      });
      const body = (await res.json()) as { id_token?: string };
      if (!body.id_token) throw new Error(`no ID token: ${JSON.stringify(body)}`);
      return body.id_token;
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** oidc-provider's storage for one provider instance (its built-in one is shared by every instance of a process). */
function memoryAdapter(storage: Map<string, { payload: AdapterPayload; model: string }>) {
  return class MemoryAdapter implements Adapter {
    constructor(private readonly model: string) {}
    private key(id: string) {
      return `${this.model}:${id}`;
    }
    async upsert(id: string, payload: AdapterPayload): Promise<void> {
      storage.set(this.key(id), { payload: { ...payload }, model: this.model });
    }
    async find(id: string): Promise<AdapterPayload | undefined> {
      return storage.get(this.key(id))?.payload;
    }
    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      for (const entry of storage.values())
        if (entry.model === this.model && entry.payload.uid === uid) return entry.payload;
      return undefined;
    }
    async findByUserCode(): Promise<AdapterPayload | undefined> {
      return undefined;
    }
    async consume(id: string): Promise<void> {
      const entry = storage.get(this.key(id));
      if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string): Promise<void> {
      storage.delete(this.key(id));
    }
    async revokeByGrantId(grantId: string): Promise<void> {
      for (const [key, entry] of storage) if (entry.payload.grantId === grantId) storage.delete(key);
    }
  };
}
