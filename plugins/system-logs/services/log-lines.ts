import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';

/** pino's level names, lowest first, and their numbers. */
export const LEVEL_NAMES = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LevelName = (typeof LEVEL_NAMES)[number];
const LEVEL_VALUES = new Map<string, number>([
  ['trace', 10],
  ['debug', 20],
  ['info', 30],
  ['warn', 40],
  ['error', 50],
  ['fatal', 60],
]);
const LEVEL_BY_VALUE = new Map([...LEVEL_VALUES].map(([name, value]) => [value, name]));

/** Longest line text an answer carries; the rest is cut (`truncated`). */
export const MAX_LINE_CHARS = 8192;
/** Bytes of one source the tail reads at most, newest first: a tail never scans a whole archive. */
export const TAIL_SCAN_BYTES = 64 * 1024 * 1024;
const CHUNK = 64 * 1024;

/** One line of the tail: the text as written, and what the reader needs to sort and filter it. */
export interface LogLine {
  /** The process that wrote it (`core-api`, `gateway`, `asset-processor`, `all-in-one`). */
  service: string;
  /** ISO time of the line, null when it has none (not a pino line). */
  time: string | null;
  level: LevelName | null;
  msg: string | null;
  /** The line as stored (JSON written by pino), cut at MAX_LINE_CHARS. */
  line: string;
  truncated?: true;
}

/** A file of one source as the reader sees it: where, and how many of its bytes to read. */
export interface ReadableLogFile {
  path: string;
  size: number;
}

/** The log files of one process, oldest first. */
export interface LogFileSource {
  service: string;
  files(): Promise<ReadableLogFile[]>;
}

export interface TailQuery {
  lines: number;
  /** The lowest level wanted (`warn` = warn, error and fatal); lines without a level are then left out. */
  level?: LevelName;
  service?: string;
}

function parseLine(text: string, service: string): LogLine & { at: number; levelValue: number } {
  let record: Record<string, unknown> | undefined;
  if (text.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) record = parsed as Record<string, unknown>;
    } catch {
      // not JSON: kept as text
    }
  }
  const at = typeof record?.time === 'number' && Number.isFinite(record.time) ? record.time : Number.NaN;
  const levelValue = typeof record?.level === 'number' ? record.level : 0;
  const cut = text.length > MAX_LINE_CHARS;
  return {
    service: typeof record?.service === 'string' ? record.service : service,
    time: Number.isNaN(at) ? null : new Date(at).toISOString(),
    level: (LEVEL_BY_VALUE.get(levelValue) as LevelName | undefined) ?? null,
    msg: typeof record?.msg === 'string' ? record.msg.slice(0, MAX_LINE_CHARS) : null,
    line: cut ? text.slice(0, MAX_LINE_CHARS) : text,
    ...(cut ? { truncated: true as const } : {}),
    at,
    levelValue,
  };
}

/**
 * The complete lines of a file from its end backwards, reading at most `budget.bytes` (shared by the
 * files of one source). Bytes after the last newline are a line still being written and are skipped.
 */
async function* linesBackward(file: ReadableLogFile, budget: { bytes: number }): AsyncGenerator<string> {
  const handle = await open(file.path, 'r').catch(() => undefined); // rotated away meanwhile
  if (!handle) return;
  try {
    let position = file.size;
    let carry: Buffer = Buffer.alloc(0);
    let first = true;
    while (position > 0 && budget.bytes > 0) {
      const length = Math.min(CHUNK, position, budget.bytes);
      position -= length;
      budget.bytes -= length;
      const chunk = Buffer.alloc(length);
      await handle.read(chunk, 0, length, position);
      let buffer = Buffer.concat([chunk, carry]);
      if (first) {
        const end = buffer.lastIndexOf(10);
        buffer = end < 0 ? Buffer.alloc(0) : buffer.subarray(0, end + 1);
        first = end < 0;
      }
      let end = buffer.length;
      if (buffer[end - 1] === 10) end -= 1;
      // (Buffer#lastIndexOf counts a negative offset from the end: never pass one.)
      let newline = end > 0 ? buffer.lastIndexOf(10, end - 1) : -1;
      while (newline >= 0) {
        const text = buffer.toString('utf8', newline + 1, end);
        if (text) yield text;
        end = newline;
        newline = end > 0 ? buffer.lastIndexOf(10, end - 1) : -1;
      }
      carry = Buffer.from(buffer.subarray(0, end));
    }
    // The file's first line (or where the budget ran out, a line that is cut: left out).
    if (position === 0 && carry.length) yield carry.toString('utf8');
  } finally {
    await handle.close();
  }
}

const LEVEL_PREFIX = '{"level":';

/** The level number of a pino line from its first field; when it does not start that way, it is parsed whole. */
function levelOf(text: string): number {
  if (!text.startsWith(LEVEL_PREFIX)) return Number.POSITIVE_INFINITY;
  let value = 0;
  for (let i = LEVEL_PREFIX.length; i < text.length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
  }
  return value;
}

/** The newest `query.lines` matching lines of one source, newest first. */
async function tailOfSource(source: LogFileSource, query: TailQuery): Promise<ReturnType<typeof parseLine>[]> {
  const minimum = query.level ? (LEVEL_VALUES.get(query.level) ?? 0) : 0;
  const found: ReturnType<typeof parseLine>[] = [];
  const budget = { bytes: TAIL_SCAN_BYTES };
  const files = await source.files();
  for (let i = files.length - 1; i >= 0 && found.length < query.lines && budget.bytes > 0; i--) {
    for await (const text of linesBackward(files[i], budget)) {
      // pino writes the level first: a line below the filter is skipped without parsing it.
      if (minimum > 0 && levelOf(text) < minimum) continue;
      const line = parseLine(text, source.service);
      if (line.levelValue < minimum) continue;
      found.push(line);
      if (found.length >= query.lines) break;
    }
  }
  return found;
}

/**
 * The last `query.lines` lines (at `query.level` or above) of these sources together, oldest first,
 * in time order across sources.
 */
export async function tail(sources: readonly LogFileSource[], query: TailQuery): Promise<LogLine[]> {
  const wanted = query.service ? sources.filter((s) => s.service === query.service) : sources;
  const each = await Promise.all(wanted.map((s) => tailOfSource(s, query)));
  // Newest first within a source; lines without a time keep their place after the one before them.
  const all = each.flatMap((lines) => lines.reverse().map((line, i) => ({ line, i })));
  all.sort((a, b) => {
    const ta = Number.isNaN(a.line.at) ? 0 : a.line.at;
    const tb = Number.isNaN(b.line.at) ? 0 : b.line.at;
    return ta - tb || a.i - b.i;
  });
  return all.slice(-query.lines).map(({ line: { at: _at, levelValue: _level, ...line } }) => line);
}

/** Every file of these sources as one stream of lines: source by source, each oldest file first. */
export function download(sources: () => Promise<readonly LogFileSource[]>, service?: string): Readable {
  async function* bytes(): AsyncGenerator<Buffer> {
    for (const source of await sources()) {
      if (service && source.service !== service) continue;
      for (const file of await source.files()) {
        if (file.size === 0) continue;
        let last = 0;
        try {
          for await (const chunk of createReadStream(file.path, { start: 0, end: file.size - 1 })) {
            const buffer = chunk as Buffer;
            if (buffer.length) last = buffer[buffer.length - 1];
            yield buffer;
          }
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // rotated away meanwhile
          throw err;
        }
        if (last !== 10) yield Buffer.from('\n');
      }
    }
  }
  return Readable.from(bytes());
}
