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
      'messages of one /pwa/send in flight at once (a slow push endpoint holds one lane for at most 10 s and never past the send budget)',
  }),
  PUSH_SEND_BUDGET_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 300,
    description:
      'longest one /pwa/send may take in the background; subscribers not reached by then are counted as unsent (status over_budget)',
  }),
  PUSH_MAX_SUBSCRIPTIONS_PER_WEBSITE: Type.Integer({
    minimum: 1,
    maximum: 10_000_000,
    default: 50_000,
    description:
      'push subscriptions one website keeps; a new endpoint beyond it is refused (409 PUSH_SUBSCRIPTIONS_FULL), renewing a stored one still works',
  }),
  PUSH_SUBSCRIBES_PER_MINUTE: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 10,
    description: 'push subscriptions per client address and minute (429 with Retry-After beyond)',
  }),
});
