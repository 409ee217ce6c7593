import { badRequest } from '../../../kernel/index.ts';

export interface AlpinePreset {
  name: string;
  description: string;
  directives: Record<string, string>;
}

export const ALPINE_LIMITS = {
  presets: 50,
  directivesPerPreset: 30,
  expressionChars: 2000,
  descriptionChars: 500,
  catalogBytes: 64 * 1024,
} as const;

const PRESET_NAME = /^[a-z][a-z0-9-]{0,63}$/;
/** `x-name`, `x-name:arg`, `@event`, `:attr`, each with optional `.modifiers`. */
const DIRECTIVE = /^(x-[a-z]+(:[a-z][a-z0-9-]*)?|@[a-z][a-z0-9-]*(:[a-z][a-z0-9-]*)?|:[a-z][a-z0-9-]*)(\.[a-z0-9-]+)*$/;
/** Directives that write raw HTML into the page. */
const REFUSED = new Set(['x-html']);

/**
 * Checks a whole preset catalog before anything is stored: a bad name, directive or size answers 400
 * with the reason and the path of the bad part.
 */
export function validateAlpinePresets(presets: unknown): AlpinePreset[] {
  if (!Array.isArray(presets)) throw badRequest('presets must be an array', 'presets');
  if (presets.length > ALPINE_LIMITS.presets) throw badRequest(`At most ${ALPINE_LIMITS.presets} presets`, 'presets');
  if (Buffer.byteLength(JSON.stringify(presets)) > ALPINE_LIMITS.catalogBytes)
    throw badRequest(`The catalog is larger than ${ALPINE_LIMITS.catalogBytes} bytes`, 'presets');
  const names = new Set<string>();
  return presets.map((p, i) => {
    const at = `presets.${i}`;
    if (p === null || typeof p !== 'object' || Array.isArray(p)) throw badRequest('A preset must be an object', at);
    const { name, description = '', directives } = p as Record<string, unknown>;
    if (typeof name !== 'string' || !PRESET_NAME.test(name))
      throw badRequest(
        'Preset name must be 1-64 lower-case letters, digits and dashes, starting with a letter',
        `${at}.name`,
      );
    if (names.has(name)) throw badRequest(`Preset name "${name}" is used twice`, `${at}.name`);
    names.add(name);
    if (typeof description !== 'string' || description.length > ALPINE_LIMITS.descriptionChars)
      throw badRequest(
        `Description must be text up to ${ALPINE_LIMITS.descriptionChars} characters`,
        `${at}.description`,
      );
    if (directives === null || typeof directives !== 'object' || Array.isArray(directives))
      throw badRequest('directives must be an object of directive → expression', `${at}.directives`);
    const entries = Object.entries(directives);
    if (entries.length === 0 || entries.length > ALPINE_LIMITS.directivesPerPreset)
      throw badRequest(`A preset has 1 to ${ALPINE_LIMITS.directivesPerPreset} directives`, `${at}.directives`);
    for (const [directive, expression] of entries) {
      const dAt = `${at}.directives.${directive}`;
      if (!DIRECTIVE.test(directive))
        throw badRequest(`"${directive.slice(0, 64)}" is not an Alpine directive (x-..., @event or :attr)`, dAt);
      if (REFUSED.has(directive.split(/[:.]/, 1)[0]))
        throw badRequest(`${directive} writes raw HTML and is not allowed`, dAt);
      if (typeof expression !== 'string' || expression.length > ALPINE_LIMITS.expressionChars)
        throw badRequest(`Expression must be text up to ${ALPINE_LIMITS.expressionChars} characters`, dAt);
    }
    return { name, description, directives: Object.fromEntries(entries) as Record<string, string> };
  });
}
