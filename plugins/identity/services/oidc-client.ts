import type * as OpenId from 'openid-client';
import { type Clock, HttpError, badRequest, isHttpError, type Logger, type ServiceMap } from '../../../kernel/index.ts';

/** Seconds each request to the provider may take (discovery, token, keys, userinfo). */
const PROVIDER_TIMEOUT_SECONDS = 10;
/** The spec's "a minute of clock tolerance" for the ID token's `iat`, `exp` and `nbf`. */
const CLOCK_TOLERANCE_SECONDS = 60;
/** How long a discovered provider (metadata, keys) is reused before it is fetched again. */
const DISCOVERY_TTL_MS = 10 * 60_000;
/** Largest answer of the provider read (discovery, keys, tokens, userinfo are a few KB). */
const PROVIDER_ANSWER_BYTES = 1024 * 1024;
/** Statuses whose Response may not carry a body. */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

type OutboundFetch = ServiceMap['outboundFetch'];

/**
 * openid-client's fetch, sent through the gateway's `outboundFetch` port: the outbound address policy
 * (loopback refused in production, link-local and metadata addresses always, each address checked
 * after DNS resolution and every redirect hop re-checked), its timeouts and a size cap.
 */
function policyFetch(outbound: OutboundFetch) {
  return async (
    url: string,
    options: { method?: string; headers?: ConstructorParameters<typeof Headers>[0]; body?: unknown },
  ) => {
    const answer = await outbound.fetch(url, {
      method: options.method,
      headers: Object.fromEntries(new Headers(options.headers)),
      body: options.body === undefined || options.body === null ? undefined : String(options.body),
      timeoutMs: PROVIDER_TIMEOUT_SECONDS * 1000,
      maxBytes: PROVIDER_ANSWER_BYTES,
    });
    if (answer.truncated) throw new Error(`the provider answered more than ${PROVIDER_ANSWER_BYTES} bytes`);
    const body = NULL_BODY_STATUSES.has(answer.status) ? null : new Uint8Array(answer.body);
    return new Response(body, { status: answer.status, headers: answer.headers });
  };
}

/** What the relying party needs to talk to the provider. */
export interface ProviderAccess {
  issuer: string;
  clientId: string;
  clientSecret: string | null;
}

/** The validated result of a sign-in at the provider. */
export interface ProviderIdentity {
  /** Claims of the validated ID token, completed by the userinfo answer when the token lacks some. */
  claims: Record<string, unknown>;
}

let openIdModule: Promise<typeof OpenId> | undefined;
/** openid-client is loaded on first use: most processes never sign anyone in through a provider. */
const openId = () => (openIdModule ??= import('openid-client'));

const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Why this issuer URL cannot be used, or null. `https://` always; `http://` only outside production
 * and only on a loopback address (the tests' provider, a Keycloak on the same machine).
 */
export function issuerProblem(issuer: string, production: boolean): string | null {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return 'issuer: not a URL';
  }
  if (url.search || url.hash) return 'issuer: an issuer URL has no query or fragment';
  if (url.username || url.password) return 'issuer: an issuer URL has no user name or password';
  if (url.protocol === 'https:') return null;
  if (url.protocol !== 'http:') return 'issuer: must be an https:// URL';
  if (production) return 'issuer: must be an https:// URL in production';
  if (!LOOPBACK_HOSTS.test(url.hostname))
    return 'issuer: http:// is accepted only on a loopback address (localhost, 127.0.0.1, [::1]) and never in production';
  return null;
}

/**
 * The relying-party side of OpenID Connect, built on openid-client: discovery (cached for a while),
 * the authorization URL with PKCE (S256), state and nonce, and the code exchange whose ID token is
 * checked for issuer, audience, expiry, nonce and its signature against the provider's JWKS. Every
 * failure becomes an HttpError that says what went wrong: the provider unreachable is a 502, never
 * the database's 503 or a 500.
 */
export class OidcClient {
  private readonly discovered = new Map<string, { at: number; config: Promise<OpenId.Configuration> }>();

  /** Requests to the provider: under the gateway's outbound policy when it is loaded, else plain fetch. */
  private readonly fetch: ReturnType<typeof policyFetch> | undefined;

