import type { FitEnum, Metadata, Sharp } from 'sharp';
import { HttpError, badRequest } from '../../../kernel/index.ts';

type SharpFactory = typeof import('sharp')['default'];
let libvipsSettings: { concurrency: number; cacheMb: number } | undefined;
let sharpLoading: Promise<SharpFactory> | undefined;

/**
 * sharp (and libvips under it), imported by the first image operation of the process: a process that
 * never probes or transforms an image does not pay for loading it at start.
 */
function loadSharp(): Promise<SharpFactory> {
  sharpLoading ??= import('sharp').then(({ default: sharp }) => {
    if (libvipsSettings) applyLibvipsSettings(sharp, libvipsSettings);
    return sharp;
  });
  return sharpLoading;
}

export type OutputFormat = 'jpeg' | 'png' | 'webp' | 'avif';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['jpeg', 'png', 'webp', 'avif'];
export type Fit = keyof FitEnum;
export const FITS: readonly Fit[] = ['cover', 'contain', 'fill', 'inside', 'outside'];

export interface ResizeOptions {
  width?: number;
  height?: number;
  fit?: Fit;
  /** Omitted: the input's own format (when it is one of OUTPUT_FORMATS, else jpeg). */
  format?: OutputFormat;
  quality?: number;
}

export interface TransformOptions extends ResizeOptions {
  rotate?: number;
  crop?: { left: number; top: number; width: number; height: number };
}

export interface ImageOutput {
  data: Buffer;
  format: OutputFormat;
  width: number;
  height: number;
}

export const MIME_OF: Record<OutputFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
};

export const imageTooLarge = (maxPixels: number) =>
  new HttpError(413, 'IMAGE_TOO_LARGE', `The image has more than ${maxPixels} pixels (ASSET_MAX_INPUT_PIXELS)`);

/**
 * sharp with the limits of this installation: every decode gets `limitInputPixels`, the header is
 * checked before any decoding, and at most `jobs` operations run at once (libvips threads per
 * operation and its cache are set once, process-wide, by `configureSharp`).
 */
export class ImageProcessor {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly opts: { maxInputPixels: number; jobs: number }) {}

  get maxInputPixels(): number {
    return this.opts.maxInputPixels;
  }

  /** A sharp instance over a file path or buffer, limited to the configured pixels. */
  private async open(input: string | Buffer): Promise<Sharp> {
    const sharp = await loadSharp();
    return sharp(input, { limitInputPixels: this.opts.maxInputPixels, failOn: 'error', sequentialRead: true });
  }

  /** Width, height and format from the header only; 413 over the pixel limit, 400 when not an image. */
  async probe(input: string | Buffer): Promise<{ width: number; height: number; format: string; meta: Metadata }> {
    const meta = await this.run(async () => (await this.open(input)).metadata());
    const width = meta.autoOrient?.width ?? meta.width ?? 0;
    const height = meta.autoOrient?.height ?? meta.height ?? 0;
    if (!width || !height) throw badRequest('The file is not a readable image', 'file', 'INVALID_IMAGE');
    if (width * height > this.opts.maxInputPixels) throw imageTooLarge(this.opts.maxInputPixels);
    return { width, height, format: meta.format ?? 'unknown', meta };
  }

  async resize(input: string | Buffer, o: TransformOptions, inputFormat?: string): Promise<ImageOutput> {
    return this.run(async () => {
      const sharp = await loadSharp();
      let img = (await this.open(input)).rotate();
      if (o.rotate) img = sharp(await img.toBuffer(), { limitInputPixels: this.opts.maxInputPixels }).rotate(o.rotate);
      if (o.crop) img = img.extract(o.crop);
      if (o.width || o.height)
        img = img.resize({ width: o.width, height: o.height, fit: o.fit ?? 'inside', withoutEnlargement: true });
      const format =
        o.format ?? (OUTPUT_FORMATS.includes(inputFormat as OutputFormat) ? (inputFormat as OutputFormat) : 'jpeg');
      const quality = o.quality ?? 80;
      img = img.toFormat(
        format,
        format === 'png' ? { compressionLevel: 6 } : { quality, ...(format === 'avif' ? { effort: 2 } : {}) },
      );
      const { data, info } = await img.toBuffer({ resolveWithObject: true });
      return { data, format, width: info.width, height: info.height };
    });
  }

  /** Runs one image operation when a slot is free; sharp's errors become 413 or 400. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.opts.jobs) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    try {
      return await work();
    } catch (err) {
      throw imageError(err, this.opts.maxInputPixels);
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}

function imageError(err: unknown, maxPixels: number): unknown {
  if (err instanceof HttpError || (typeof err === 'object' && err !== null && 'statusCode' in err)) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (/pixel limit/i.test(message)) return imageTooLarge(maxPixels);
  if (/extract_area|bad extract area/i.test(message))
    return badRequest('crop lies outside the image', 'crop', 'INVALID_CROP');
  if (
    /unsupported image format|Input (buffer|file)|VipsJpeg|VipsPng|gifload|webpload|heif|corrupt|premature end|Invalid|vips_/i.test(
      message,
    )
  ) {
    return badRequest(`The image cannot be read: ${message.split('\n')[0].slice(0, 200)}`, 'file', 'INVALID_IMAGE');
  }
  return err;
}

/**
 * Process-wide libvips settings, chosen deliberately instead of sharp's defaults (threads = cores, 50 MB
 * cache); applied when sharp is loaded, or at once when it already is.
 */
export function configureSharp(o: { concurrency: number; cacheMb: number }): void {
  libvipsSettings = o;
  void sharpLoading?.then((sharp) => applyLibvipsSettings(sharp, o));
}

function applyLibvipsSettings(sharp: SharpFactory, o: { concurrency: number; cacheMb: number }): void {
  sharp.concurrency(o.concurrency);
  sharp.cache(o.cacheMb > 0 ? { memory: o.cacheMb, files: 20, items: 100 } : false);
}
