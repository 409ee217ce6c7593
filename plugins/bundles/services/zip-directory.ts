import type { FileHandle } from 'node:fs/promises';
import { crc32, inflateRawSync } from 'node:zlib';
import { badRequest, HttpError } from '../../../kernel/index.ts';

/** One entry of a zip's central directory, as read from its bytes. */
export interface DirectoryEntry {
  name: string;
  flags: number;
  method: number;
  crc: number;
  compressedSize: number;
  uncompressedSize: number;
  localOffset: number;
  /** Unix mode bits of the external attributes (0 when the archiver wrote none). */
  mode: number;
}

/** A central directory past this is refused before it is read (100,000 short entries take about 8 MB). */
export const MAX_DIRECTORY_BYTES = 64 * 1024 * 1024;
const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

const damaged = (why: string) => badRequest(`The bundle is damaged (${why})`, 'bundle', 'BUNDLE_DAMAGED');

async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, position);
  if (bytesRead !== length) throw damaged('it ends early');
  return buf;
}

/** Where the central directory is and how many entries it declares (zip64 records included). */
async function locateDirectory(
  fh: FileHandle,
  size: number,
): Promise<{ count: number; offset: number; bytes: number }> {
  const tailLength = Math.min(size, 22 + 0xffff);
  const tail = await readAt(fh, size - tailLength, tailLength);
  let at = -1;
  for (let i = tailLength - 22; i >= 0; i--)
    if (tail.readUInt32LE(i) === EOCD) {
      at = i;
      break;
    }
  if (at < 0) throw damaged('no end of central directory');
  let count = tail.readUInt16LE(at + 10);
  let bytes = tail.readUInt32LE(at + 12);
  let offset = tail.readUInt32LE(at + 16);
  if (count === 0xffff || bytes === 0xffffffff || offset === 0xffffffff) {
    const locatorAt = size - tailLength + at - 20;
    if (locatorAt < 0) throw damaged('no zip64 locator');
    const locator = await readAt(fh, locatorAt, 20);
    if (locator.readUInt32LE(0) !== ZIP64_LOCATOR) throw damaged('no zip64 locator');
    const end = await readAt(fh, Number(locator.readBigUInt64LE(8)), 56);
    if (end.readUInt32LE(0) !== ZIP64_EOCD) throw damaged('no zip64 end record');
    count = Number(end.readBigUInt64LE(32));
    bytes = Number(end.readBigUInt64LE(40));
    offset = Number(end.readBigUInt64LE(48));
  }
  return { count, offset, bytes };
}

/**
 * The central directory of a zip on disk, read in one piece and walked in a plain loop: 100,000
 * entries take milliseconds, where reading them one by one through yauzl took seconds. `visit` sees
 * each entry in order and may throw to stop at the first problem. Refused before anything is read:
 * more entries than `maxEntries` (the declared count), a directory over MAX_DIRECTORY_BYTES.
 */
export async function scanDirectory(
  fh: FileHandle,
  maxEntries: number,
  visit: (entry: DirectoryEntry) => void,
): Promise<number> {
  const { size } = await fh.stat();
  const { count, offset, bytes } = await locateDirectory(fh, size);
  if (count > maxEntries)
    throw badRequest(
      `The bundle holds ${count} entries; at most ${maxEntries} are read`,
      'bundle',
      'BUNDLE_TOO_MANY_ENTRIES',
    );
  if (bytes > MAX_DIRECTORY_BYTES)
    throw badRequest(
      `The bundle's directory is larger than ${MAX_DIRECTORY_BYTES} bytes`,
      'bundle',
      'BUNDLE_TOO_LARGE',
    );
  if (offset + bytes > size) throw damaged('the directory lies outside the file');
  const dir = await readAt(fh, offset, bytes);
  let p = 0;
  for (let n = 0; n < count; n++) {
    if (p + 46 > dir.length || dir.readUInt32LE(p) !== CENTRAL) throw damaged(`entry ${n + 1} has no header`);
    const nameLength = dir.readUInt16LE(p + 28);
    const extraLength = dir.readUInt16LE(p + 30);
    const commentLength = dir.readUInt16LE(p + 32);
    const end = p + 46 + nameLength + extraLength + commentLength;
    if (end > dir.length) throw damaged(`entry ${n + 1} runs past the directory`);
    const flags = dir.readUInt16LE(p + 8);
    const raw = dir.subarray(p + 46, p + 46 + nameLength);
    const entry: DirectoryEntry = {
      name: raw.toString((flags & 0x800) !== 0 ? 'utf8' : 'latin1'),
      flags,
      method: dir.readUInt16LE(p + 10),
      crc: dir.readUInt32LE(p + 16),
      compressedSize: dir.readUInt32LE(p + 20),
      uncompressedSize: dir.readUInt32LE(p + 24),
      localOffset: dir.readUInt32LE(p + 42),
      mode: (dir.readUInt32LE(p + 38) >>> 16) & 0o170000,
    };
    readZip64Extra(dir.subarray(p + 46 + nameLength, p + 46 + nameLength + extraLength), entry);
    visit(entry);
    p = end;
  }
  return count;
}

/** Sizes and offset past 4 GiB live in the zip64 extra field (id 1), in this order, only those marked 0xffffffff. */
function readZip64Extra(extra: Buffer, entry: DirectoryEntry): void {
  const wanted: Array<'uncompressedSize' | 'compressedSize' | 'localOffset'> = [];
  if (entry.uncompressedSize === 0xffffffff) wanted.push('uncompressedSize');
  if (entry.compressedSize === 0xffffffff) wanted.push('compressedSize');
  if (entry.localOffset === 0xffffffff) wanted.push('localOffset');
  if (!wanted.length) return;
  for (let i = 0; i + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(i);
    const length = extra.readUInt16LE(i + 2);
    if (id === 1) {
      if (length < wanted.length * 8 || i + 4 + length > extra.length)
        throw damaged(`${entry.name}: zip64 field too short`);
      wanted.forEach((key, k) => {
        entry[key] = Number(extra.readBigUInt64LE(i + 4 + k * 8));
      });
      return;
    }
    i += 4 + length;
  }
  throw damaged(`${entry.name}: zip64 sizes missing`);
}

/**
 * A small entry's bytes (the manifest), read straight from its local header: stored or deflated,
 * inflated no further than the declared size, which must match, as must the checksum.
 */
export async function readSmallEntry(fh: FileHandle, entry: DirectoryEntry, maxBytes: number): Promise<Buffer> {
  if (entry.uncompressedSize > maxBytes)
    throw new HttpError(413, 'MANIFEST_TOO_LARGE', `${entry.name} is larger than ${maxBytes} bytes`);
  const local = await readAt(fh, entry.localOffset, 30);
  if (local.readUInt32LE(0) !== LOCAL) throw damaged(`${entry.name} has no local header`);
  const start = entry.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  const body = await readAt(fh, start, entry.compressedSize);
  let data: Buffer;
  if (entry.method === 0) data = body;
  else if (entry.method === 8)
    try {
      data = inflateRawSync(body, { maxOutputLength: Math.max(1, entry.uncompressedSize) });
    } catch {
      throw damaged(`${entry.name} does not inflate to its declared size`);
    }
  else throw damaged(`${entry.name} uses compression method ${entry.method}`);
  if (data.length !== entry.uncompressedSize) throw damaged(`${entry.name} does not match its declared size`);
  if (crc32(data) >>> 0 !== entry.crc) throw damaged(`${entry.name} does not match its checksum`);
  return data;
}
