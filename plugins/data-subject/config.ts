import { Type } from '@sinclair/typebox';

/** The data-subject plugin's environment (the kernel's secret box reads DATA_SUBJECT_FINGERPRINT_KEY by its name). */
export const DataSubjectConfig = Type.Object({
  DATA_SUBJECT_RATE_LIMIT_PER_MINUTE: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 20,
    description:
      'data-subject scans (search, export, erase together) per administrator and minute (429 with Retry-After beyond)',
  }),
  DATA_SUBJECT_FINGERPRINT_KEY: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'key of the HMAC that stands for the identifier in audit rows (64 hex chars or a passphrase); required in production; unset outside production: generated in CMS_DATA_DIR/keys',
    }),
  ),
});
