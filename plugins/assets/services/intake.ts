import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HttpError } from '../../../kernel/index.ts';
import { SNIFF_BYTES } from './sniff.ts';

/** A received file, on local disk until it is stored. */
export interface ReceivedFile {
  tempPath: string;
  size: number;
  sha256: string;
  /** The first bytes, for the type sniffer. */
  head: Buffer;
  discard(): Promise<void>;
}

export const tooLarge = (maxBytes: number) => new HttpError(413, 'ASSET_TOO_LARGE', `The file is larger than ${maxBytes} bytes`);

/**
 * Streams an incoming body to a temporary file while counting, hashing and keeping the first bytes.
 * The body is never held in memory; past `maxBytes` the stream is cut and 413 thrown with nothing kept.
 */
export async function receiveToTemp(body: Readable, opts: { maxBytes: number; tmpDir: string }): Promise<ReceivedFile> {
  await fs.mkdir(opts.tmpDir, { recursive: true });
  const tempPath = path.join(opts.tmpDir, `in-${Date.now()}-${randomBytes(8).toString('hex')}`);
  const hash = createHash('sha256');
  const heads: Buffer[] = [];
  let headLength = 0;
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > opts.maxBytes) return done(tooLarge(opts.maxBytes));
      hash.update(chunk);
      if (headLength < SNIFF_BYTES) {
        heads.push(chunk.subarray(0, SNIFF_BYTES - headLength));
        headLength += Math.min(chunk.length, SNIFF_BYTES - headLength);
      }
      done(null, chunk);
    },
  });
  const discard = () => fs.rm(tempPath, { force: true });
  try {
    await pipeline(body, meter, createWriteStream(tempPath, { flags: 'wx' }));
  } catch (err) {
    await discard();
    // Drain what the client still sends so the 413 reaches it instead of a reset connection.
    body.resume();
    throw err;
  }
  // Multipart marks a file cut at its own limit as truncated instead of failing the stream.
  if ((body as Readable & { truncated?: boolean }).truncated) {
    await discard();
    throw tooLarge(opts.maxBytes);
  }
  return { tempPath, size, sha256: hash.digest('hex'), head: Buffer.concat(heads), discard };
}
