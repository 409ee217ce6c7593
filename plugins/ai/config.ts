import { Type } from '@sinclair/typebox';

/** The environment variables the AI plugin reads (its `pluginConfig`, typed and defaulted by the kernel). */
export const AiConfig = Type.Object({
  INTEGRATION_SECRETS_ENCRYPTION_KEY: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'encrypts integration secrets at rest (the AI provider keys); unset: stored in clear text with a logged warning',
    }),
  ),
  AI_OPENAI_BASE_URL: Type.String({
    pattern: '^https?://',
    maxLength: 2000,
    default: 'https://api.openai.com/v1',
    description: 'base URL of the provider `openai` (settings of the provider `openai-compatible` name their own)',
  }),
  AI_MAX_IN_FLIGHT: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 64,
    description: 'AI provider calls running at once in this process (429 AI_BUSY beyond)',
  }),
  AI_MAX_IN_FLIGHT_PER_USER: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 4,
    description: 'AI provider calls one user has running at once (429 AI_BUSY beyond)',
  }),
  AI_RETRIES: Type.Integer({
    minimum: 0,
    maximum: 5,
    default: 2,
    description: 'tries after the first when the provider answers 429 or 5xx (waiting its Retry-After, at most 10 s)',
  }),
  AI_GENERATED_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 36_500,
    default: 90,
    description: 'days a generated result stays in /ai/generated; older ones are purged by a daily job',
  }),
});
