import { badRequest } from '../../../kernel/index.ts';

export const THUMBNAIL_MAX_CHARS = 400_000;
const DATA_URL = /^data:image\/(webp|png|jpeg);base64,([A-Za-z0-9+/]+={0,2})$/;

function magicMatches(kind: string, bytes: Buffer): boolean {
  if (kind === 'png') return bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  if (kind === 'jpeg') return bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
  return bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP';
}

/** A thumbnail is a webp, png or jpeg data URL under 400k characters whose bytes are what it says; null clears. */
export function checkThumbnail(value: string | null): string | null {
  if (value === null) return null;
  if (value.length >= THUMBNAIL_MAX_CHARS)
    throw badRequest(`Thumbnail must be under ${THUMBNAIL_MAX_CHARS} characters`, 'thumbnail');
  const m = DATA_URL.exec(value);
  if (!m) throw badRequest('Thumbnail must be a base64 data URL of a webp, png or jpeg image', 'thumbnail');
  const head = Buffer.from(m[2].slice(0, 24), 'base64');
  if (!magicMatches(m[1], head)) throw badRequest(`Thumbnail bytes are not a ${m[1]} image`, 'thumbnail');
  return value;
}
