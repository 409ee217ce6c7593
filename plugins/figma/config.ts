import { Type } from '@sinclair/typebox';

/** The environment variables this plugin reads (its `pluginConfig`, typed and defaulted by the kernel). */
export const FigmaConfig = Type.Object({
  FIGMA_API_URL: Type.String({
    default: 'https://api.figma.com',
    minLength: 1,
    maxLength: 2000,
    pattern: '^https?://',
    description:
      'base URL of the Figma REST API (`/v1/files/:key`, `/v1/images/:key`); tests point it at a local server',
  }),
  FIGMA_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 300_000,
    default: 30_000,
    description: 'whole-call timeout of each Figma API call and image download',
  }),
  FIGMA_MAX_FILE_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 100 * 1024 * 1024,
    default: 10 * 1024 * 1024,
    description:
      'largest Figma file or nodes answer read before parsing (422 FIGMA_FILE_TOO_LARGE beyond: import a frame with its node id); at most OUTBOUND_MAX_RESPONSE_BYTES applies',
  }),
  FIGMA_MAX_IMAGES: Type.Integer({
    minimum: 0,
    maximum: 500,
    default: 50,
    description: 'images (fills and rendered nodes) one import stores in the asset library; beyond, a warning each',
  }),
  FIGMA_MAX_IMAGE_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 100 * 1024 * 1024,
    default: 10 * 1024 * 1024,
    description: 'largest image one import downloads from Figma (a warning and no image beyond)',
  }),
});
