import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HttpError } from '../../../kernel/index.ts';

/**
 * Streams a request body to a temporary file (a zip needs random access to its central directory),
 * never holding it in memory; past `maxBytes` the stream is cut with 413 and the file removed.
 */
export async function spoolToFile(body: Readable, opts: { dir: string; maxBytes: number }): Promise<string> {
  await fs.mkdir(opts.dir, { recursive: true });
  const file = path.join(opts.dir, `bundle-${Date.now()}-${randomBytes(8).toString('hex')}.zip`);
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > opts.maxBytes)
        return done(new HttpError(413, 'BUNDLE_TOO_LARGE', `The bundle is larger than ${opts.maxBytes} bytes`));
      done(null, chunk);
    },
  });
  try {
    await pipeline(body, meter, createWriteStream(file));
    return file;
  } catch (err) {
    await fs.rm(file, { force: true });
    throw err instanceof HttpError ? err : new HttpError(400, 'UPLOAD_INTERRUPTED', 'The bundle upload ended early');
  }
}
