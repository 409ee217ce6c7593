import { Transform, type Readable } from 'node:stream';
import { HttpError } from '../../../kernel/index.ts';

/** The error a streamed answer ends with when the upstream sends more than the gateway's cap. */
export class UpstreamTooLargeError extends HttpError {
  constructor(maxBytes: number) {
    super(502, 'UPSTREAM_TOO_LARGE', `The upstream answer was larger than the gateway passes on (${maxBytes} bytes)`);
  }
}

/**
 * `source` passed on as it arrives, never holding more than the streams' own buffers: at most
 * `maxBytes` bytes, then the stream is destroyed with {@link UpstreamTooLargeError} (a client already
 * receiving it sees its connection closed before the end of the answer). Destroying the result, as
 * Fastify does when the client goes away, destroys the upstream body too, which frees its connection.
 */
export function cappedStream(source: Readable, maxBytes: number): Readable {
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > maxBytes) return callback(new UpstreamTooLargeError(maxBytes));
      callback(null, chunk);
    },
  });
  // Wired by hand rather than with stream.pipeline, which costs an AbortController and a DOMException
  // per answer: an upstream failure fails the result, and the end of the result (read, cut or
  // destroyed) ends the upstream body, which frees its connection.
  source.on('error', (err) => counter.destroy(err));
  counter.once('close', () => source.destroy());
  source.pipe(counter);
  return counter;
}
