import type { FastifyRequest } from 'fastify';
import { decodeJwt } from 'jose';
import { forbidden, hashToken, safeEqual, unauthorized, type Clock, type Db } from '../../../kernel/index.ts';
import type { ClientRow } from '../model.ts';
import { findByKeyHash, jwtClientsOfIssuer } from '../store/client-store.ts';
import { AddressAllowList } from './addresses.ts';
import type { IdentityProviders } from './identity-providers.ts';
import { KEY_PREFIX } from './keys.ts';
import { ScopeSet } from './scopes.ts';

/** Who is calling /client/v1, once authenticated. */
export interface ClientPrincipal {
  client: ClientRow;
  /** Effective scopes: the client's, narrowed by the token's scope claim for `jwt` clients. */
  scopes: ScopeSet;
  scopeList: string[];
  addresses: AddressAllowList;
  keyId?: string;
}

interface CachedKey {
  principal: ClientPrincipal;
  until: number;
}

/**
 * Authenticates a /client/v1 request: an API key (`Authorization: Bearer wbk_...` or `X-Cms-Key`) or
 * an identity provider token for a `jwt` client. Missing or invalid credentials answer 401; a key
 * sent by a browser (`Origin`), a suspended or expired client, a caller address outside the client's
 * list and a token whose claims give no access answer 403.
 */
export class ClientAuthenticator {
  // Verified key -> client, reused briefly so the hot path does not hit the database on every call.
  private readonly keyCache = new Map<string, CachedKey>();
  // Issuer -> its jwt clients, for the same time: a token names its issuer, the audience picks the client.
  private readonly issuerCache = new Map<string, { clients: ClientRow[]; until: number }>();
  // Misses being looked up: concurrent callers with the same key (or issuer) share one query, so a
  // burst of calls with a key not yet (or no longer) cached cannot take the whole database pool.
  private readonly keyLookups = new InFlightLookups<ClientPrincipal>();
  private readonly issuerLookups = new InFlightLookups<ClientRow[]>();
  // Bumped by `invalidate`: a lookup that started before it answers its callers but is not cached.
  private generation = 0;

  constructor(private readonly deps: { db: Db; clock: Clock; providers: IdentityProviders; cacheMs: number }) {}

  /** Forgets every cached lookup (a client changed, a key was revoked). */
  invalidate(): void {
    this.generation++;
    this.keyCache.clear();
    this.issuerCache.clear();
    this.keyLookups.clear();
    this.issuerLookups.clear();
  }

  /**
   * The caller's principal. A key already verified (the common case) is answered synchronously, so
   * the request hook adds no promise round trip; a first sight of a key or a token waits for the
   * database or the identity provider.
   */
  authenticate(request: FastifyRequest): ClientPrincipal | Promise<ClientPrincipal> {
    const credential = credentialOf(request);
    if (!credential) throw unauthorized('An API key or access token is required', 'CLIENT_UNAUTHENTICATED');
    const ip = request.ip;
    if (credential.kind === 'token')
      return this.byToken(credential.value).then((p) => this.usable(p, ip, this.deps.clock.now().getTime()));
    // Keys are server secrets: a browser page holding one has leaked it.
    if (request.headers.origin !== undefined)
      throw forbidden('API keys are not accepted from browsers (Origin header present)', 'KEY_FROM_BROWSER');
    const key = credential.value;
    if (!key.startsWith(KEY_PREFIX) || key.length > 200) throw unauthorized('Invalid API key', 'INVALID_KEY');
    const keyHash = hashToken(key);
    // Found by its hash: the map's string match compares digests an attacker cannot steer, not keys.
    const cached = this.keyCache.get(keyHash);
    const now = this.deps.clock.now().getTime();
    if (cached && cached.until > now) return this.usable(cached.principal, ip, now);
    return this.byKeyHash(keyHash).then((p) => this.usable(p, ip, now));
  }

  private usable(p: ClientPrincipal, ip: string, now: number): ClientPrincipal {
    if (p.client.status !== 'active') throw forbidden('This client is suspended', 'CLIENT_SUSPENDED');
    if (p.client.expires_at && p.client.expires_at.getTime() <= now)
      throw forbidden('This client has expired', 'CLIENT_EXPIRED');
    if (!p.addresses.allows(ip))
      throw forbidden(`Calls from ${ip} are not allowed for this client`, 'ADDRESS_NOT_ALLOWED');
    return p;
  }

  private byKeyHash(keyHash: string): Promise<ClientPrincipal> {
    return this.keyLookups.run(keyHash, () => this.lookUpKey(keyHash));
  }

