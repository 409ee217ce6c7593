import { Type } from '@sinclair/typebox';
import { EnvFlag } from '../../kernel/index.ts';

/** The environment variables this plugin reads (its `pluginConfig`, typed and defaulted by the kernel). */
export const GatewayConfig = Type.Object({
  OUTBOUND_ALLOW_HOSTS: Type.String({
    default: '',
    maxLength: 4000,
    description:
      'host names (comma-separated) the gateway may call even when they resolve to loopback (production), link-local or cloud metadata addresses',
  }),
  OUTBOUND_ALLOW_PRIVATE: EnvFlag(
    true,
    'false: outbound calls to private ranges (10/8, 172.16/12, 192.168/16, fc00::/7, ...) are refused',
  ),
  OUTBOUND_CONNECT_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 5_000,
    description: 'TCP/TLS connect timeout of outbound calls',
  }),
  OUTBOUND_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 300_000,
    default: 30_000,
    description: 'default whole-call timeout of outbound calls (an endpoint may set its own)',
  }),
  OUTBOUND_MAX_RESPONSE_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 100 * 1024 * 1024,
    default: 10 * 1024 * 1024,
    description:
      'largest upstream answer body: a kept answer is cut off beyond it; a streamed one (client passthrough) is refused (502 UPSTREAM_TOO_LARGE) when it declares more, cut when it sends more',
  }),
  OUTBOUND_MAX_REDIRECTS: Type.Integer({
    minimum: 0,
    maximum: 10,
    default: 3,
    description: 'redirects followed by plain outbound fetches (route calls never follow)',
  }),
  GATEWAY_ENDPOINT_MAX_IN_FLIGHT: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 64,
    description:
      'calls to one endpoint running at once in this process, streamed answers until their end (429 ENDPOINT_BUSY with Retry-After beyond)',
  }),
  GATEWAY_PUBLIC_RATE_LIMIT_PER_MINUTE: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 120,
    description:
      'requests per client address and minute on /api/v1/gateway/resolve and /submit (429 with Retry-After beyond)',
  }),
  GATEWAY_CORE_API_URL: Type.Optional(
    Type.String({
      pattern: '^https?://',
      maxLength: 500,
      description: 'core-api base URL for the /api/internal/* and /public/* passthroughs; unset: not mounted',
    }),
  ),
  GATEWAY_ASSET_PROCESSOR_URL: Type.Optional(
    Type.String({
      pattern: '^https?://',
      maxLength: 500,
      description: 'asset-processor base URL (with its /api/v1 prefix) for the /dam/* passthrough; unset: not mounted',
    }),
  ),
});
