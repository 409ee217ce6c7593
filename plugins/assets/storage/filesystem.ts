import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomBytes } from 'node:crypto';
import {
  assertStorageKey,
  assertStoragePrefix,
  type ByteRange,
  type ObjectStorage,
  type StorageInfo,
  type StoredObjectInfo,
} from './object-storage.ts';

/**
 * The embedded default: files under `<CMS_DATA_DIR>/assets`. Writes go to a temporary name in the
 * same folder tree and are renamed into place, so a reader never sees half a file.
 */
export class FilesystemStorage implements ObjectStorage {
  private readonly tmpDir: string;
  constructor(private readonly root: string) {
    this.tmpDir = path.join(root, '.tmp');
  }

  info(): StorageInfo {
    // The folder is the server's own business: a viewer learns the driver, never a filesystem path.
    return { driver: 'filesystem' };
  }

  async ensureBucket(): Promise<{ created: boolean }> {
    const existed = await fs.stat(this.root).then(
      () => true,
      () => false,
    );
    await fs.mkdir(this.tmpDir, { recursive: true });
    return { created: !existed };
  }

  private file(key: string): string {
    assertStorageKey(key);
    return path.join(this.root, ...key.split('/'));
  }

  private async tempFile(): Promise<string> {
    await fs.mkdir(this.tmpDir, { recursive: true });
    return path.join(this.tmpDir, `${Date.now()}-${randomBytes(8).toString('hex')}`);
  }

  async put(key: string, body: Readable): Promise<void> {
    const target = this.file(key);
    const temp = await this.tempFile();
    try {
      await pipeline(body, createWriteStream(temp, { flags: 'wx' }));
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.rename(temp, target);
    } catch (err) {
      await fs.rm(temp, { force: true });
      throw err;
    }
  }

  async putFile(key: string, filePath: string): Promise<void> {
    await this.put(key, createReadStream(filePath));
  }

  async get(key: string, range?: ByteRange): Promise<{ body: Readable; info: StoredObjectInfo } | null> {
    const file = this.file(key);
    // Open first, then stat the open descriptor: the answer describes the bytes actually streamed.
    const handle = await fs.open(file, 'r').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'EISDIR') return null;
      throw err;
    });
    if (!handle) return null;
    const stat = await handle.stat();
    if (!stat.isFile()) {
      await handle.close();
      return null;
    }
    const body = handle.createReadStream(range ? { start: range.start, end: range.end } : {});
    return { body, info: { size: stat.size, lastModified: stat.mtime } };
  }

  async head(key: string): Promise<StoredObjectInfo | null> {
    const stat = await fs.stat(this.file(key)).catch(() => null);
    return stat?.isFile() ? { size: stat.size, lastModified: stat.mtime } : null;
  }

  localPath(key: string): string | null {
    return this.file(key);
  }

  async copy(fromKey: string, toKey: string): Promise<void> {
    const source = this.file(fromKey);
    await fs.access(source);
    await this.put(toKey, createReadStream(source));
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.file(key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<number> {
    const keys = await this.list(prefix);
    for (const key of keys) await this.delete(key);
    return keys.length;
  }

  async list(prefix: string): Promise<string[]> {
    assertStoragePrefix(prefix);
    // Walk from the deepest complete folder of the prefix, then filter by the whole prefix.
    const folder = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
    const start = folder ? path.join(this.root, ...folder.split('/')) : this.root;
    const out: string[] = [];
    const stack = [start];
    while (stack.length) {
      const dir = stack.pop()!;
      const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const full = path.join(dir, entry.name);
        if (full === this.tmpDir) continue;
        if (entry.isDirectory()) stack.push(full);
        else if (entry.isFile()) {
          const key = path.relative(this.root, full).split(path.sep).join('/');
          if (key.startsWith(prefix)) out.push(key);
        }
      }
    }
    return out.sort();
  }

  async close(): Promise<void> {}
}
