import { appendFile, mkdir, readdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { badRequest, conflict } from '../../../kernel/index.ts';
import type { LogFileSource, ReadableLogFile } from './log-lines.ts';

/** The processes whose log files the store keeps (the store's own process reads its own files). */
export const LOG_SOURCES = ['core-api', 'gateway', 'asset-processor', 'all-in-one'] as const;

/**
 * A shipped file's name in the store: the time of its first line (ms, 13 digits) and its name where it
 * was written. The time keeps names unique when a process starts numbering again (a new container) and
 * makes name order the time order.
 */
export const SEGMENT_NAME = /^([0-9]{13})-(core-api|gateway|asset-processor|all-in-one)\.[0-9]{1,15}\.log$/;

export interface StoredSegment {
  name: string;
  size: number;
}

/**
 * Log file storage on the asset-processor (the spec's "Runtime parts"): the files core-api and the
 * gateway ship, under `<LOG_DIR>/store/<service>/`, appended to as they grow. It keeps
 * LOG_FILE_COUNT + 1 files per service, as the services do themselves, and nothing else: no retention.
 */
export class LogStore {
  /** Appends to one file run one after the other (a retried call must never interleave). */
  private readonly queue = new Map<string, Promise<unknown>>();

  constructor(
    readonly dir: string,
    private readonly keep: number,
  ) {}

  private folder(service: string): string {
    return path.join(this.dir, service);
  }

  /** The service's stored files, oldest first. */
  async segments(service: string): Promise<StoredSegment[]> {
    let names: string[];
    try {
      names = await readdir(this.folder(service));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const segments: StoredSegment[] = [];
    for (const name of names.filter((n) => SEGMENT_NAME.test(n)).sort()) {
      const info = await stat(path.join(this.folder(service), name)).catch(() => undefined);
      if (info?.isFile()) segments.push({ name, size: info.size });
    }
    return segments;
  }

  /**
   * Appends whole lines to a stored file at `offset`, which must be its size now (409 otherwise, naming
   * the size: the shipper sends from there). Returns the new size.
   */
  append(service: string, name: string, offset: number, bytes: Buffer): Promise<number> {
    const match = SEGMENT_NAME.exec(name);
    if (!match || match[2] !== service)
      throw badRequest(`A stored log file of ${service} is named <first-line-ms>-${service}.<n>.log`, 'name');
    if (bytes.length === 0 || bytes[bytes.length - 1] !== 10)
      throw badRequest('The body must be whole log lines, ending with a newline', 'body', 'LOG_LINES_INCOMPLETE');
    const file = path.join(this.folder(service), name);
    const run = (this.queue.get(file) ?? Promise.resolve()).then(async () => {
      const size = (await stat(file).catch(() => undefined))?.size ?? 0;
      if (size !== offset)
        throw conflict(`The stored file ${name} holds ${size} bytes, not ${offset}`, 'LOG_OFFSET_MISMATCH', 'offset');
      if (size === 0) {
        // At the cap, a copy older than every kept one would be the first to go: refused, so the
        // shipper drops it instead of sending it again at every pass.
        const kept = await this.segments(service);
        if (kept.length >= this.keep && name < kept[0].name)
          throw conflict(
            `${name} is older than the ${kept.length} files kept for ${service}`,
            'LOG_SEGMENT_TOO_OLD',
            'name',
          );
        await mkdir(this.folder(service), { recursive: true });
      }
      await appendFile(file, bytes);
      if (size === 0) await this.dropOldest(service);
      return size + bytes.length;
    });
    const settled = run.catch(() => undefined);
    this.queue.set(file, settled);
    void settled.then(() => {
      if (this.queue.get(file) === settled) this.queue.delete(file);
    });
    return run;
  }

  /** Past LOG_FILE_COUNT + 1 files of a service, the oldest go (rotation's bound, on the store too). */
  private async dropOldest(service: string): Promise<void> {
    const segments = await this.segments(service);
    for (const old of segments.slice(0, Math.max(0, segments.length - this.keep)))
      await unlink(path.join(this.folder(service), old.name)).catch(() => undefined);
  }

  /** One source per service with stored files. */
  async sources(): Promise<LogFileSource[]> {
    const services = await readdir(this.dir).catch(() => [] as string[]);
    return LOG_SOURCES.filter((s) => services.includes(s)).map((service) => ({
      service,
      files: async (): Promise<ReadableLogFile[]> =>
        (await this.segments(service)).map((s) => ({ path: path.join(this.folder(service), s.name), size: s.size })),
    }));
  }
}
