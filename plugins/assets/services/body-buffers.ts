import { finished, type Readable } from 'node:stream';
import { tooLarge } from './intake.ts';

/** The most set aside for a body before its bytes arrive (typical photos fit, so they are not copied). */
const INITIAL_BYTES = 8 * 1024 * 1024;

/** A request body read into a kept buffer; `release` hands the buffer back once nothing reads it. */
export interface PooledBody {
  body: Buffer;
  release(): void;
}

/**
 * Reusable buffers for raw image bodies (`/api/v1/process`, `/api/v1/metadata`).
 *
 * Why: a 4 MB upload collected into a fresh Buffer is external memory, and V8 answers a steady stream
 * of it with full collections; at 20 images a second that was about 8 mark-compacts a second on the
 * server's main thread and its helpers (`npm run bench:assets`). A body is read straight into a kept
 * buffer instead (no concatenation either) and handed back when the image operation has finished.
 *
 * Safety: a buffer goes back only through `release`, which the route calls after the last sharp
 * operation over it resolved (libvips reads it off the main thread until then); the body handed on is
 * exactly the bytes received (`subarray(0, length)`), never what an earlier request left behind. The
 * libvips operation cache is off whenever this pool is used (services/index.ts), since a cached
 * loader keyed by a buffer's address must not meet new bytes at the same address. A buffer that is
 * never released (a request refused after its body was read) is simply left to the garbage collector.
 */
export class BodyBuffers {
  private readonly free: Buffer[] = [];

  constructor(private readonly opts: { keep: number; maxKeptBytes: number }) {}

  /**
   * Reads `payload` (at most `limit` bytes; 413 beyond, from the declared length before any byte is
   * read). The body is taken with `data` events: a flowing stream hands each socket read straight on,
   * where an async iterator buffers it and pauses the socket after every 64 KB chunk.
   */
  read(payload: Readable, declaredLength: number | undefined, limit: number): Promise<PooledBody> {
    if (declaredLength !== undefined && declaredLength > limit) return Promise.reject(tooLarge(limit));
    // A declared length is a claim, not bytes: at most INITIAL_BYTES is set aside before data arrives
    // (200 callers declaring 50 MB and sending nothing must not reserve 10 GB); beyond it, growth.
    let buffer = this.take(
      declaredLength !== undefined && declaredLength > 0 ? Math.min(declaredLength, INITIAL_BYTES) : 1024 * 1024,
    );
    let length = 0;
    let settled = false;
    return new Promise<PooledBody>((resolve, reject) => {
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        payload.off('data', onData);
        // The rest is drained, not destroyed, so the error answer still reaches the caller; a body
        // that goes on past another `limit` bytes has its connection cut.
        let drained = 0;
        payload.on('data', (chunk: Buffer) => {
          drained += chunk.length;
          if (drained > limit) payload.destroy();
        });
        payload.resume();
        this.give(buffer);
        reject(err);
      };
      const onData = (chunk: Buffer) => {
        const end = length + chunk.length;
        if (end > limit) return fail(tooLarge(limit));
        if (end > buffer.length) {
          // A body without a length (chunked) or longer than declared: grow by doubling.
          const bigger = this.take(Math.min(limit, Math.max(buffer.length * 2, end)));
          buffer.copy(bigger, 0, 0, length);
          this.give(buffer);
          buffer = bigger;
        }
        chunk.copy(buffer, length);
        length = end;
      };
      payload.on('data', onData);
      finished(payload, { writable: false }, (err) => {
        if (err) return fail(err);
        if (settled) return;
        settled = true;
        resolve(this.handOut(buffer, length));
      });
    });
  }

  private handOut(kept: Buffer, length: number): PooledBody {
    let released = false;
    return {
      body: kept.subarray(0, length),
      release: () => {
        if (released) return;
        released = true;
        this.give(kept);
      },
    };
  }

  /** Buffers kept for reuse (tests). */
  get kept(): number {
    return this.free.length;
  }

  private take(size: number): Buffer {
    // The smallest kept buffer that fits.
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      if (this.free[i].length >= size && (best < 0 || this.free[i].length < this.free[best].length)) best = i;
    }
    if (best >= 0) return this.free.splice(best, 1)[0];
    return Buffer.allocUnsafeSlow(size);
  }

  private give(buffer: Buffer): void {
    if (buffer.length > this.opts.maxKeptBytes) return;
    if (this.free.length < this.opts.keep) {
      this.free.push(buffer);
      return;
    }
    // Full: keep the larger of the two, so the pool settles on the sizes callers send.
    const smallest = this.free.reduce((at, b, i) => (b.length < this.free[at].length ? i : at), 0);
    if (this.free[smallest].length < buffer.length) this.free[smallest] = buffer;
  }
}
