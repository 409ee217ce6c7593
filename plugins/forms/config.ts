import { Type } from '@sinclair/typebox';

export const FormsConfig = Type.Object({
  FORM_SUBMIT_RATE_LIMIT_PER_WINDOW: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 10,
    description: 'public form submits per client address and window (429 with Retry-After beyond)',
  }),
  FORM_SUBMIT_RATE_LIMIT_WINDOW_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86400,
    default: 900,
    description: 'window of FORM_SUBMIT_RATE_LIMIT_PER_WINDOW',
  }),
});
