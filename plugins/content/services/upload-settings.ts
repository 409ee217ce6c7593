import { badRequest } from '../../../kernel/index.ts';
import type { WebsiteUploadSettings } from '../ports.ts';

/** Types whose content the asset service checks by magic bytes; never html, svg, scripts or programs. */
export const CHECKABLE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/avif', 'application/pdf', 'video/mp4', 'audio/mpeg'];

/** Ceilings the stored numbers are clamped to. */
export const UPLOAD_CEILINGS = { maxFileBytes: 50 * 1024 * 1024, maxFilesPerSubmit: 10, dailyBytes: 1024 * 1024 * 1024 } as const;

export const defaultUploadSettings = (websiteId: string): WebsiteUploadSettings => ({
  enabled: false,
  allowedTypes: ['image/png', 'image/jpeg', 'application/pdf'],
  maxFileBytes: 10 * 1024 * 1024,
  maxFilesPerSubmit: 3,
  dailyBytes: 200 * 1024 * 1024,
  folder: `/form-uploads/${websiteId}`,
  visibility: 'private',
});

export interface UploadSettingsInput {
  enabled?: boolean;
  allowedTypes?: string[];
  maxFileBytes?: number;
  maxFilesPerSubmit?: number;
  dailyBytes?: number;
  folder?: string;
  visibility?: 'private' | 'public';
  /** Must be true in the same request to make the folder public. */
  allowPublicFolder?: boolean;
}

const clamp = (n: number, max: number) => Math.max(1, Math.min(max, Math.floor(n)));

/** Merges a change into the stored settings: unknown types refused, numbers clamped to the ceilings. */
export function normalizeUploadSettings(websiteId: string, stored: unknown, input: UploadSettingsInput): WebsiteUploadSettings {
  const base = { ...defaultUploadSettings(websiteId), ...(stored && typeof stored === 'object' ? (stored as Partial<WebsiteUploadSettings>) : {}) };
  const types = input.allowedTypes ?? base.allowedTypes;
  types.forEach((type, i) => {
    if (!CHECKABLE_TYPES.includes(type.toLowerCase())) {
      throw badRequest(`File type "${type.slice(0, 100)}" cannot be accepted: only types whose content can be checked (${CHECKABLE_TYPES.join(', ')})`, `allowedTypes.${i}`);
    }
  });
  const visibility = input.visibility ?? base.visibility;
  if (input.visibility === 'public' && input.allowPublicFolder !== true) {
    throw badRequest('A public target folder needs allowPublicFolder: true', 'visibility');
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
