import { Type } from '@sinclair/typebox';

/** The environment variables this plugin reads (its `pluginConfig`, typed and defaulted by the kernel). */
export const PushConfig = Type.Object({
  INTEGRATION_SECRETS_ENCRYPTION_KEY: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'encrypts integration secrets at rest (the push VAPID private key); unset: stored in clear text with a logged warning',
    }),
  ),
  PUSH_VAPID_SUBJECT: Type.String({
    pattern: '^(mailto:|https://)',
    maxLength: 300,
    default: 'mailto:webmaster@localhost',
    description: 'contact of the push sender (mailto: or https: URL), the `sub` claim of the VAPID token',
  }),
  PUSH_SEND_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 256,
    default: 16,
    description:
      'messages of one /pwa/send in flight at once (a slow push endpoint holds one lane for at most 10 s, not the whole send)',
  }),
  PUSH_SUBSCRIBES_PER_MINUTE: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 10,
    description: 'push subscriptions per client address and minute (429 with Retry-After beyond)',
  }),
});
