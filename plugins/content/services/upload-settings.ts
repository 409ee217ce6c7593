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

/** A stored value that breaks a rule of the upload settings: reported on read, never fatal. */
export interface SettingsProblem {
  field: string;
  message: string;
}

const positive = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 1;

/**
 * The stored upload settings as they take effect, read without ever failing: a value no editor could
 * have saved (an import, SQL by hand) falls back to the safe default and is reported as a problem,
 * so one bad website never breaks the list or its own routes. A type that cannot be checked by
 * content (`text/html`) is dropped, never accepted.
 */
export function readUploadSettings(
  websiteId: string,
  stored: unknown,
): { settings: WebsiteUploadSettings; problems: SettingsProblem[] } {
  const defaults = defaultUploadSettings(websiteId);
  const problems: SettingsProblem[] = [];
  if (stored === undefined || stored === null) return { settings: defaults, problems };
  if (typeof stored !== 'object' || Array.isArray(stored)) {
    problems.push({ field: 'settings.uploads', message: 'not an object: the defaults apply' });
    return { settings: defaults, problems };
  }
  const s = stored as Record<string, unknown>;
  const bad = (key: string, message: string) => problems.push({ field: `settings.uploads.${key}`, message });
  let allowedTypes = defaults.allowedTypes;
  if (s.allowedTypes !== undefined)
    if (!Array.isArray(s.allowedTypes)) bad('allowedTypes', 'not a list: the default types apply');
    else {
      allowedTypes = [];
      s.allowedTypes.forEach((type, i) => {
        if (typeof type === 'string' && CHECKABLE_TYPES.includes(type.toLowerCase()))
          allowedTypes.push(type.toLowerCase());
        else bad(`allowedTypes.${i}`, `${JSON.stringify(type).slice(0, 100)} cannot be accepted and is ignored`);
      });
    }
  const number = (key: 'maxFileBytes' | 'maxFilesPerSubmit' | 'dailyBytes') => {
    if (s[key] === undefined) return defaults[key];
    if (positive(s[key])) return clamp(s[key], UPLOAD_CEILINGS[key]);
    bad(key, 'not a positive number: the default applies');
    return defaults[key];
  };
  const flag = typeof s.enabled === 'boolean' ? s.enabled : defaults.enabled;
  if (s.enabled !== undefined && typeof s.enabled !== 'boolean') bad('enabled', 'not true or false: off');
  const folderOk = typeof s.folder === 'string' && /^\/[A-Za-z0-9/_-]*$/.test(s.folder) && s.folder.length <= 200;
  if (s.folder !== undefined && !folderOk) bad('folder', 'not a folder path: the default folder applies');
  const visibilityOk = s.visibility === 'private' || s.visibility === 'public';
  if (s.visibility !== undefined && !visibilityOk) bad('visibility', 'neither private nor public: private');
  return {
    settings: {
      enabled: flag,
      allowedTypes: [...new Set(allowedTypes)],
      maxFileBytes: number('maxFileBytes'),
      maxFilesPerSubmit: number('maxFilesPerSubmit'),
      dailyBytes: number('dailyBytes'),
      folder: folderOk ? (s.folder as string) : defaults.folder,
      visibility: visibilityOk ? (s.visibility as 'private' | 'public') : defaults.visibility,
    },
    problems,
  };
}

/**
 * Merges a change into the stored settings: types the change names that cannot be checked are
 * refused (400), numbers clamped to the ceilings. What is stored is read as `readUploadSettings`
 * reads it, so a bad stored value never blocks the change that repairs it.
 */
export function normalizeUploadSettings(
  websiteId: string,
  stored: unknown,
  input: UploadSettingsInput,
  fieldPrefix = '',
): WebsiteUploadSettings {
  const base = readUploadSettings(websiteId, stored).settings;
  const types = input.allowedTypes ?? base.allowedTypes;
  (input.allowedTypes ?? []).forEach((type, i) => {
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
