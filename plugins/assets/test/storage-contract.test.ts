import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { FilesystemStorage } from '../storage/filesystem.ts';
import type { ObjectStorage } from '../storage/object-storage.ts';
import { S3Storage } from '../storage/s3.ts';
import { startLocalS3, type LocalS3 } from '../../../test/helpers/s3-server.ts';

/** One contract, two stores: whatever the library relies on must hold on disk and on S3 alike. */
function storageContract(name: string, make: () => Promise<{ storage: ObjectStorage; close(): Promise<void> }>) {
  describe(`storage contract: ${name}`, function () {
    this.timeout(60_000);
    let storage: ObjectStorage;
    let close: () => Promise<void>;
    before(async () => {
      ({ storage, close } = await make());
      await storage.ensureBucket();
    });
    after(async () => close());

    it('ensureBucket is idempotent and info names the driver', async () => {
      expect((await storage.ensureBucket()).created).to.equal(false);
      expect(storage.info().driver).to.be.oneOf(['filesystem', 's3']);
      expect(JSON.stringify(storage.info())).not.to.match(/secret/i);
    });

    it('puts a stream and reads it back whole and by range', async () => {
      const bytes = randomBytes(100_000);
      await storage.put('c/one/file.bin', Readable.from([bytes.subarray(0, 40_000), bytes.subarray(40_000)]), {
        contentType: 'application/octet-stream',
      });
      const whole = await storage.get('c/one/file.bin');
      expect(whole!.info.size).to.equal(100_000);
      expect((await buffer(whole!.body)).equals(bytes)).to.equal(true);
      const part = await storage.get('c/one/file.bin', { start: 10, end: 19 });
      expect(part!.info.size).to.equal(100_000);
      expect((await buffer(part!.body)).equals(bytes.subarray(10, 20))).to.equal(true);
      const head = await storage.head('c/one/file.bin');
      expect(head!.size).to.equal(100_000);
      expect(head!.lastModified).to.be.instanceOf(Date);
    });

    it('an absent key is null for get and head, and deleting it is no error', async () => {
      expect(await storage.get('c/absent/x')).to.equal(null);
      expect(await storage.head('c/absent/x')).to.equal(null);
      await storage.delete('c/absent/x');
    });

    it('puts a local file above one multipart part', async () => {
      const file = path.join(os.tmpdir(), `contract-${randomBytes(4).toString('hex')}`);
      const bytes = randomBytes(6 * 1024 * 1024 + 123);
      await fs.writeFile(file, bytes);
      try {
        await storage.putFile('c/big/file.bin', file, { size: bytes.length });
        const back = await storage.get('c/big/file.bin');
        expect((await buffer(back!.body)).equals(bytes)).to.equal(true);
      } finally {
        await fs.rm(file, { force: true });
      }
    });

    it('copies, lists by prefix and deletes a prefix', async () => {
      await storage.put('c/tree/a/1.txt', Readable.from([Buffer.from('one')]));
      await storage.put('c/tree/a/2.txt', Readable.from([Buffer.from('two')]));
      await storage.put('c/tree/b/3.txt', Readable.from([Buffer.from('three')]));
      await storage.copy('c/tree/a/1.txt', 'c/tree/b/copy.txt');
      expect((await buffer((await storage.get('c/tree/b/copy.txt'))!.body)).toString()).to.equal('one');
      expect(await storage.list('c/tree/a/')).to.deep.equal(['c/tree/a/1.txt', 'c/tree/a/2.txt']);
      expect(await storage.deletePrefix('c/tree/')).to.equal(4);
      expect(await storage.list('c/tree/')).to.deep.equal([]);
    });

    it('refuses keys that could leave the store', async () => {
      for (const key of ['../x', 'a/../../x', '/abs', 'a//b', 'a/./b', '']) {
        await storage.put(key, Readable.from([Buffer.from('x')])).then(
          () => expect.fail(`stored under "${key}"`),
          (err: Error) => expect(err.message).to.match(/invalid storage key/),
        );
      }
    });

    it('a failed upload stream leaves nothing under the key', async () => {
      const failing = new Readable({
        read() {
          this.push(randomBytes(1024));
          this.destroy(new Error('client went away'));
        },
      });
      await storage.put('c/failed/file.bin', failing).then(
        () => expect.fail('stored'),
        (err: Error) => expect(err.message).to.match(/went away/),
      );
      expect(await storage.head('c/failed/file.bin')).to.equal(null);
    });
  });
}

storageContract('filesystem', async () => {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'cms-fs-store-'));
  return { storage: new FilesystemStorage(root), close: () => fs.rm(root, { recursive: true, force: true }) };
});

storageContract('s3 (s3rver on loopback)', async () => {
  const s3: LocalS3 = await startLocalS3();
  const storage = new S3Storage({
    endpoint: s3.endpoint,
    bucket: 'contract',
    region: 'us-east-1',
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    forcePathStyle: true,
    partSizeBytes: 5 * 1024 * 1024,
    queueSize: 2,
    prefix: 'p/',
  });
  return {
    storage,
    async close() {
      await storage.close();
      await s3.close();
    },
  };
});
