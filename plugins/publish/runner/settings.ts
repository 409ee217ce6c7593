import { Type, type Static } from '@sinclair/typebox';
import { ConfigError, EnvFlag, parseEnvSlice } from '../../../kernel/index.ts';

/** The environment of `cms publish-runner` (its own process: none of it is core-api's config). */
export const PublishRunnerConfig = Type.Object({
  PUBLISH_API_URL: Type.String({
    pattern: '^https?://[^\\s]+$',
    maxLength: 500,
    default: 'http://127.0.0.1:3000',
    description: 'base URL of core-api (the runner routes /publish/jobs/...)',
  }),
  PUBLISH_RUNNER_TOKEN: Type.Optional(
    Type.String({ minLength: 16, maxLength: 512, description: 'the same token as core-api' }),
  ),
  PUBLISH_OUTPUT_DIR: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1000,
      description:
        'folder of the builds, one sub-folder per website id (`<dir>/<websiteId>/`), replaced whole when a build succeeds',
    }),
  ),
  PUBLISH_S3_BUCKET: Type.Optional(
    Type.String({
      minLength: 3,
      maxLength: 63,
      description:
        'bucket of the builds instead of a folder, under `<PUBLISH_S3_PREFIX><websiteId>/`; keys a build no longer has are removed',
    }),
  ),
  PUBLISH_S3_PREFIX: Type.String({
    maxLength: 500,
    pattern: '^$|^[^\\s]*/$',
    default: '',
    description: 'key prefix inside PUBLISH_S3_BUCKET (ends with /)',
  }),
  PUBLISH_S3_ENDPOINT: Type.Optional(
    Type.String({
      pattern: '^https?://[^\\s]+$',
      maxLength: 500,
      description: 'S3-compatible endpoint',
    }),
  ),
  PUBLISH_S3_REGION: Type.String({
    maxLength: 100,
    default: 'us-east-1',
    description: 'S3 region',
  }),
  PUBLISH_S3_ACCESS_KEY_ID: Type.Optional(Type.String({ maxLength: 500, description: 'S3 access key id' })),
  PUBLISH_S3_SECRET_ACCESS_KEY: Type.Optional(Type.String({ maxLength: 500, description: 'S3 secret access key' })),
  PUBLISH_S3_FORCE_PATH_STYLE: EnvFlag(false, '1: path-style S3 addressing (MinIO, Garage)'),
  PUBLISH_RUNNER_POLL_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 5,
    description: 'pause between two looks at the queue while it is empty',
  }),
  PUBLISH_RUNNER_PARALLEL: Type.Integer({
    minimum: 1,
    maximum: 32,
    default: 4,
    description: 'pages and files fetched at once',
  }),
});
export type PublishRunnerSettings = Static<typeof PublishRunnerConfig>;

/** The runner's settings from the environment; exactly one target, and the token, are required. */
export function loadRunnerSettings(env: Record<string, string | undefined>): PublishRunnerSettings {
  const settings = parseEnvSlice(PublishRunnerConfig, env);
  if (!settings.PUBLISH_RUNNER_TOKEN)
    throw new ConfigError('PUBLISH_RUNNER_TOKEN is required (the token core-api has)');
  if (Boolean(settings.PUBLISH_OUTPUT_DIR) === Boolean(settings.PUBLISH_S3_BUCKET))
    throw new ConfigError('set exactly one of PUBLISH_OUTPUT_DIR (a folder) and PUBLISH_S3_BUCKET (a bucket)');
  return settings;
}
