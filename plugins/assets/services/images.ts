import type { FitEnum, Metadata, Sharp } from 'sharp';
import { HttpError, badRequest } from '../../../kernel/index.ts';
import { ImageSlots } from './image-slots.ts';

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
const tooManyPages = (maxPages: number) =>
  new HttpError(
    413,
    'IMAGE_TOO_MANY_PAGES',
    `The image has more than ${maxPages} frames or pages (ASSET_MAX_INPUT_PAGES)`,
  );
const imageTimeout = (seconds: number) =>
  new HttpError(
    413,
    'IMAGE_TIMEOUT',
    `Processing the image took longer than ${seconds} s (ASSET_IMAGE_TIMEOUT_SECONDS); send a smaller image or ask for less output`,
  );
export const outputTooLarge = (pixels: number, maxPixels: number, field: string) =>
  badRequest(
    `The requested output has ${pixels} pixels; at most ${maxPixels} per request (ASSET_PROCESS_MAX_OUTPUT_PIXELS)`,
    field,
    'OUTPUT_TOO_LARGE',
  );

export interface ImageLimits {
  /** Largest decoded image (sharp's `limitInputPixels`; only the first frame or page is ever decoded). */
  maxInputPixels: number;
  /** Most frames (GIF, WebP) or pages (TIFF, HEIF) an input may declare. */
  maxInputPages: number;
  /** Longest one operation may run (sharp's `timeout`). */
  timeoutSeconds: number;
  /** Operations at once in this process, and at most `jobsPerCaller` of them for one caller. */
  jobs: number;
  jobsPerCaller: number;
  /** Operations one caller may have waiting; more are refused (429). */
  queuePerCaller: number;
}

/** Who an image operation is for: its turn in the shared slots, and a cap on the pixels it may produce. */
export interface ImageWork {
  /** `user:<id>`, `service`, `delivery`... (default `system`). */
  caller?: string;
  /** Refuse (400 naming `field`) before decoding when the output would have more pixels. */
  maxOutputPixels?: { pixels: number; field: string };
}

/** Width and height after EXIF orientation, as the pipeline (which auto-rotates) sees them. */
function orientedSize(meta: Metadata): { width: number; height: number } {
  return { width: meta.autoOrient?.width ?? meta.width ?? 0, height: meta.autoOrient?.height ?? meta.height ?? 0 };
}

/**
 * Pixels `resize` makes from an image of this size: never enlarged; `inside`/`outside` keep the aspect
 * ratio, `cover`/`contain`/`fill` with both sides give exactly that box (at most the input's pixels).
 */
export function outputPixels(input: { width: number; height: number }, o: ResizeOptions): number {
  const { width: w, height: h } = input;
  if (!o.width && !o.height) return w * h;
  const fit = o.fit ?? 'inside';
  if (o.width && o.height && (fit === 'cover' || fit === 'contain' || fit === 'fill'))
    return Math.min(o.width * o.height, w * h);
  const scales = [o.width ? o.width / w : undefined, o.height ? o.height / h : undefined].filter(
    (x): x is number => x !== undefined,
  );
  const scale = Math.min(1, fit === 'outside' ? Math.max(...scales) : Math.min(...scales));
  return Math.max(1, Math.round(w * scale)) * Math.max(1, Math.round(h * scale));
}

/**
 * sharp with the limits of this installation: every decode gets `limitInputPixels` and reads the first
 * frame or page only, the header is checked (pixels, frames) before any decoding, every operation has
 * sharp's `timeout`, and operations share the process's slots fairly between callers (ImageSlots).
 * libvips threads per operation and its cache are set once, process-wide, by `configureSharp`.
 */
export class ImageProcessor {
  private readonly slots: ImageSlots;

  constructor(private readonly opts: ImageLimits) {
    this.slots = new ImageSlots({ slots: opts.jobs, perCaller: opts.jobsPerCaller, maxWaiting: opts.queuePerCaller });
  }

  get maxInputPixels(): number {
    return this.opts.maxInputPixels;
  }

  /** Operations running and waiting in this process. */
  get load(): { running: number; waiting: number } {
    return this.slots.load;
  }

  /** A sharp instance over a file path or buffer: first frame or page only, pixel limit, time limit. */
  private async open(input: string | Buffer): Promise<Sharp> {
    const sharp = await loadSharp();
    return sharp(input, {
      limitInputPixels: this.opts.maxInputPixels,
      failOn: 'error',
      sequentialRead: true,
      pages: 1,
    }).timeout({ seconds: this.opts.timeoutSeconds });
  }

  /** The header's size after orientation; 400 when not an image, 413 over the pixel or frame limit. */
  private checkHeader(meta: Metadata): { width: number; height: number } {
    const { width, height } = orientedSize(meta);
    if (!width || !height) throw badRequest('The file is not a readable image', 'file', 'INVALID_IMAGE');
    if (width * height > this.opts.maxInputPixels) throw imageTooLarge(this.opts.maxInputPixels);
    if ((meta.pages ?? 1) > this.opts.maxInputPages) throw tooManyPages(this.opts.maxInputPages);
    return { width, height };
  }

  /** Width, height and format from the header only; 413 over the pixel or frame limit, 400 when not an image. */
  async probe(
    input: string | Buffer,
    work: ImageWork = {},
  ): Promise<{ width: number; height: number; format: string; meta: Metadata }> {
    const meta = await this.run(async () => (await this.open(input)).metadata(), work);
    return { ...this.checkHeader(meta), format: meta.format ?? 'unknown', meta };
  }

  async resize(
    input: string | Buffer,
    o: TransformOptions,
    inputFormat?: string,
    work: ImageWork = {},
  ): Promise<ImageOutput> {
    return this.run(async () => {
      const sharp = await loadSharp();
      let img = await this.open(input);
      // The header of the same instance (no second open): limits before a single pixel is decoded.
      const size = this.checkHeader(await img.metadata());
      const cap = work.maxOutputPixels;
      if (cap && !o.rotate && !o.crop) {
        const pixels = outputPixels(size, o);
        if (pixels > cap.pixels) throw outputTooLarge(pixels, cap.pixels, cap.field);
      }
      img = img.rotate();
      if (o.rotate)
        img = sharp(await img.toBuffer(), { limitInputPixels: this.opts.maxInputPixels })
          .timeout({ seconds: this.opts.timeoutSeconds })
          .rotate(o.rotate);
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
    }, work);
  }

  /** Runs one image operation in its caller's share of the slots; sharp's errors become 413 or 400. */
  async run<T>(work: () => Promise<T>, { caller = 'system' }: ImageWork = {}): Promise<T> {
    return this.slots.run(caller, async () => {
      try {
        return await work();
      } catch (err) {
        throw imageError(err, this.opts);
      }
    });
  }
}

function imageError(err: unknown, limits: ImageLimits): unknown {
  if (err instanceof HttpError || (typeof err === 'object' && err !== null && 'statusCode' in err)) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (/pixel limit/i.test(message)) return imageTooLarge(limits.maxInputPixels);
  if (/^timeout: \d+% complete/.test(message)) return imageTimeout(limits.timeoutSeconds);
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
