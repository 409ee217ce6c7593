import fs, { type FileHandle } from 'node:fs/promises';
import { Transform, type Readable } from 'node:stream';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { badRequest, HttpError } from '../../../kernel/index.ts';
import { type DirectoryEntry, readSmallEntry, scanDirectory } from './zip-directory.ts';

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
const MAX_NAME_BYTES = 1024;
const S_IFLNK = 0o120000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

const refused = (message: string, code: string) => badRequest(message, 'bundle', code);

/** Why an entry name is refused, or null: names stay inside the bundle and use `/` only. */
export function entryNameProblem(name: string): string | null {
  if (name.length === 0) return 'an entry has an empty name';
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) return `an entry name is longer than ${MAX_NAME_BYTES} bytes`;
  if (name.includes('\0')) return `the entry name ${JSON.stringify(name)} holds a NUL character`;
  if (name.includes('\\')) return `the entry name ${JSON.stringify(name)} uses a backslash`;
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return `the entry ${JSON.stringify(name)} has an absolute path`;
  // Only a name with "//" or a "." next to a "/" can hold an empty, "." or ".." segment (checked per
  // entry: 100,000 of them must cost milliseconds).
  if (!name.includes('//') && !/(^|\/)\.\.?(\/|$)/.test(name)) return null;
  const segments = name.replace(/\/$/, '').split('/');
  if (segments.some((s) => s === '..')) return `the entry ${JSON.stringify(name)} leaves the bundle (..)`;
  if (segments.some((s) => s === '' || s === '.'))
    return `the entry name ${JSON.stringify(name)} has an empty or "." segment`;
  return null;
}

export interface BundleEntry {
  name: string;
  size: number;
}

/** Refuses an entry that is not a plain, safe, unencrypted file of believable size (400 naming it). */
function checkEntry(e: DirectoryEntry, seen: { has(name: string): boolean }, total: number, limits: ZipLimits): void {
  const name = e.name;
  const problem = entryNameProblem(name);
  if (problem) throw refused(`Refused: ${problem}`, 'BUNDLE_UNSAFE_PATH');
  if (e.mode === S_IFLNK)
    throw refused(`Refused: the entry ${JSON.stringify(name)} is a symbolic link`, 'BUNDLE_SYMLINK');
  if (e.mode !== 0 && e.mode !== S_IFREG && e.mode !== S_IFDIR)
    throw refused(`Refused: the entry ${JSON.stringify(name)} is not a file`, 'BUNDLE_SPECIAL_FILE');
  if (seen.has(name))
    throw refused(`Refused: the entry ${JSON.stringify(name)} appears twice`, 'BUNDLE_DUPLICATE_ENTRY');
  if ((e.flags & 0x1) !== 0)
    throw refused(`Refused: the entry ${JSON.stringify(name)} is encrypted`, 'BUNDLE_ENCRYPTED');
  if (total > limits.maxUncompressedBytes)
    throw refused(`The bundle unpacks to more than ${limits.maxUncompressedBytes} bytes`, 'BUNDLE_TOO_LARGE');
  if (e.uncompressedSize > RATIO_FLOOR_BYTES && e.uncompressedSize > limits.maxRatio * Math.max(1, e.compressedSize))
    throw refused(
      `Refused: the entry ${JSON.stringify(name)} inflates more than ${limits.maxRatio} times (a zip bomb)`,
      'BUNDLE_RATIO',
    );
}

/**
 * A bundle on local disk. Its central directory is read in one piece and every entry checked before
 * any is read (names that leave the bundle, absolute names, symbolic links, duplicates, more entries
 * or more bytes than the caps, entries that inflate past the ratio cap: 400 naming the entry), so a
 * hostile zip costs milliseconds whatever its entry count. The manifest is read straight from its
 * local header; yauzl opens the other entries as streams (never whole), and walks its own view of the
 * directory only when the first of them is opened, checked name by name against the scan.
 */
export class BundleZip {
  private yauzlEntries: Promise<Map<string, Entry>> | undefined;

  private constructor(
    private readonly fh: FileHandle,
    private readonly zip: ZipFile,
    private readonly directory: ReadonlyMap<string, DirectoryEntry>,
    private readonly order: readonly string[],
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
    const fh = await fs.open(file, 'r').catch((err) => {
      zip.close();
      throw err;
    });
    try {
      const directory = new Map<string, DirectoryEntry>();
      const order: string[] = [];
      const entries = new Map<string, BundleEntry>();
      let total = 0;
      const count = await scanDirectory(fh, limits.maxEntries, (e) => {
        total += e.uncompressedSize;
        checkEntry(e, directory, total, limits);
        directory.set(e.name, e);
        order.push(e.name);
        if (!e.name.endsWith('/')) entries.set(e.name, { name: e.name, size: e.uncompressedSize });
      });
      if (count !== zip.entryCount) throw refused('The bundle is damaged (two entry counts)', 'BUNDLE_DAMAGED');
      return new BundleZip(fh, zip, directory, order, entries);
    } catch (err) {
      zip.close();
      await fh.close();
      throw err;
    }
  }

  /** yauzl's entries, read once; its view of the directory must be the one the scan checked. */
  private yauzlView(): Promise<Map<string, Entry>> {
    this.yauzlEntries ??= new Promise((resolve, reject) => {
      const out = new Map<string, Entry>();
      let n = 0;
      this.zip.on('error', (err: Error) => reject(refused(`The bundle is damaged (${err.message})`, 'BUNDLE_DAMAGED')));
      this.zip.on('end', () =>
        n === this.order.length ? resolve(out) : reject(refused('The bundle is damaged', 'BUNDLE_DAMAGED')),
      );
      this.zip.on('entry', (entry: Entry) => {
        const raw = entry.fileName as unknown as Buffer;
        const name = raw.toString((entry.generalPurposeBitFlag & 0x800) !== 0 ? 'utf8' : 'latin1');
        const scanned = this.directory.get(name);
        if (name !== this.order[n++] || scanned?.uncompressedSize !== entry.uncompressedSize)
          return reject(refused(`The bundle is damaged (entry ${JSON.stringify(name)})`, 'BUNDLE_DAMAGED'));
        out.set(name, entry);
        this.zip.readEntry();
      });
      this.zip.readEntry();
    });
    return this.yauzlEntries;
  }

  /**
   * The entry's bytes. yauzl checks that they match the declared size (a header that lies is an
   * error); the meter below also stops at the declared size.
   */
  async open(name: string): Promise<Readable> {
    const found = this.entries.get(name);
    if (!found) throw refused(`The bundle has no entry ${JSON.stringify(name)}`, 'BUNDLE_FILE_MISSING');
    const entry = (await this.yauzlView()).get(name) as Entry;
    const stream = await new Promise<Readable>((resolve, reject) =>
      this.zip.openReadStream(entry, (err, s) =>
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
    const found = this.directory.get(name);
    if (!found || name.endsWith('/')) throw refused(`The bundle has no ${name}`, 'BUNDLE_NO_MANIFEST');
    return (await readSmallEntry(this.fh, found, maxBytes)).toString('utf8');
  }

  close(): void {
    this.zip.close();
    void this.fh.close().catch(() => undefined);
  }
}
