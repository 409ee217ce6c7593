import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { finished, Transform, type Readable } from 'node:stream';
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

const interrupted = () => new HttpError(400, 'UPLOAD_INTERRUPTED', 'The upload ended before its last byte');
export const tooLarge = (maxBytes: number) =>
  new HttpError(413, 'ASSET_TOO_LARGE', `The file is larger than ${maxBytes} bytes`);

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
    // The body is piped in, not part of the pipeline: a cut (413) must not destroy the request, or
    // the answer never reaches the client (Node 22+ tears the connection down with it).
    const written = pipeline(meter, createWriteStream(tempPath, { flags: 'wx' }));
    // A body that fails, or closes before its end (the client went away, also before this point),
    // fails the write; `finished` sees a stream that is already closed too.
    const stopWatching = finished(body, { writable: false }, (err) => {
      if (err)
        meter.destroy((err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE' ? interrupted() : err);
    });
    body.pipe(meter);
    try {
      await written;
    } finally {
      stopWatching();
      body.unpipe(meter);
    }
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
