import sharp from 'sharp';

/** A JPEG of this size (one colour), optionally with EXIF tags (`{ IFD0: { Make: 'x' } }`). */
export const jpeg = (width: number, height: number, opts: { exif?: Record<string, Record<string, string>> } = {}) => {
  let img = sharp({ create: { width, height, channels: 3, background: { r: 200, g: 60, b: 30 } } }).jpeg({
    quality: 80,
  });
  if (opts.exif) img = img.withExif(opts.exif);
  return img.toBuffer();
};
/** A half-transparent PNG of this size. */
export const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 4, background: { r: 0, g: 0, b: 255, alpha: 0.5 } } })
    .png()
    .toBuffer();
