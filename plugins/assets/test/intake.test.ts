import { expect } from 'chai';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { receiveToTemp } from '../services/intake.ts';

describe('assets: receiving a body to a temporary file', () => {
  let tmpDir: string;
  before(async () => (tmpDir = await fs.mkdtemp(path.join(os.tmpdir(), 'intake-'))));
  after(() => fs.rm(tmpDir, { recursive: true, force: true }));
  const leftovers = async () => (await fs.readdir(tmpDir)).length;

  it('over the limit: 413, nothing kept, and the request itself is left open so the answer can reach the client', async () => {
    const body = new PassThrough();
    const received = receiveToTemp(body, { maxBytes: 10, tmpDir });
    body.write(Buffer.alloc(8));
    body.write(Buffer.alloc(8));
    const err = await received.then(
      () => null,
      (e: { statusCode?: number; code?: string }) => e,
    );
    expect(err?.statusCode).to.equal(413);
    expect(err?.code).to.equal('ASSET_TOO_LARGE');
    expect(body.destroyed, 'the request stream is not destroyed').to.equal(false);
    body.end(Buffer.alloc(8));
    expect(await leftovers()).to.equal(0);
  });

  it('a body that closes before its end (client gone) fails with 400 and keeps nothing', async () => {
    const body = new PassThrough();
    const received = receiveToTemp(body, { maxBytes: 1000, tmpDir });
    body.write(Buffer.alloc(100));
    await new Promise((resolve) => setImmediate(resolve));
    body.destroy();
    const err = await received.then(
      () => null,
      (e: { statusCode?: number; code?: string }) => e,
    );
    expect(err?.code).to.equal('UPLOAD_INTERRUPTED');
    expect(await leftovers()).to.equal(0);
  });

  it('a whole body is kept with its size, hash and first bytes', async () => {
    const body = new PassThrough();
    const received = receiveToTemp(body, { maxBytes: 1000, tmpDir });
    body.end(Buffer.from('hello world'));
    const file = await received;
    expect(file.size).to.equal(11);
    expect(file.head.toString()).to.equal('hello world');
    expect(await fs.readFile(file.tempPath, 'utf8')).to.equal('hello world');
    await file.discard();
    expect(await leftovers()).to.equal(0);
  });
});
