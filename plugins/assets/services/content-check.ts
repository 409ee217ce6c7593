import fs from 'node:fs/promises';
import { HttpError } from '../../../kernel/index.ts';
import type { ImageProcessor } from './images.ts';

/** The format sharp reports for each image type the public may send. */
const IMAGE_FORMATS = new Map([
  ['image/jpeg', 'jpeg'],
  ['image/png', 'png'],
  ['image/gif', 'gif'],
  ['image/webp', 'webp'],
  ['image/avif', 'heif'],
]);
const STRUCTURED = ['application/pdf', 'video/mp4', 'audio/mpeg'] as const;

/** Types whose whole content the check below can vouch for: the only ones public forms accept. */
export const CHECKED_TYPES: readonly string[] = [...IMAGE_FORMATS.keys(), ...STRUCTURED];

/** Box walks and frame walks stop here: a real file has far fewer top-level boxes, and a 50 MB MP3 fewer frames. */
const MAX_STEPS = 400_000;

/**
 * Whether a received file is what its first bytes claim, for uploads from the public (magic bytes
 * alone let `GIF89a<html>...` pass as a GIF). Images must decode with sharp (`failOn: 'error'`, within
 * the pixel limit and the image job slots); PDF, MP4 and MP3 must have the structure their readers
 * need (a cross-reference that a trailer points at; boxes that tile the file; MPEG frames end to end).
 */
export class UploadContentCheck {
  constructor(private readonly images: ImageProcessor) {}

  /** Why the file is refused, or null when its content is the type it claims. 413 over the pixel limit. */
  async refusal(file: string, size: number, mimeType: string): Promise<string | null> {
    const format = IMAGE_FORMATS.get(mimeType);
    if (format) return this.imageRefusal(file, mimeType, format);
    const reader = await FileWindow.open(file, size);
    try {
      if (mimeType === 'application/pdf') return await pdfRefusal(reader);
      if (mimeType === 'video/mp4') return await mp4Refusal(reader);
      if (mimeType === 'audio/mpeg') return await mp3Refusal(reader);
      return `Files of type ${mimeType} cannot be checked`;
    } finally {
      await reader.close();
    }
  }

  private async imageRefusal(file: string, mimeType: string, format: string): Promise<string | null> {
    try {
      // Visitors' uploads take their own turn in the image slots, apart from staff and services.
      const work = { caller: 'public-upload' };
      const probe = await this.images.probe(file, work);
      if (probe.format !== format) return `The file starts like ${mimeType} but reads as ${probe.format}`;
      // A full decode of the first image (to a few pixels): truncated or made-up pixel data fails here.
      await this.images.resize(file, { width: 8, height: 8, fit: 'inside', format: 'png' }, undefined, work);
      return null;
    } catch (err) {
      // Limits (413) and a full image queue (429) are answers of their own, not a wrong type.
      if (err instanceof HttpError && (err.statusCode === 413 || err.statusCode === 429)) throw err;
      return `The file is not a readable ${mimeType} image`;
    }
  }
}

/** Positioned reads of a file through one reused 64 KB window (walks read forward, mostly inside it). */
class FileWindow {
  private start = 0;
  private length = 0;
  private readonly buffer = Buffer.alloc(64 * 1024);

  private constructor(
    private readonly handle: fs.FileHandle,
    readonly size: number,
  ) {}

  static async open(file: string, size: number): Promise<FileWindow> {
    return new FileWindow(await fs.open(file, 'r'), size);
  }

