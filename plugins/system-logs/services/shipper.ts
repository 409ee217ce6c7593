import { open, unlink } from 'node:fs/promises';
import { isHttpError, type LogFile, type LogFiles } from '../../../kernel/index.ts';
import type { RemoteLogStore } from './remote-store.ts';

/** Bytes of one shipping call at most (whole lines; a longer line goes alone). */
const PART_BYTES = 1024 * 1024;

/** When a file's first line was written (ms): part of its name in the store. */
async function firstLineTime(file: LogFile): Promise<number | undefined> {
  const handle = await open(file.path, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const head = Buffer.alloc(Math.min(file.size, 64 * 1024));
    await handle.read(head, 0, head.length, 0);
    const end = head.indexOf(10);
    if (end < 0) return undefined;
    const time = (JSON.parse(head.toString('utf8', 0, end)) as { time?: unknown }).time;
    return typeof time === 'number' && time >= 0 && time < 1e13 ? Math.floor(time) : undefined;
  } catch {
    return undefined; // not a pino line
  } finally {
    await handle.close();
  }
}

/** Bytes of a file from `start`, up to `max` and cut after the last newline (a line being written waits). */
async function wholeLines(path: string, start: number, end: number): Promise<Buffer | undefined> {
  const handle = await open(path, 'r');
  try {
    let length = Math.min(end - start, PART_BYTES);
    for (;;) {
      const bytes = Buffer.alloc(length);
      const { bytesRead } = await handle.read(bytes, 0, length, start);
      const cut = bytes.subarray(0, bytesRead).lastIndexOf(10);
      if (cut >= 0) return bytes.subarray(0, cut + 1);
      if (start + length >= end) return undefined; // no newline yet
      length = Math.min(end - start, length * 2); // a line longer than a part
    }
  } finally {
    await handle.close();
  }
}

/**
 * Ships this process's log files to the asset-processor's store (core-api and the gateway of a split
 * deployment): every 30 s, and right before core-api reads the logs. Each file is appended to its
 * copy in the store from the size the store reports, so a lost answer or a restart sends nothing
 * twice; a closed file whose every byte is stored is deleted here.
 */
export class LogShipper {
  private running: Promise<void> | undefined;

  constructor(private readonly deps: { files: LogFiles; store: RemoteLogStore }) {}

  /** One pass; a call while one runs waits for that one and starts none. */
  ship(): Promise<void> {
    this.running ??= this.pass().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async pass(): Promise<void> {
    const { files, store } = this.deps;
    await files.flush();
    const local = await files.list();
    if (!local.length) return;
    const stored = new Map((await store.segments(files.source)).map((s) => [s.name, s.size]));
    for (const file of local) {
      const time = await firstLineTime(file);
      if (time === undefined) continue; // empty, or its first line is still being written
      const name = `${String(time).padStart(13, '0')}-${file.name}`;
      let offset = stored.get(name) ?? 0;
      try {
        while (offset < file.size) {
          const part = await wholeLines(file.path, offset, file.size).catch(() => undefined);
          if (!part) break;
          await store.append(files.source, name, offset, part);
          offset += part.length;
        }
      } catch (err) {
        if (!isHttpError(err) || err.statusCode !== 409) throw err; // the store is away: the next pass
        // Older than everything the store keeps: it would be dropped there at once.
        if (err.code === 'LOG_SEGMENT_TOO_OLD' && !file.current) offset = file.size;
        // Otherwise the copy changed meanwhile: the next pass starts from its size.
        else continue;
      }
      if (!file.current && offset >= file.size) await unlink(file.path).catch(() => undefined);
    }
  }
}