  private async lookUpKey(keyHash: string): Promise<ClientPrincipal> {
    const generation = this.generation;
    const found = await findByKeyHash(this.deps.db, keyHash);
    if (!found || !safeEqual(found.key.key_hash, keyHash) || found.client.auth_mode !== 'key')
      throw unauthorized('Invalid API key', 'INVALID_KEY');
    const principal = principalOf(found.client, found.client.scopes, found.key.id);
    if (this.deps.cacheMs > 0 && generation === this.generation) {
      if (this.keyCache.size > 10_000) this.keyCache.clear();
      this.keyCache.set(keyHash, { principal, until: this.deps.clock.now().getTime() + this.deps.cacheMs });
    }
    return principal;
  }

  private async byToken(token: string): Promise<ClientPrincipal> {
    let issuer: string | undefined;
    let audiences: string[] = [];
    try {
      const claims = decodeJwt(token);
      issuer = claims.iss;
      audiences = typeof claims.aud === 'string' ? [claims.aud] : (claims.aud ?? []);
    } catch {
      throw unauthorized('Invalid API key or access token', 'INVALID_TOKEN');
    }
    if (!issuer) throw unauthorized('The token names no issuer', 'INVALID_TOKEN');
    const client = (await this.clientsOfIssuer(issuer)).find((c) => c.jwt && audiences.includes(c.jwt.audience));
    if (!client?.jwt) throw unauthorized('No client is registered for this token issuer and audience', 'INVALID_TOKEN');
    const claims = await this.deps.providers.verify(token, client.jwt);
    const granted = scopesIn(claims[client.jwt.scopeClaim ?? 'scope']);
    const effective = client.scopes.filter((s) => granted.has(s));
    const principal = principalOf(client, effective);
    // Checked before the claims so a suspended client hears "suspended", not "no access".
    this.assertUsableBeforeClaims(principal);
    if (effective.length === 0)
      throw forbidden("The token is valid but its claims give no access to this client's scopes", 'TOKEN_NO_ACCESS');
    return principal;
  }

  private async clientsOfIssuer(issuer: string): Promise<ClientRow[]> {
    const now = this.deps.clock.now().getTime();
    const cached = this.issuerCache.get(issuer);
    if (cached && cached.until > now) return cached.clients;
    const generation = this.generation;
    const clients = await this.issuerLookups.run(issuer, () => jwtClientsOfIssuer(this.deps.db, issuer));
    // Only issuers that have clients are remembered: made-up issuers cannot fill the map.
    if (this.deps.cacheMs > 0 && clients.length > 0 && generation === this.generation) {
      if (this.issuerCache.size > 1_000) this.issuerCache.clear();
      this.issuerCache.set(issuer, { clients, until: now + this.deps.cacheMs });
    }
    return clients;
  }

  private assertUsableBeforeClaims(p: ClientPrincipal): void {
    if (p.client.status !== 'active') throw forbidden('This client is suspended', 'CLIENT_SUSPENDED');
  }
}

/** One promise per key while its lookup runs; callers arriving meanwhile share it. */
class InFlightLookups<T> {
  private readonly running = new Map<string, Promise<T>>();

  run(key: string, lookup: () => Promise<T>): Promise<T> {
    const running = this.running.get(key);
    if (running) return running;
    const started = lookup();
    this.running.set(key, started);
    const forget = () => {
      if (this.running.get(key) === started) this.running.delete(key);
    };
    started.then(forget, forget);
    return started;
  }

  clear(): void {
    this.running.clear();
  }
}

function principalOf(client: ClientRow, scopes: string[], keyId?: string): ClientPrincipal {
  return {
    client,
    scopes: new ScopeSet(scopes),
    scopeList: scopes,
    addresses: new AddressAllowList(client.allowed_addresses),
    keyId,
  };
}

/** A space-separated string (OAuth `scope`) or an array of strings (`scp`, `roles`...). */
function scopesIn(claim: unknown): Set<string> {
  if (typeof claim === 'string') return new Set(claim.split(/\s+/).filter(Boolean));
  if (Array.isArray(claim)) return new Set(claim.filter((s): s is string => typeof s === 'string'));
  return new Set();
}

function credentialOf(request: FastifyRequest): { kind: 'key' | 'token'; value: string } | undefined {
  const header = request.headers['x-cms-key'];
  const key = Array.isArray(header) ? header[0] : header;
  if (key) return { kind: 'key', value: key.trim() };
  const auth = request.headers.authorization;
  if (!auth) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
  if (!match) return undefined;
  return { kind: match[1].startsWith(KEY_PREFIX) ? 'key' : 'token', value: match[1] };
}
