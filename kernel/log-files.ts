import { mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { destination as fileDescriptor, multistream } from 'pino';
import type { ServiceName } from './config.ts';
import { createLogger, type Logger } from './logger.ts';

/** The name a process's log lines and files carry: its service, or `all-in-one`. */
export type LogSource = ServiceName | 'all-in-one';

export const logSourceOf = (service: ServiceName | 'all'): LogSource => (service === 'all' ? 'all-in-one' : service);

/** One of this process's log files. */
export interface LogFile {
  /** File name inside the log folder: `<service>.<n>.log`. */
  name: string;
  path: string;
  size: number;
  /** Its rotation number; a later file has a larger one. */
  number: number;
  /** The file being written now (every other one is closed and never written again). */
  current: boolean;
}

interface Flushable {
  readonly file: string;
  flush(cb?: (err?: Error) => unknown): void;
  end(): void;
}

/**
 * This process's log files (container name `logFiles`): which there are, flushing what is written.
 * Written by pino through pino-roll, which starts `<service>.<n+1>.log` once the current file passes
 * LOG_FILE_MAX_MB and deletes the oldest past LOG_FILE_COUNT closed files. Without LOG_DIR the process
 * logs to standard output only and `dir` is undefined.
 */
export class LogFiles {
  constructor(
    readonly source: LogSource,
    readonly dir: string | undefined,
    private readonly stream?: Flushable,
  ) {}

  /** True when this process writes log files. */
  get enabled(): boolean {
    return this.dir !== undefined;
  }

  /** This process's own log files, oldest first; the last one is being written. */
  async list(): Promise<LogFile[]> {
    if (!this.dir || !this.stream) return [];
    const pattern = new RegExp(`^${this.source}\\.([0-9]{1,15})\\.log$`);
    const current = path.basename(this.stream.file);
    const files: LogFile[] = [];
    for (const name of await readdir(this.dir)) {
      const match = pattern.exec(name);
      if (!match) continue;
      const file = path.join(this.dir, name);
      const info = await stat(file).catch(() => undefined); // rotated away meanwhile
      if (!info?.isFile()) continue;
      files.push({ name, path: file, size: info.size, number: Number(match[1]), current: name === current });
    }
    return files.sort((a, b) => a.number - b.number);
  }

  /**
   * Resolves once every line logged so far is in the file, and a change of file that a write made due
   * has happened (pino-roll changes files on a later tick).
   */
  flush(): Promise<void> {
    const stream = this.stream;
    if (!stream) return Promise.resolve();
    return new Promise((resolve) => stream.flush(() => setImmediate(resolve)));
  }

  /** Flushes and closes the file (the process is stopping). */
  async close(): Promise<void> {
    await this.flush();
    this.stream?.end();
  }
}

/** What the process log is made from: the kernel's config fields that describe it. */
export interface ProcessLogSettings {
  LOG_LEVEL: string;
  LOG_DIR?: string;
  LOG_FILE_MAX_MB: number;
  LOG_FILE_COUNT: number;
}

/**
 * The logger of a process and its files: standard output always, and with LOG_DIR also a rotating file
 * `<LOG_DIR>/<service>.<n>.log` (pino-roll, loaded only then). Both receive every line the logger's
 * level lets through (`stdout: false`, for tests: the file only).
 */
export async function openProcessLog(
  settings: ProcessLogSettings,
  service: ServiceName | 'all',
  options: { stdout?: boolean } = {},
): Promise<{ logger: Logger; files: LogFiles }> {
  const source = logSourceOf(service);
  if (!settings.LOG_DIR)
    return { logger: createLogger(settings.LOG_LEVEL, { service: source }), files: new LogFiles(source, undefined) };
  const dir = path.resolve(settings.LOG_DIR);
  await mkdir(dir, { recursive: true });
  const { default: pinoRoll } = await import('pino-roll');
  const file = await pinoRoll({
    file: path.join(dir, source),
    extension: '.log',
    size: `${settings.LOG_FILE_MAX_MB}m`,
    // Files of earlier runs count too, so a restart never leaves more than LOG_FILE_COUNT closed files.
    // pino-roll's count then includes the current file.
    limit: { count: settings.LOG_FILE_COUNT + 1, removeOtherLogFiles: true },
    mkdir: true,
    // Written as it is logged, like standard output: a line logged before a crash is in the file, and
    // a file changes right after the write that took it past the size.
    sync: true,
  });
  // A full disk or a removed folder must not stop the process: standard output still has the lines.
  file.on('error', (err: Error) => process.stderr.write(`log file: ${err.message}\n`));
  const destination = multistream([
    ...(options.stdout === false ? [] : [{ level: 'trace' as const, stream: fileDescriptor({ dest: 1, sync: true }) }]),
    { level: 'trace', stream: file },
  ]);
  return {
    logger: createLogger(settings.LOG_LEVEL, { service: source, destination }),
    files: new LogFiles(source, dir, file),
  };
}