  /** Up to `length` (≤ 64 KB) bytes at `position`; fewer at the end of the file. */
  async read(position: number, length: number): Promise<Buffer> {
    if (position < this.start || position + length > this.start + this.length) {
      const { bytesRead } = await this.handle.read(this.buffer, 0, this.buffer.length, position);
      this.start = position;
      this.length = bytesRead;
    }
    const from = position - this.start;
    return this.buffer.subarray(from, Math.min(from + length, this.length));
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

/** A header line, and a trailer whose `startxref` points at a cross-reference table or stream. */
async function pdfRefusal(file: FileWindow): Promise<string | null> {
  const head = (await file.read(0, 16)).toString('latin1');
  if (!/^%PDF-[12]\.\d[\r\n ]/.test(head)) return 'The file is not a PDF document (no PDF header line)';
  const tailStart = Math.max(0, file.size - 1024);
  const tail = (await file.read(tailStart, file.size - tailStart)).toString('latin1');
  const trailer = /startxref\s+(\d{1,15})\s+%%EOF/.exec(tail);
  if (!trailer) return 'The file is not a PDF document (no startxref and %%EOF at its end)';
  const offset = Number(trailer[1]);
  if (offset < 9 || offset >= tailStart + trailer.index)
    return 'The file is not a PDF document (startxref points outside the file)';
  const at = (await file.read(offset, 32)).toString('latin1');
  if (!/^(xref\s|\d+\s+\d+\s+obj\b)/.test(at))
    return 'The file is not a PDF document (startxref does not point at a cross-reference)';
  return null;
}

/** ISO base media boxes from the first byte to the last: `ftyp` first, a `moov` among them. */
async function mp4Refusal(file: FileWindow): Promise<string | null> {
  let position = 0;
  let sawMovie = false;
  for (let step = 0; position < file.size; step++) {
    if (step >= MAX_STEPS) return 'The file is not an MP4 video (too many boxes)';
    const header = await file.read(position, 16);
    if (header.length < 8) return 'The file is not an MP4 video (a box is cut off)';
    const type = header.toString('latin1', 4, 8);
    if (!/^[\x20-\x7e]{4}$/.test(type)) return 'The file is not an MP4 video (a box has no valid type)';
    if (step === 0 && type !== 'ftyp') return 'The file is not an MP4 video (it does not start with ftyp)';
    let boxSize = header.readUInt32BE(0);
    if (boxSize === 1) {
      if (header.length < 16) return 'The file is not an MP4 video (a box is cut off)';
      boxSize = Number(header.readBigUInt64BE(8));
    } else if (boxSize === 0) boxSize = file.size - position; // the last box runs to the end
    if (boxSize < 8 || position + boxSize > file.size)
      return 'The file is not an MP4 video (a box does not fit the file)';
    if (type === 'moov') sawMovie = true;
    position += boxSize;
  }
  return sawMovie ? null : 'The file is not an MP4 video (no moov box)';
}

// MPEG-1 and MPEG-2/2.5 Layer III bitrates (kbit/s) by index; index 0 (free format) and 15 are refused.
const BITRATES_V1 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const BITRATES_V2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const SAMPLE_RATES: Record<number, number[]> = {
  3: [44100, 48000, 32000],
  2: [22050, 24000, 16000],
  0: [11025, 12000, 8000],
};

/** The byte length of the Layer III frame whose header is at `h`, or 0 when it is not a valid header. */
function mp3FrameLength(h: Buffer): number {
  if (h.length < 4 || h[0] !== 0xff || (h[1] & 0xe0) !== 0xe0) return 0;
  const version = (h[1] >> 3) & 3; // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5, 1: reserved
  if (version === 1 || ((h[1] >> 1) & 3) !== 1) return 0; // Layer III only
  const bitrateIndex = h[2] >> 4;
  const rateIndex = (h[2] >> 2) & 3;
  if (bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return 0;
  const bitrate = (version === 3 ? BITRATES_V1 : BITRATES_V2)[bitrateIndex] * 1000;
  const sampleRate = SAMPLE_RATES[version][rateIndex];
  const padding = (h[2] >> 1) & 1;
  return Math.floor(((version === 3 ? 144 : 72) * bitrate) / sampleRate) + padding;
}

/** Optional ID3v2 tags, then Layer III frames end to end, then only a known closing tag (ID3v1, APE, Lyrics3). */
async function mp3Refusal(file: FileWindow): Promise<string | null> {
  let position = 0;
  for (;;) {
    const tag = await file.read(position, 10);
    if (tag.length < 10 || tag.toString('latin1', 0, 3) !== 'ID3') break;
    if ([6, 7, 8, 9].some((i) => tag[i] & 0x80)) return 'The file is not an MP3 (a broken ID3 tag)';
    const body = (tag[6] << 21) | (tag[7] << 14) | (tag[8] << 7) | tag[9];
    position += 10 + body + (tag[5] & 0x10 ? 10 : 0);
  }
  let frames = 0;
  for (; position < file.size; frames++) {
    if (frames >= MAX_STEPS) return 'The file is not an MP3 (too many frames)';
    const length = mp3FrameLength(await file.read(position, 4));
    if (length === 0) break;
    // A last frame cut short by the end of the file is still audio (encoders and cutters leave them).
    position = Math.min(position + length, file.size);
  }
  if (frames === 0) return 'The file is not an MP3 (no MPEG audio frame where one must start)';
  if (position === file.size) return null;
  const rest = (await file.read(position, 11)).toString('latin1');
  if (/^(TAG|APETAGEX|LYRICSBEGIN|ID3)/.test(rest) && file.size - position <= 64 * 1024) return null;
  return 'The file is not an MP3 (bytes that are not MPEG audio frames)';
}
