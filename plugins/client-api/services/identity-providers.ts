import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { request } from 'undici';
import { unauthorized, type Clock, type Logger } from '../../../kernel/index.ts';
import type { JwtRegistration } from '../model.ts';

/** How discovery documents and key sets are fetched: the gateway's outbound policy when it is loaded. */
export type DocumentFetcher = (url: string) => Promise<{ status: number; body: Buffer }>;

const MAX_DOCUMENT_BYTES = 256 * 1024;
const FETCH_TIMEOUT_MS = 5_000;
// A token signed with a key id we do not know triggers at most one key set refresh per issuer this often.
const REFRESH_COOLDOWN_MS = 30_000;
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

export const DEFAULT_CLOCK_SKEW_SECONDS = 60;
export const DEFAULT_MAX_TOKEN_LIFETIME_SECONDS = 3_600;

/** A direct fetch (no gateway loaded): timeouts and a size cap, no redirects. */
export const directFetcher: DocumentFetcher = async (url) => {
  const res = await request(url, {
    method: 'GET',
    headers: { accept: 'application/json' },
    headersTimeout: FETCH_TIMEOUT_MS,
    bodyTimeout: FETCH_TIMEOUT_MS,
  });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += (chunk as Buffer).length;
    if (size > MAX_DOCUMENT_BYTES) {
      res.body.destroy();
      throw new Error(`${url} answered more than ${MAX_DOCUMENT_BYTES} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return { status: res.statusCode, body: Buffer.concat(chunks) };
};

interface IssuerKeys {
  keys: JWTVerifyGetKey;
  fetchedAt: number;
}

/**
 * Verifies access tokens of `jwt` clients against their identity provider: discovery
 * (`<issuer>/.well-known/openid-configuration`, whose `issuer` must match), its `jwks_uri`, then the
 * signature (asymmetric algorithms only), issuer, audience, `exp`/`nbf`/`iat` with the clock skew (an
 * `iat` in the future is refused), and a maximum lifetime (`exp - iat` and `exp - now`). Key sets are
 * cached per issuer.
 */
export class IdentityProviders {
  private readonly cache = new Map<string, IssuerKeys>();
  private readonly pending = new Map<string, Promise<IssuerKeys>>();

  constructor(
    private readonly deps: { clock: Clock; log: Logger; fetcher: () => DocumentFetcher; cacheSeconds: number },
  ) {}

  async verify(token: string, reg: JwtRegistration): Promise<JWTPayload> {
    const keys = await this.keysOf(reg.issuer, false);
    const skew = reg.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS;
    const max = reg.maxTokenLifetimeSeconds ?? DEFAULT_MAX_TOKEN_LIFETIME_SECONDS;
    const options = {
      issuer: reg.issuer,
      audience: reg.audience,
      clockTolerance: skew,
      algorithms: ALGORITHMS,
      requiredClaims: ['exp', 'iat'],
      // Also refuses an `iat` later than now plus the skew: a token "issued" in the future would
      // otherwise carry its whole lifetime from that date (iat = now + 1 year, exp = iat + 600).
      maxTokenAge: max,
      currentDate: this.deps.clock.now(),
    };
    let payload: JWTPayload;
    try {
      payload = (await jwtVerify(token, keys.keys, options)).payload;
    } catch (err) {
      if (
        !(err instanceof joseErrors.JWKSNoMatchingKey) ||
        this.deps.clock.now().getTime() - keys.fetchedAt < REFRESH_COOLDOWN_MS
      )
        throw invalidToken(err);
      // The provider may have rotated its keys since we fetched them.
      const fresh = await this.keysOf(reg.issuer, true);
      payload = (
        await jwtVerify(token, fresh.keys, options).catch((e: unknown) => {
          throw invalidToken(e);
        })
      ).payload;
    }
    assertLifetime(payload, max, skew, this.deps.clock.now().getTime() / 1000);
    return payload;
  }

  private async keysOf(issuer: string, refresh: boolean): Promise<IssuerKeys> {
    const cached = this.cache.get(issuer);
    if (!refresh && cached && this.deps.clock.now().getTime() - cached.fetchedAt < this.deps.cacheSeconds * 1000)
      return cached;
    let pending = this.pending.get(issuer);
    if (!pending) {
      pending = this.load(issuer).finally(() => this.pending.delete(issuer));
      this.pending.set(issuer, pending);
    }
    return pending;
  }

  private async load(issuer: string): Promise<IssuerKeys> {
    try {
      const discovery = await this.json(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`);
      if (discovery.issuer !== issuer) throw new Error(`discovery names issuer ${String(discovery.issuer)}`);
      if (typeof discovery.jwks_uri !== 'string') throw new Error('discovery has no jwks_uri');
      const jwks = await this.json(discovery.jwks_uri);
      if (!Array.isArray(jwks.keys)) throw new Error('key set has no keys');
      const loaded = { keys: createLocalJWKSet(jwks as { keys: [] }), fetchedAt: this.deps.clock.now().getTime() };
      this.cache.set(issuer, loaded);
      return loaded;
    } catch (err) {
      this.deps.log.warn({ issuer, err: (err as Error).message }, 'identity provider keys could not be loaded');
      // The caller's token cannot be checked: it is not accepted (401), the provider's trouble is logged.
      throw unauthorized('The token could not be verified against its identity provider', 'INVALID_TOKEN');
    }
  }

  private async json(url: string): Promise<Record<string, unknown>> {
    const res = await this.deps.fetcher()(url);
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    const value = JSON.parse(res.body.toString('utf8')) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new Error(`${url} is not a JSON object`);
    return value as Record<string, unknown>;
  }
}

/**
 * However the claims are dated, a token is accepted for at most `max` seconds (plus the skew) from
 * now: `exp - iat`, `exp - now` and the window from `nbf` are each bounded, and `nbf` may not come
 * after `exp`. jose has already checked `exp`, `nbf` and `iat` against now with the skew.
 */
function assertLifetime(payload: JWTPayload, max: number, skew: number, now: number): void {
  const exp = payload.exp as number;
  const iat = payload.iat as number;
  const refuse = (why: string) => unauthorized(`Token refused (${why})`, 'INVALID_TOKEN');
  if (exp - iat > max) throw refuse(`lifetime ${exp - iat}s is over the client's maximum of ${max}s`);
  if (exp - now > max + skew) throw refuse(`it expires more than ${max}s from now`);
  if (payload.nbf !== undefined && payload.nbf > exp) throw refuse('nbf is after exp');
}

function invalidToken(err: unknown): Error {
  const reason = err instanceof joseErrors.JOSEError ? err.code : 'ERR_INVALID';
  return unauthorized(`Token refused (${reason})`, 'INVALID_TOKEN');
}
