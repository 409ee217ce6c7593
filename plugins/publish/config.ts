import { Type } from '@sinclair/typebox';

/** The environment variables this plugin reads (its `pluginConfig`, typed and defaulted by the kernel). */
export const PublishConfig = Type.Object({
  PUBLISH_RUNNER_TOKEN: Type.Optional(
    Type.String({
      minLength: 16,
      maxLength: 512,
      description:
        'bearer token of the publish runner (`cms publish-runner`) on the /publish/jobs runner routes; unset: those routes answer 503',
    }),
  ),
  PUBLISH_JOB_LEASE_SECONDS: Type.Integer({
    minimum: 10,
    maximum: 3600,
    default: 120,
    description:
      'lease of a publish run: one whose runner reported nothing for this long is taken back by the job engine; the next claim queues it again (or fails it after PUBLISH_JOB_MAX_ATTEMPTS)',
  }),
  PUBLISH_JOB_MAX_ATTEMPTS: Type.Integer({
    minimum: 1,
    maximum: 20,
    default: 3,
    description:
      'runs a publish job gets when its runner stops answering, before it fails (a retry starts a new count)',
  }),
  PUBLISH_MAX_PAGES: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 50_000,
    description: 'most pages one publish job renders (a website with more fails with PUBLISH_TOO_MANY_PAGES)',
  }),
});
