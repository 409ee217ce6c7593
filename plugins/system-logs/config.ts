import { Type } from '@sinclair/typebox';

export const SystemLogsConfig = Type.Object({
  LOG_STORE_URL: Type.Optional(
    Type.String({
      pattern: '^https?://[^\\s]+$',
      maxLength: 500,
      description:
        'asset-processor base URL, e.g. http://asset-processor:3002, on core-api and the gateway of a split deployment: they ship their log files there every 30 s (with DAM_SERVICE_TOKEN) and core-api reads the system logs from there; unset = local files only',
    }),
  ),
  DAM_SERVICE_TOKEN: Type.Optional(
    Type.String({
      minLength: 16,
      maxLength: 512,
      description:
        'bearer token of service calls; for the system logs: shipping log files to the asset-processor and reading them back (the same value on every service)',
    }),
  ),
});
