import { HttpError, type Clock, type SecretBox } from '../../../kernel/index.ts';
import type { Endpoint } from '../model.ts';
import type { OutboundHttp } from '../outbound/outbound-http.ts';
import { unseal } from './route-caller.ts';

interface CachedToken {
  accessToken: string;
  /** When to fetch a new one: some time before the token really expires. */
  refreshAt: number;
  /** What the token was issued for; a changed endpoint setting makes it stale. */
  issuedFor: string;
}

const TOKEN_ANSWER_BYTES = 64 * 1024;

/**
 * OAuth2 client-credentials tokens per endpoint: cached until shortly before expiry (10% of the
 * lifetime, at most a minute), fetched by one caller at a time (the others wait for the same
 * request), dropped when the upstream refuses a token (401) or the endpoint changes.
 */
export class OAuth2Tokens {
  private readonly cache = new Map<string, CachedToken>();
  private readonly inFlight = new Map<string, Promise<CachedToken>>();

  constructor(private readonly deps: { outbound: OutboundHttp; secretBox: SecretBox; clock: Clock }) {}

  async token(endpoint: Endpoint): Promise<string> {
    const issuedFor = [
      endpoint.authConfig.tokenUrl,
      endpoint.authConfig.clientId,
      endpoint.authConfig.scope,
      endpoint.authConfig.audience,
      endpoint.sealedSecret,
    ].join('\n');
    const cached = this.cache.get(endpoint.id);
    if (cached && cached.issuedFor === issuedFor && this.deps.clock.now().getTime() < cached.refreshAt)
      return cached.accessToken;
    let pending = this.inFlight.get(endpoint.id);
    if (!pending) {
      pending = this.fetchToken(endpoint, issuedFor).finally(() => this.inFlight.delete(endpoint.id));
      this.inFlight.set(endpoint.id, pending);
    }
    return (await pending).accessToken;
  }

  invalidate(endpointId: string): void {
    this.cache.delete(endpointId);
  }

  private async fetchToken(endpoint: Endpoint, issuedFor: string): Promise<CachedToken> {
    const { tokenUrl, clientId, scope, audience, clientAuth } = endpoint.authConfig;
    if (!tokenUrl || !clientId || !endpoint.sealedSecret)
      throw new HttpError(
        502,
        'UPSTREAM_AUTH_FAILED',
        `Endpoint ${endpoint.name} has no complete OAuth2 client credentials`,
      );
    const secret = unseal(this.deps.secretBox, endpoint);
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) form.set('scope', scope);
    if (audience) form.set('audience', audience);
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (clientAuth === 'body') {
      form.set('client_id', clientId);
      form.set('client_secret', secret);
    } else {
      // RFC 6749 2.3.1: form-encode both parts before Basic.
      const basic = `${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`;
      headers.authorization = `Basic ${Buffer.from(basic).toString('base64')}`;
    }
    const answer = await this.deps.outbound.request(tokenUrl, {
      method: 'POST',
      headers,
      body: form.toString(),
      timeoutMs: endpoint.timeoutMs,
      maxBytes: TOKEN_ANSWER_BYTES,
    });
    let parsed: { access_token?: unknown; expires_in?: unknown } | undefined;
    try {
      parsed = JSON.parse(answer.body.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    if (answer.status !== 200 || typeof parsed?.access_token !== 'string' || parsed.access_token === '') {
      throw new HttpError(
        502,
        'UPSTREAM_AUTH_FAILED',
        `The token endpoint of ${endpoint.name} answered ${answer.status} without an access token`,
      );
    }
    const lifetimeMs =
      Math.max(
        1,
        Number.isFinite(Number(parsed.expires_in)) && Number(parsed.expires_in) > 0 ? Number(parsed.expires_in) : 3600,
      ) * 1000;
    const margin = Math.min(60_000, lifetimeMs * 0.1);
    const token = {
      accessToken: parsed.access_token,
      refreshAt: this.deps.clock.now().getTime() + lifetimeMs - margin,
      issuedFor,
    };
    this.cache.set(endpoint.id, token);
    return token;
  }
}
