import { Type, type Static } from '@sinclair/typebox';
import type { AuthType } from './services/auth-types.ts';

export const RateLimit = Type.Object(
  {
    requestsPerMinute: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1_000_000,
        description: 'calls per minute to this endpoint, counted across every process',
      }),
    ),
    maxConcurrent: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, description: 'calls in flight at once, per process' }),
    ),
    maxQueued: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 10_000,
        description: 'calls waiting for a slot; beyond: 429 (default 0: refuse at once)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RateLimit = Static<typeof RateLimit>;

/** The longest route path template a route may have, whether created or imported. */
export const ROUTE_PATH_MAX_LENGTH = 2000;

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** An endpoint as stored (the secret still sealed). */
export interface Endpoint {
  id: string;
  name: string;
  baseUrl: string;
  authType: AuthType;
  authConfig: Record<string, string>;
  sealedSecret: string | null;
  rateLimit: RateLimit | null;
  timeoutMs: number;
  defaultHeaders: Record<string, string>;
  presetId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Route {
  id: string;
  endpointId: string;
  name: string | null;
  method: HttpMethod;
  path: string;
  description: string | null;
  responseSchema: unknown;
  sample: unknown;
  schemaSource: 'inferred' | 'openapi' | null;
  schemaUpdatedAt: string | null;
  createdAt: string;
  updatedAt: string;
}
