import { expect } from 'chai';
import { Readable } from 'node:stream';
import { BodyBuffers } from '../services/body-buffers.ts';

const chunks = (...parts: Array<string | Buffer>): Readable => Readable.from(parts.map((part) => Buffer.from(part)));

describe('assets: reused buffers for raw image bodies', () => {
  it('hands on exactly the bytes received, also in a reused buffer that held a longer body', async () => {
    const pool = new BodyBuffers({ keep: 2, maxKeptBytes: 1024 });
    const first = await pool.read(chunks('a'.repeat(100), 'b'.repeat(50)), 150, 1000);
    expect(first.body.toString()).to.equal('a'.repeat(100) + 'b'.repeat(50));
    first.release();
    expect(pool.kept).to.equal(1);
    const second = await pool.read(chunks('xyz'), 3, 1000);
    expect(second.body.toString()).to.equal('xyz');
    // The same memory came back: reuse is real, and nothing of the earlier body shows.
    expect(second.body.buffer).to.equal(first.body.buffer);
    second.release();
    second.release();
    expect(pool.kept, 'a second release is a no-op').to.equal(1);
  });

  it('a buffer in use is never handed to another read', async () => {
    const pool = new BodyBuffers({ keep: 2, maxKeptBytes: 1024 });
    const a = await pool.read(chunks('first'), 5, 100);
    a.release();
    const b = await pool.read(chunks('second'), 6, 100);
    const c = await pool.read(chunks('third!'), 6, 100);
    expect(b.body.buffer).to.not.equal(c.body.buffer);
    expect([b.body.toString(), c.body.toString()]).to.deep.equal(['second', 'third!']);
  });

  it('grows for a body without a length, and refuses one over the limit with 413 (declared or counted)', async () => {
    const pool = new BodyBuffers({ keep: 2, maxKeptBytes: 4 * 1024 * 1024 });
    const big = 'q'.repeat(700_000);
    const grown = await pool.read(chunks(big, big), undefined, 2_000_000);
    expect(grown.body.length).to.equal(1_400_000);
    expect(grown.body.toString()).to.equal(big + big);
    for (const attempt of [
      () => pool.read(chunks('12345'), 5, 4),
      () => pool.read(chunks('123', '45'), undefined, 4),
    ]) {
      const err = await attempt().then(
        () => null,
        (e: { statusCode?: number; code?: string }) => e,
      );
      expect(err?.statusCode).to.equal(413);
      expect(err?.code).to.equal('ASSET_TOO_LARGE');
    }
  });

  it('keeps at most `keep` buffers and none over maxKeptBytes', async () => {
    const pool = new BodyBuffers({ keep: 1, maxKeptBytes: 100 });
    const large = await pool.read(chunks('z'.repeat(200)), 200, 1000);
    large.release();
    expect(pool.kept).to.equal(0);
    const one = await pool.read(chunks('1'), 1, 1000);
    const two = await pool.read(chunks('2'), 1, 1000);
    one.release();
    two.release();
    expect(pool.kept).to.equal(1);
  });

  it('a declared length sets aside at most 8 MB before any byte arrives; larger bodies grow as they come', async () => {
    const pool = new BodyBuffers({ keep: 2, maxKeptBytes: 64 * 1024 * 1024 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    async function* late(): AsyncIterable<Buffer> {
      await gate;
      yield Buffer.alloc(10 * 1024 * 1024, 1);
    }
    const reading = pool.read(Readable.from(late()), 50 * 1024 * 1024, 60 * 1024 * 1024);
    release();
    const body = await reading;
    expect(body.body.length).to.equal(10 * 1024 * 1024);
    expect(body.body.buffer.byteLength, 'grown from 8 MB, not the declared 50 MB').to.equal(16 * 1024 * 1024);
  });

  it('a body cut off midway fails and its buffer goes back; an over-limit body is drained, not destroyed', async () => {
    const pool = new BodyBuffers({ keep: 2, maxKeptBytes: 1024 * 1024 });
    const cut = new Readable({ read() {} });
    const reading = pool.read(cut, 100, 1000);
    cut.push(Buffer.from('partial'));
    cut.destroy(new Error('aborted'));
    const failed = await reading.then(
      () => null,
      (e: Error) => e,
    );
    expect(failed?.message).to.equal('aborted');
    expect(pool.kept, 'the buffer of a failed read is kept for reuse').to.equal(1);

    const over = new Readable({ read() {} });
    const refused = pool.read(over, undefined, 10);
    over.push(Buffer.from('12345678'));
    over.push(Buffer.from('90abc'));
    const err = await refused.then(
      () => null,
      (e: { statusCode?: number }) => e,
    );
    expect(err?.statusCode).to.equal(413);
    // The rest of the body is read and dropped, so the 413 can still be written on this connection.
    expect(over.destroyed).to.equal(false);
    expect(over.readableFlowing).to.equal(true);
    over.push(Buffer.from('!'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(over.destroyed, 'a few bytes more are drained').to.equal(false);
    // A body that goes on and on past another `limit` bytes has its connection cut.
    over.push(Buffer.alloc(20));
    await new Promise((resolve) => setImmediate(resolve));
    expect(over.destroyed).to.equal(true);
  });
});
