import { Transform, type Readable } from 'node:stream';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { badRequest, HttpError } from '../../../kernel/index.ts';

/** The caps a bundle is read under (config `BUNDLE_*`). */
export interface ZipLimits {
  maxEntries: number;
  /** Sum of the entries' uncompressed sizes. */
  maxUncompressedBytes: number;
  /** Uncompressed / compressed of one entry, past `RATIO_FLOOR_BYTES`. */
  maxRatio: number;
}

/** Small entries may compress very well (a JSON manifest of repeated keys); the ratio cap applies above this. */
const RATIO_FLOOR_BYTES = 1024 * 1024;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

const refused = (message: string, code: string) => badRequest(message, 'bundle', code);

/** Why an entry name is refused, or null: names stay inside the bundle and use `/` only. */
export function entryNameProblem(name: string): string | null {
  if (name.length === 0) return 'an entry has an empty name';
  if (name.includes('\0')) return `the entry name ${JSON.stringify(name)} holds a NUL character`;
  if (name.includes('\\')) return `the entry name ${JSON.stringify(name)} uses a backslash`;
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return `the entry ${JSON.stringify(name)} has an absolute path`;
  const segments = name.replace(/\/$/, '').split('/');
  if (segments.some((s) => s === '..')) return `the entry ${JSON.stringify(name)} leaves the bundle (..)`;
  if (segments.some((s) => s === '' || s === '.'))
    return `the entry name ${JSON.stringify(name)} has an empty or "." segment`;
  return null;
}

export interface BundleEntry {
  name: string;
  size: number;
  entry: Entry;
}

/**
 * A bundle on local disk, opened with yauzl (random access to the central directory; entries are
 * read as streams, never whole). Every entry is checked before anything is read: names that leave
 * the bundle, absolute names, symbolic links, duplicates, more entries or more bytes than the caps,
 * and entries that inflate past the ratio cap are refused with 400 naming the entry.
 */
export class BundleZip {
  private constructor(
    private readonly zip: ZipFile,
    readonly entries: ReadonlyMap<string, BundleEntry>,
  ) {}

  static async open(file: string, limits: ZipLimits): Promise<BundleZip> {
    const zip = await new Promise<ZipFile>((resolve, reject) =>
      yauzl.open(
        file,
        { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true },
        (err, z) =>
          err
            ? reject(refused(`The bundle is not a readable zip file (${err.message})`, 'BUNDLE_NOT_ZIP'))
            : resolve(z),
      ),
    );
    try {
      const entries = await BundleZip.readDirectory(zip, limits);
      return new BundleZip(zip, entries);
    } catch (err) {
      zip.close();
      throw err;
    }
  }

  private static readDirectory(zip: ZipFile, limits: ZipLimits): Promise<Map<string, BundleEntry>> {
    if (zip.entryCount > limits.maxEntries)
      return Promise.reject(
        refused(
          `The bundle holds ${zip.entryCount} entries; at most ${limits.maxEntries} are read`,
          'BUNDLE_TOO_MANY_ENTRIES',
        ),
      );
    const entries = new Map<string, BundleEntry>();
    let total = 0;
    return new Promise((resolve, reject) => {
      zip.on('error', (err: Error) => reject(refused(`The bundle is damaged (${err.message})`, 'BUNDLE_DAMAGED')));
      zip.on('end', () => resolve(entries));
      zip.on('entry', (entry: Entry) => {
        const raw = entry.fileName as unknown as Buffer;
        const name = raw.toString((entry.generalPurposeBitFlag & 0x800) !== 0 ? 'utf8' : 'latin1');
        const problem = entryNameProblem(name);
        if (problem) return reject(refused(`Refused: ${problem}`, 'BUNDLE_UNSAFE_PATH'));
        const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
        if (mode === S_IFLNK)
          return reject(refused(`Refused: the entry ${JSON.stringify(name)} is a symbolic link`, 'BUNDLE_SYMLINK'));
        if (mode !== 0 && mode !== S_IFREG && mode !== S_IFDIR)
          return reject(refused(`Refused: the entry ${JSON.stringify(name)} is not a file`, 'BUNDLE_SPECIAL_FILE'));
        if (entries.has(name))
          return reject(refused(`Refused: the entry ${JSON.stringify(name)} appears twice`, 'BUNDLE_DUPLICATE_ENTRY'));
        if (entry.isEncrypted())
          return reject(refused(`Refused: the entry ${JSON.stringify(name)} is encrypted`, 'BUNDLE_ENCRYPTED'));
        total += entry.uncompressedSize;
        if (total > limits.maxUncompressedBytes)
          return reject(
            refused(`The bundle unpacks to more than ${limits.maxUncompressedBytes} bytes`, 'BUNDLE_TOO_LARGE'),
          );
        if (
          entry.uncompressedSize > RATIO_FLOOR_BYTES &&
          entry.uncompressedSize > limits.maxRatio * Math.max(1, entry.compressedSize)
        )
          return reject(
            refused(
              `Refused: the entry ${JSON.stringify(name)} inflates more than ${limits.maxRatio} times (a zip bomb)`,
              'BUNDLE_RATIO',
            ),
          );
        if (!name.endsWith('/')) entries.set(name, { name, size: entry.uncompressedSize, entry });
        zip.readEntry();
      });
      zip.readEntry();
    });
  }

  /**
   * The entry's bytes. yauzl checks that they match the declared size (a header that lies is an
   * error); the meter below also stops at the declared size and at the ratio cap.
   */
  async open(name: string): Promise<Readable> {
    const found = this.entries.get(name);
    if (!found) throw refused(`The bundle has no entry ${JSON.stringify(name)}`, 'BUNDLE_FILE_MISSING');
    const stream = await new Promise<Readable>((resolve, reject) =>
      this.zip.openReadStream(found.entry, (err, s) =>
        err ? reject(refused(`Cannot read ${name}: ${err.message}`, 'BUNDLE_DAMAGED')) : resolve(s),
      ),
    );
    let seen = 0;
    const limit = found.size;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        seen += chunk.length;
        if (seen > limit) return done(refused(`The entry ${name} is longer than its header says`, 'BUNDLE_DAMAGED'));
        done(null, chunk);
      },
    });
    stream.on('error', (err) =>
      meter.destroy(err instanceof HttpError ? err : refused(`Cannot read ${name}: ${err.message}`, 'BUNDLE_DAMAGED')),
    );
    return stream.pipe(meter);
  }

  /** A whole small entry as text (the manifest), under a byte cap. */
  async text(name: string, maxBytes: number): Promise<string> {
    const found = this.entries.get(name);
    if (!found) throw refused(`The bundle has no ${name}`, 'BUNDLE_NO_MANIFEST');
    if (found.size > maxBytes)
      throw new HttpError(413, 'MANIFEST_TOO_LARGE', `${name} is larger than ${maxBytes} bytes`);
    const chunks: Buffer[] = [];
    for await (const chunk of await this.open(name)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  close(): void {
    this.zip.close();
  }
}
