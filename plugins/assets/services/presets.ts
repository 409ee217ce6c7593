import { createHash } from 'node:crypto';
import { badRequest, notFound, type Db } from '../../../kernel/index.ts';
import * as store from '../store/preset-store.ts';
import { FITS, OUTPUT_FORMATS, type Fit, type OutputFormat } from './images.ts';

export interface Preset {
  name: string;
  width: number | null;
  height: number | null;
  fit: Fit;
  /** `auto` picks AVIF or WebP from the request's Accept header (answers carry `Vary: Accept`). */
  format: OutputFormat | 'auto' | 'original';
  quality: number;
}

export const PRESET_NAME = '^[a-z0-9][a-z0-9_-]{0,63}$';
const RELOAD_MS = 10_000;

/**
 * Named image presets, defined by administrators: the only sizes rendered for anonymous callers.
 * Kept in memory and re-read every few seconds, so another process's change arrives soon.
 */
export class PresetCatalog {
  private cache = new Map<string, Preset>();
  private loadedAt = -Infinity;

  constructor(private readonly db: Db) {}

  async get(name: string): Promise<Preset | undefined> {
    if (performance.now() - this.loadedAt > RELOAD_MS) await this.reload();
    return this.cache.get(name);
  }

  async list(): Promise<Preset[]> {
    await this.reload();
    return [...this.cache.values()];
  }

  async save(input: Preset): Promise<Preset> {
    if (!input.width && !input.height) throw badRequest('A preset needs a width or a height', 'width');
    await store.upsertPreset(this.db, input);
    await this.reload();
    return this.cache.get(input.name)!;
  }

  async remove(name: string): Promise<void> {
    if (!(await store.deletePreset(this.db, name))) throw notFound('Preset not found', 'PRESET_NOT_FOUND');
    await this.reload();
  }

  private async reload(): Promise<void> {
    const rows = await store.listPresets(this.db);
    this.cache = new Map(
      rows.map((r) => [
        r.name,
        {
          name: r.name,
          width: r.width,
          height: r.height,
          quality: r.quality,
          fit: FITS.includes(r.fit as Fit) ? (r.fit as Fit) : 'inside',
          format:
            r.format === 'auto' || r.format === 'original' || OUTPUT_FORMATS.includes(r.format as OutputFormat)
              ? (r.format as Preset['format'])
              : 'auto',
        },
      ]),
    );
    this.loadedAt = performance.now();
  }
}

/** The output format of a preset for one request: AVIF, then WebP, when the client accepts them. */
export function negotiateFormat(preset: Preset, accept: string | undefined, sourceMime: string): OutputFormat {
  if (preset.format !== 'auto' && preset.format !== 'original') return preset.format;
  const own: OutputFormat =
    sourceMime === 'image/png'
      ? 'png'
      : sourceMime === 'image/webp'
        ? 'webp'
        : sourceMime === 'image/avif'
          ? 'avif'
          : 'jpeg';
  if (preset.format === 'original') return own;
  const a = (accept ?? '').toLowerCase();
  if (/image\/avif(?!\s*;\s*q=0(\.0*)?\b)/.test(a)) return 'avif';
  if (/image\/webp(?!\s*;\s*q=0(\.0*)?\b)/.test(a)) return 'webp';
  return own;
}

/** The stored name of a derived file: changes whenever the preset's settings change. */
export function derivedName(preset: Preset, format: OutputFormat): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([preset.width, preset.height, preset.fit, preset.quality, format]))
    .digest('hex')
    .slice(0, 12);
  return `${preset.name}-${digest}.${format}`;
}