  constructor(private readonly deps: { clock: Clock; log: Logger; production: boolean; outbound?: OutboundFetch }) {
    this.fetch = deps.outbound ? policyFetch(deps.outbound) : undefined;
  }

  /** Fetches and checks the issuer's discovery document (used when settings are saved). */
  async check(access: ProviderAccess): Promise<void> {
    const config = await this.configuration(access, { fresh: true, field: 'issuer' });
    const meta = config.serverMetadata();
    const missing = (['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const).filter((k) => !meta[k]);
    if (missing.length)
      throw badRequest(
        `issuer: the discovery document has no ${missing.join(', ')}`,
        'issuer',
        'OIDC_DISCOVERY_INVALID',
      );
    if (meta.response_types_supported && !meta.response_types_supported.includes('code'))
      throw badRequest(
        'issuer: the provider does not offer the authorization code flow (response type "code")',
        'issuer',
        'OIDC_DISCOVERY_INVALID',
      );
    if (meta.code_challenge_methods_supported && !meta.code_challenge_methods_supported.includes('S256'))
      throw badRequest('issuer: the provider does not offer PKCE with S256', 'issuer', 'OIDC_DISCOVERY_INVALID');
  }

  /** The provider's authorization URL for one sign-in. */
  async authorizationUrl(
    access: ProviderAccess,
    params: { redirectUri: string; scopes: string[]; state: string; nonce: string; codeVerifier: string },
  ): Promise<string> {
    const client = await openId();
    const config = await this.configuration(access);
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: params.redirectUri,
      scope: params.scopes.join(' '),
      response_type: 'code',
      code_challenge: await client.calculatePKCECodeChallenge(params.codeVerifier),
      code_challenge_method: 'S256',
      state: params.state,
      nonce: params.nonce,
    });
    return url.href;
  }

  /** Fresh random values for one sign-in. */
  async randomChecks(): Promise<{ state: string; nonce: string; codeVerifier: string }> {
    const client = await openId();
    return { state: client.randomState(), nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier() };
  }

  /**
   * Exchanges the code of `callbackUrl` (the redirect URI with the provider's query) and validates
   * the answer; the claims of the ID token, completed from userinfo when `wanted` claims are missing.
   */
  async redeem(
    access: ProviderAccess,
    callbackUrl: URL,
    checks: { state: string; nonce: string; codeVerifier: string },
    wanted: readonly string[],
  ): Promise<ProviderIdentity> {
    const client = await openId();
    const config = await this.configuration(access);
    try {
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims();
      if (!idClaims) throw new HttpError(401, 'OIDC_TOKEN_INVALID', 'The provider sent no ID token');
      const claims: Record<string, unknown> = { ...idClaims };
      const lacking = wanted.some((name) => !(name.split('.')[0] in claims));
      if (lacking && config.serverMetadata().userinfo_endpoint && tokens.access_token) {
        // Some providers put e-mail or groups only in userinfo; its `sub` must be the ID token's.
        const info = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
        for (const [key, value] of Object.entries(info)) if (!(key in claims)) claims[key] = value;
      }
      return { claims };
    } catch (err) {
      throw this.explain(err, 'sign-in');
    }
  }

  private async configuration(
    access: ProviderAccess,
    opts: { fresh?: boolean; field?: string } = {},
  ): Promise<OpenId.Configuration> {
    const problem = issuerProblem(access.issuer, this.deps.production);
    if (problem) throw badRequest(problem, opts.field ?? 'issuer', 'OIDC_ISSUER_INVALID');
    const key = `${access.issuer}\n${access.clientId}\n${access.clientSecret ?? ''}`;
    const now = this.deps.clock.now().getTime();
    const cached = this.discovered.get(key);
    if (!opts.fresh && cached && now - cached.at < DISCOVERY_TTL_MS) return cached.config;
    const config = this.discover(access).catch((err) => {
      this.discovered.delete(key);
      throw this.explain(err, 'discovery', opts.field);
    });
    this.discovered.clear(); // one provider: a newer configuration replaces any other
    this.discovered.set(key, { at: now, config });
    return config;
  }

