import { finished, PassThrough } from 'node:stream';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { badRequest, isHttpError } from '../../../kernel/index.ts';

type FileLimits = NonNullable<Parameters<FastifyRequest['file']>[0]>['limits'];

/** The 400 of a body that is not the multipart/form-data it says it is: names the body, never a 500. */
export const malformedMultipart = (detail: string) =>
  badRequest(`The request body is not valid multipart/form-data: ${detail}`, 'body', 'MALFORMED_MULTIPART');

/** RFC 2046: a boundary is 1 to 70 characters; the parser refuses what it cannot search for with a plain error. */
function boundaryProblem(contentType: string): string | undefined {
  const match = /;\s*boundary=(?:"([^"]*)"|([^;\s]*))/i.exec(contentType);
  if (!match) return 'the Content-Type has no boundary';
  const boundary = match[1] ?? match[2] ?? '';
  if (boundary.length < 1 || boundary.length > 70) return 'the boundary must be 1 to 70 characters';
  return undefined;
}

/** A parser failure is the sender's fault; limits (413) and our own errors keep their status. */
function clientFault(err: unknown): unknown {
  if (isHttpError(err)) return err;
  const status = (err as { statusCode?: number }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return err;
  return malformedMultipart((err as Error).message ?? 'unreadable');
}

/** The file part as the routes read it: its stream errors are already the answers they should be. */
export interface MultipartUpload {
  filename: string;
  fields: MultipartFile['fields'];
  file: PassThrough;
  toBuffer(): Promise<Buffer>;
}

/**
 * The one file part of a multipart request, for every multipart route of the plugin. A missing or
 * overlong boundary, a body the parser cannot read, and one that breaks off inside the file (an error
 * of the file's stream, seen by whoever reads it) answer 400 `MALFORMED_MULTIPART` naming `body`.
 */
export async function multipartFile(request: FastifyRequest, limits?: FileLimits): Promise<MultipartUpload> {
  const problem = boundaryProblem(request.headers['content-type'] ?? '');
  if (problem) throw malformedMultipart(problem);
  let part: MultipartFile | undefined;
  try {
    part = await request.file(limits ? { limits } : undefined);
  } catch (err) {
    throw clientFault(err);
  }
  if (!part) throw badRequest('No file in the request', 'file');
  const file = new PassThrough();
  // Kept on the stream (`errored`) for its reader, who may start reading later: not an uncaught error.
  file.on('error', () => undefined);
  // `finished` also reports an error the parser raised before this line (a body cut short is seen at once).
  finished(part.file, (err) => {
    if (err) file.destroy(clientFault(err) as Error);
  });
  part.file.pipe(file);
  return {
    filename: part.filename,
    fields: part.fields,
    file,
    async toBuffer() {
      const chunks: Buffer[] = [];
      for await (const chunk of file) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
  };
}
