/** What an API client record holds (table api_clients) and how the admin API shows it. */
export type AuthMode = 'key' | 'jwt';
export type ClientStatus = 'active' | 'suspended';

export interface ClientLimits {
  /** Requests per minute over the whole client surface; the plugin default when unset. */
  requestsPerMinute?: number;
}

/** The identity provider registration of a `jwt` client. */
export interface JwtRegistration {
  /** Issuer URL; discovery at `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  /** Required `aud` value. */
  audience: string;
  /** Claim listing the token's scopes (space-separated string or array); default `scope`. */
  scopeClaim?: string;
  clockSkewSeconds?: number;
  maxTokenLifetimeSeconds?: number;
}

export interface ClientRow {
  id: string;
  name: string;
  auth_mode: AuthMode;
  status: ClientStatus;
  scopes: string[];
  limits: ClientLimits;
  allowed_addresses: string[];
  expires_at: Date | null;
  jwt: JwtRegistration | null;
  created_at: Date;
  updated_at: Date;
}

export interface KeyRow {
  id: string;
  client_id: string;
  prefix: string;
  key_hash: string;
  created_at: Date;
  revoked_at: Date | null;
}

export interface KeyDto {
  id: string;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface ClientDto {
  id: string;
  name: string;
  authMode: AuthMode;
  status: ClientStatus;
  scopes: string[];
  limits: ClientLimits;
  allowedAddresses: string[];
  expiresAt: string | null;
  jwt: JwtRegistration | null;
  keys: KeyDto[];
  createdAt: string;
  updatedAt: string;
}

export const toKeyDto = (k: KeyRow): KeyDto => ({
  id: k.id,
  prefix: k.prefix,
  createdAt: k.created_at.toISOString(),
  revokedAt: k.revoked_at?.toISOString() ?? null,
});

export function toClientDto(c: ClientRow, keys: KeyRow[]): ClientDto {
  return {
    id: c.id,
    name: c.name,
    authMode: c.auth_mode,
    status: c.status,
    scopes: c.scopes,
    limits: c.limits,
    allowedAddresses: c.allowed_addresses,
    expiresAt: c.expires_at?.toISOString() ?? null,
    jwt: c.jwt,
    keys: keys.map(toKeyDto),
    createdAt: c.created_at.toISOString(),
    updatedAt: c.updated_at.toISOString(),
  };
}
