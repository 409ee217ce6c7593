import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { finished, Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HttpError, isHttpError } from '../../../kernel/index.ts';

/** This host's name as it may stand in a file name. */
const HOST =
  os
    .hostname()
    .replace(/[^A-Za-z0-9.-]+/g, '_')
    .slice(0, 64) || 'host';
/** `bundle-<host>~<pid>~<random>.zip`: whose upload a spool file is, so a start-up knows what it may remove. */
const SPOOL_NAME = /^bundle-(.+)~(\d+)~[0-9a-f]+\.zip$/;

/**
 * Streams a request body to a temporary file (a zip needs random access to its central directory),
 * never holding it in memory; past `maxBytes` the stream is cut with 413, when `signal` aborts (the
 * time budget) with `onAbort()`, and the file is removed whatever went wrong.
 */
export async function spoolToFile(
  body: Readable,
  opts: { dir: string; maxBytes: number; signal?: AbortSignal; onAbort?: () => HttpError },
): Promise<string> {
  await fs.mkdir(opts.dir, { recursive: true });
  const file = path.join(opts.dir, `bundle-${HOST}~${process.pid}~${randomBytes(8).toString('hex')}.zip`);
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > opts.maxBytes)
        return done(new HttpError(413, 'BUNDLE_TOO_LARGE', `The bundle is larger than ${opts.maxBytes} bytes`));
      done(null, chunk);
    },
  });
  // Created before the first byte arrives, so the removal below always finds what a failure left.
  const handle = await fs.open(file, 'wx');
  // The body is piped by hand, not through pipeline(): a failure here must leave the request stream
  // alone, so the answer (413, 503) still reaches the client instead of a reset connection.
  const stopped = (err: Error) => meter.destroy(err);
  const onAbort = () => stopped(opts.onAbort?.() ?? new HttpError(503, 'IMPORT_TIME_BUDGET', 'The import was stopped'));
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const stopWatching = finished(body, (err) => {
    if (err) stopped(new HttpError(400, 'UPLOAD_INTERRUPTED', 'The bundle upload ended early'));
  });
  try {
    if (opts.signal?.aborted) onAbort();
    body.pipe(meter);
    await pipeline(meter, handle.createWriteStream());
    return file;
  } catch (err) {
    body.unpipe(meter);
    await handle.close().catch(() => undefined);
    await fs.rm(file, { force: true });
    throw isHttpError(err) ? err : new HttpError(400, 'UPLOAD_INTERRUPTED', 'The bundle upload ended early');
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    stopWatching();
  }
}

const running = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * At start-up: removes what crashed imports left in the spool folder (each up to BUNDLE_MAX_BYTES).
 * A file of this host whose process no longer runs is removed; so is any file older than the time
 * budget (no import outlives it), whoever wrote it. Files of a running import of another process
 * sharing the folder stay.
 */
export async function removeStaleSpoolFiles(dir: string, budgetMs: number, now = Date.now()): Promise<number> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!name.startsWith('bundle-') || !name.endsWith('.zip')) continue;
    const file = path.join(dir, name);
    const owner = SPOOL_NAME.exec(name);
    const ownProcessGone = owner?.[1] === HOST && (Number(owner[2]) === process.pid || !running(Number(owner[2])));
    const stat = await fs.stat(file).catch(() => undefined);
    if (!stat) continue;
    if (ownProcessGone || now - stat.mtimeMs > budgetMs) {
      await fs.rm(file, { force: true });
      removed++;
    }
  }
  return removed;
}
