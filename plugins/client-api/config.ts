import { Type } from '@sinclair/typebox';

/** The environment variables this plugin reads (its `pluginConfig`). */
export const ClientApiConfig = Type.Object({
  CLIENT_DEFAULT_REQUESTS_PER_MINUTE: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 600,
    description:
      'requests per minute of an API client whose limits do not set requestsPerMinute (429 with Retry-After beyond)',
  }),
  CLIENT_MAX_IN_FLIGHT: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 16,
    description:
      'gateway calls (passthrough, automations) one API client may have running at once in this process, a streamed answer until its end (429 CLIENT_CONCURRENCY_LIMITED with Retry-After beyond)',
  }),
  CLIENT_AUTH_CACHE_MS: Type.Integer({
    minimum: 0,
    maximum: 60_000,
    default: 5_000,
    description:
      'how long a verified key -> client lookup is reused in this process (cleared here at once on revoke, suspend, change)',
  }),
  CLIENT_JWKS_CACHE_SECONDS: Type.Integer({
    minimum: 10,
    maximum: 86_400,
    default: 600,
    description:
      'how long an identity provider discovery document and key set are reused (a token with an unknown key id refreshes sooner)',
  }),
});
