/** An API client as `/api/v1/gateway/clients` reads it (plugins/client-api/README.md): never a key. */
export interface ApiClient {
  id: string;
  name: string;
  authMode: 'key' | 'jwt';
  status: 'active' | 'suspended';
  scopes: string[];
  limits: { requestsPerMinute?: number };
  allowedAddresses: string[];
  expiresAt: string | null;
  jwt: { issuer: string; audience: string; scopeClaim?: string } | null;
  keys: ClientKey[];
  createdAt: string;
  updatedAt: string;
}

export interface ClientKey {
  id: string;
  /** `wbk_` and the first characters: enough to recognise a key, never to use it. */
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

export const liveKeys = (c: ApiClient) => c.keys.filter((k) => !k.revokedAt);

/** Query key of everything client-api's screens cache. */
export const CLIENTS_KEY = ['client-api', 'clients'];
