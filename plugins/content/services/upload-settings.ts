import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { badRequest } from '../../../kernel/index.ts';
import type { WebsiteUploadSettings } from '../ports.ts';

/** Types whose content the asset service checks by magic bytes; never html, svg, scripts or programs. */
export const CHECKABLE_TYPES = [
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/gif',
  'image/avif',
  'application/pdf',
  'video/mp4',
  'audio/mpeg',
];

/** Ceilings the stored numbers are clamped to. */
export const UPLOAD_CEILINGS = {
  maxFileBytes: 50 * 1024 * 1024,
  maxFilesPerSubmit: 10,
  dailyBytes: 1024 * 1024 * 1024,
} as const;

export const defaultUploadSettings = (websiteId: string): WebsiteUploadSettings => ({
  enabled: false,
  allowedTypes: ['image/png', 'image/jpeg', 'application/pdf'],
  maxFileBytes: 10 * 1024 * 1024,
  maxFilesPerSubmit: 3,
  dailyBytes: 200 * 1024 * 1024,
  folder: `/form-uploads/${websiteId}`,
  visibility: 'private',
});

/** A change of the upload settings (`PUT .../upload-settings`, or `settings.uploads` of a website write). */
export const UploadSettingsBody = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    allowedTypes: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 20 })),
    maxFileBytes: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
    maxFilesPerSubmit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    dailyBytes: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
    folder: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^/[A-Za-z0-9/_-]*$' })),
    visibility: Type.Optional(Type.Union([Type.Literal('private'), Type.Literal('public')])),
    /** Must be true in the same request to make the folder public. */
    allowPublicFolder: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export interface UploadSettingsInput {
  enabled?: boolean;
  allowedTypes?: string[];
  maxFileBytes?: number;
  maxFilesPerSubmit?: number;
  dailyBytes?: number;
  folder?: string;
  visibility?: 'private' | 'public';
  allowPublicFolder?: boolean;
}

/** Checks `settings.uploads` sent inside a website's settings (the route schema cannot see into them). */
export function checkUploadSettingsInput(value: unknown, field: string): UploadSettingsInput {
  const error = Value.Errors(UploadSettingsBody, value).First();
  if (error) {
    const at = error.path.split('/').filter(Boolean).join('.');
    throw badRequest(`Upload settings: ${error.message}`, at ? `${field}.${at}` : field);
  }
  return value as UploadSettingsInput;
}

const clamp = (n: number, max: number) => Math.max(1, Math.min(max, Math.floor(n)));

/** Merges a change into the stored settings: unknown types refused, numbers clamped to the ceilings. */
export function normalizeUploadSettings(
  websiteId: string,
  stored: unknown,
  input: UploadSettingsInput,
  fieldPrefix = '',
): WebsiteUploadSettings {
  const base = {
    ...defaultUploadSettings(websiteId),
    ...(stored && typeof stored === 'object' ? (stored as Partial<WebsiteUploadSettings>) : {}),
  };
  const types = input.allowedTypes ?? base.allowedTypes;
  types.forEach((type, i) => {
    if (!CHECKABLE_TYPES.includes(type.toLowerCase())) {
      throw badRequest(
        `File type "${type.slice(0, 100)}" cannot be accepted: only types whose content can be checked (${CHECKABLE_TYPES.join(', ')})`,
        `${fieldPrefix}allowedTypes.${i}`,
      );
    }
  });
  const visibility = input.visibility ?? base.visibility;
  if (input.visibility === 'public' && input.allowPublicFolder !== true) {
    throw badRequest('A public target folder needs allowPublicFolder: true', `${fieldPrefix}visibility`);
  }
  return {
    enabled: input.enabled ?? base.enabled,
    allowedTypes: [...new Set(types.map((t) => t.toLowerCase()))],
    maxFileBytes: clamp(input.maxFileBytes ?? base.maxFileBytes, UPLOAD_CEILINGS.maxFileBytes),
    maxFilesPerSubmit: clamp(input.maxFilesPerSubmit ?? base.maxFilesPerSubmit, UPLOAD_CEILINGS.maxFilesPerSubmit),
    dailyBytes: clamp(input.dailyBytes ?? base.dailyBytes, UPLOAD_CEILINGS.dailyBytes),
    folder: input.folder ?? base.folder,
    visibility,
  };
}
