import { Type } from '@sinclair/typebox';

export const SystemLogsConfig = Type.Object({
  LOG_STORE_URL: Type.Optional(
    Type.String({
      pattern: '^https?://[^\\s]+$',
      maxLength: 500,
      description:
        'where a split deployment ships its log files every 30 s (with DAM_SERVICE_TOKEN): on core-api the asset-processor (http://asset-processor:3002), where core-api also reads the system logs; on the gateway core-api (http://core-api:3003), which passes them on; unset = local files only',
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