  private async discover(access: ProviderAccess): Promise<OpenId.Configuration> {
    const client = await openId();
    const insecure = new URL(access.issuer).protocol === 'http:';
    const config = await client.discovery(new URL(access.issuer), access.clientId, undefined, undefined, {
      execute: insecure ? [client.allowInsecureRequests] : [],
      timeout: PROVIDER_TIMEOUT_SECONDS,
      ...(this.fetch ? { [client.customFetch]: this.fetch as OpenId.CustomFetch } : {}),
    });
    // The client authentication the provider offers: client_secret_basic is the default of the
    // standard when it lists none; a client without a secret is a public client (PKCE only).
    const methods = config.serverMetadata().token_endpoint_auth_methods_supported;
    const auth = !access.clientSecret
      ? client.None()
      : !methods || methods.includes('client_secret_basic')
        ? client.ClientSecretBasic(access.clientSecret)
        : client.ClientSecretPost(access.clientSecret);
    const ready = new client.Configuration(
      config.serverMetadata(),
      access.clientId,
      {
        [client.clockTolerance]: CLOCK_TOLERANCE_SECONDS,
        client_secret: access.clientSecret ?? undefined,
      },
      auth,
    );
    ready.timeout = PROVIDER_TIMEOUT_SECONDS;
    if (this.fetch) ready[client.customFetch] = this.fetch as OpenId.CustomFetch;
    if (insecure) client.allowInsecureRequests(ready);
    // ID tokens come straight from the token endpoint, but their signature is still checked
    // against the provider's published keys (JWKS), not only trusted because of the TLS channel.
    client.enableNonRepudiationChecks(ready);
    return ready;
  }

  /** An error of openid-client or the network as an HttpError naming what went wrong. */
  private explain(err: unknown, step: 'discovery' | 'sign-in', field?: string): unknown {
    // The outbound policy refused the provider's address (openid-client may wrap it as the cause): a
    // setting that can never work, or a provider pointing somewhere it may not.
    const cause = (err as { cause?: unknown })?.cause;
    const refused = [err, cause].find((e) => isHttpError(e) && e.code === 'OUTBOUND_REFUSED');
    if (refused && field) return badRequest(`${field}: ${(refused as Error).message}`, field, 'OUTBOUND_REFUSED');
    if (refused) return refused;
    if (isHttpError(err)) return err;
    const e = err as { name?: string; code?: string; message?: string; error?: string; cause?: unknown };
    const unreachable =
      (e.name === 'TypeError' && /fetch failed/i.test(e.message ?? '')) ||
      e.code === 'OAUTH_TIMEOUT' ||
      e.code === 'OAUTH_ABORT' ||
      e.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' ||
      e.code === 'OAUTH_RESPONSE_IS_NOT_JSON';
    this.deps.log.warn({ err, step }, 'single sign-on: provider request failed');
    if (step === 'discovery') {
      const what = unreachable
        ? 'the discovery document could not be fetched (provider unreachable or not answering with JSON)'
        : `the discovery document was refused: ${e.message ?? 'invalid'}`;
      if (field) return badRequest(`${field}: ${what}`, field, 'OIDC_DISCOVERY_FAILED');
      return new HttpError(502, 'OIDC_PROVIDER_UNAVAILABLE', `The sign-in provider is not available: ${what}`);
    }
    if (unreachable)
      return new HttpError(502, 'OIDC_PROVIDER_UNAVAILABLE', 'The sign-in provider did not answer; try again later');
    if (e.name === 'ResponseBodyError')
      return new HttpError(
        401,
        'OIDC_REFUSED',
        `The sign-in provider refused the sign-in (${e.error ?? 'error'}); start again`,
      );
    if (e.name === 'AuthorizationResponseError')
      return new HttpError(401, 'OIDC_DENIED', `The sign-in provider ended the sign-in (${e.error ?? 'error'})`);
    return new HttpError(
      401,
      'OIDC_TOKEN_INVALID',
      `The sign-in provider's answer failed validation (${e.message ?? 'invalid'}); start again`,
    );
  }
}
