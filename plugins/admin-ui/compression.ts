/** Worth compressing: text formats (images and fonts are compressed already). */
export const COMPRESSIBLE = new Set(['.js', '.mjs', '.css', '.html', '.json', '.svg', '.txt', '.map']);

/** A file smaller than this is sent as it is: compression would save less than it costs. */
export const COMPRESS_MIN_BYTES = 1024;
