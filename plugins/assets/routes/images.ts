import { Type, type Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { badRequest, type App } from '../../../kernel/index.ts';
import { ASSET_KEYS } from '../permissions.ts';
import { changeActorOf, imageCallerOf } from '../services/actor.ts';
import { readExif, readIptc } from '../services/exif.ts';
import { FITS, MIME_OF, OUTPUT_FORMATS, outputPixels, outputTooLarge, type ResizeOptions } from '../services/images.ts';
import type { AssetServices } from '../services/index.ts';
import type { PooledBody } from '../services/body-buffers.ts';
import { tooLarge } from '../services/intake.ts';
import { SNIFF_BYTES, sniffType } from '../services/sniff.ts';
import { transformAsset } from '../services/transform.ts';
import { Asset, Bytes, ImageMetadata, ImageVariants } from './answers.ts';
import { multipartFile } from './multipart-body.ts';
import { Id } from './schemas.ts';

const Format = Type.Union(OUTPUT_FORMATS.map((f) => Type.Literal(f)));
const Fit = Type.Union(FITS.map((f) => Type.Literal(f)));
const Side = Type.Integer({ minimum: 1, maximum: 10_000 });
const ProcessQuery = Type.Object(
  {
    width: Type.Optional(Side),
    height: Type.Optional(Side),
    fit: Type.Optional(Fit),
    format: Type.Optional(Format),
    quality: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    mode: Type.Optional(Type.Literal('variants')),
    /** Widths of `mode=variants`, comma-separated. */
    widths: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}(,[0-9]{1,5}){0,7}$' })),
  },
  { additionalProperties: false },
);
/** JSON `{ image }`: base64 of at most ASSET_MAX_FILE_BYTES (plus a data: URL prefix). */
const imageJson = (maxChars: number) =>
  Type.Object(
    {
      image: Type.String({ minLength: 1, maxLength: maxChars, description: 'base64 (a data: URL prefix is allowed)' }),
    },
    { additionalProperties: false },
  );
const JSON_IMAGE_MAX_CHARS = 16 * 1024 * 1024;
const RAW_IMAGE = /^image\/(jpeg|png|gif|webp|avif|tiff|heic)$/;

declare module 'fastify' {
  interface FastifyRequest {
    /** A raw image body read into a reused buffer (services/body-buffers.ts); released by the handler. */
    pooledImageBody: PooledBody | null;
  }
}

/**
 * Image endpoints for users holding `assets:process` and for services holding DAM_SERVICE_TOKEN
 * (`process`, `metadata`), and
 * the library's `dam/transform`. The image comes as multipart (field `file`), a raw `image/*` body, or
 * JSON `{ image: <base64> }`.
 */
export async function imageRoutes(app: App, s: AssetServices): Promise<void> {
  const max = s.config.ASSET_MAX_FILE_BYTES;
  const tags = ['images'];
  const bodies = s.imageBodies;
  if (bodies) {
    // Read into a reused buffer; the handler hands it back when its image work is done (withImage).
    app.decorateRequest('pooledImageBody', null);
    app.addContentTypeParser(RAW_IMAGE, (request, payload, done) => {
      const declared =
        request.headers['content-length'] === undefined ? undefined : Number(request.headers['content-length']);
      bodies.read(payload, Number.isFinite(declared) ? declared : undefined, max).then(
        (pooled) => {
          request.pooledImageBody = pooled;
          done(null, pooled.body);
        },
        (err: Error) => done(err, undefined),
      );
    });
  } else {
    app.addContentTypeParser(RAW_IMAGE, { parseAs: 'buffer', bodyLimit: max }, (_request, body, done) =>
      done(null, body),
    );
  }
  // The access check runs before the body is read, like the kernel's own.
  const guard = {
    onRequest: async (request: FastifyRequest) => s.auth.requireTokenOrPermission(request, ASSET_KEYS.process),
  };
  const maxOutput = s.config.ASSET_PROCESS_MAX_OUTPUT_PIXELS;
  // Base64 in JSON is for small images (≤ 12 MB); larger ones come raw or as multipart.
  const maxChars = Math.min(Math.ceil(max / 3) * 4, JSON_IMAGE_MAX_CHARS) + 128;
  // Room for the largest raw image, and for the JSON around an overlong string, which the schema then refuses (400 naming it).
  const bodyLimit = Math.max(max, maxChars) + 1024 * 1024;
  const ImageJson = imageJson(maxChars);

  const readImage = async (request: FastifyRequest): Promise<Buffer> => {
    const body = request.body as unknown;
    if (Buffer.isBuffer(body)) return body;
    if (request.isMultipart()) {
      const file = await multipartFile(request, { fileSize: max + 1, files: 1, fields: 10, parts: 12 });
      const data = await file.toBuffer().catch((err: { code?: string }) => {
        throw err.code === 'FST_REQ_FILE_TOO_LARGE' ? tooLarge(max) : err;
      });
      if (data.length > max) throw tooLarge(max);
      return data;
    }
    const json = body as Static<ReturnType<typeof imageJson>> | undefined;
    if (!json || typeof json.image !== 'string')
      throw badRequest('Send an image (multipart field "file", an image/* body, or JSON { image })', 'image');
    const data = Buffer.from(json.image.replace(/^data:[^,]{0,100},/, ''), 'base64');
    if (data.length === 0) throw badRequest('image is not base64 image data', 'image');
    if (data.length > max) throw tooLarge(max);
    return data;
  };
  /** Runs a handler's image work; a pooled body goes back only after it, when sharp no longer reads it. */
  const withImage = async <T>(request: FastifyRequest, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } finally {
      request.pooledImageBody?.release();
    }
  };
  const bodySchema = { content: { 'application/json': { schema: ImageJson } } };

  app.post(
    '/api/v1/process',
    {
      config: { public: true },
      bodyLimit,
      ...guard,
      schema: {
        tags,
        querystring: ProcessQuery,
        body: bodySchema as never,
        response: {
          200: {
            description: 'the image (`image/*`), or with `mode=variants` each width as base64 (JSON)',
            content: {
              'application/json': { schema: ImageVariants },
              'image/*': { schema: Bytes('the resized image; its size in `x-image-width`, `x-image-height`') },
            },
          },
        },
      },
    },
    async (request, reply) =>
      withImage(request, async () => {
        const q = request.query;
        const input = await readImage(request);
        const options: ResizeOptions = {
          width: q.width,
          height: q.height,
          fit: q.fit,
          format: q.format,
          quality: q.quality,
        };
        const caller = imageCallerOf(request.actor);
        if (q.mode !== 'variants') {
          // A raster image's format is known from its first bytes, and the limits (input pixels, frames,
          // output pixels) are checked on the header of the one instance that resizes: no separate
          // pass. Anything else is probed first (400 when unreadable).
          const sniffed = sniffType(input.subarray(0, SNIFF_BYTES));
          const inputFormat = sniffed.image
            ? sniffed.mimeType.slice('image/'.length)
            : (await s.images.probe(input, { caller })).format;
          const out = await s.images.resize(input, options, inputFormat, {
            caller,
            maxOutputPixels: { pixels: maxOutput, field: q.height && !q.width ? 'height' : 'width' },
          });
          return reply
            .type(MIME_OF[out.format])
            .header('x-image-width', out.width)
            .header('x-image-height', out.height)
            .header('cache-control', 'no-store')
            .send(out.data);
        }
        const widths = (q.widths ?? '320,640,1280').split(',').map(Number);
        if (widths.some((w) => w < 1 || w > 10_000)) throw badRequest('widths must be between 1 and 10000', 'widths');
        const probe = await s.images.probe(input, { caller });
        // Every variant's pixels together, refused before anything is decoded.
        const total = widths.reduce(
          (sum, width) => sum + outputPixels(probe, { ...options, width, height: undefined }),
          0,
        );
        if (total > maxOutput) throw outputTooLarge(total, maxOutput, 'widths');
        const variants = [];
        for (const width of widths) {
          const out = await s.images.resize(input, { ...options, width, height: undefined }, probe.format, { caller });
          variants.push({
            width: out.width,
            height: out.height,
            format: out.format,
            size: out.data.length,
            data: out.data.toString('base64'),
          });
        }
        return { source: { width: probe.width, height: probe.height, format: probe.format }, variants };
      }),
  );

  app.post(
    '/api/v1/metadata',
    {
      config: { public: true },
      bodyLimit,
      ...guard,
      schema: { tags, body: bodySchema as never, response: { 200: ImageMetadata } },
    },
    async (request) =>
      withImage(request, async () => {
        const input = await readImage(request);
        const { meta, width, height, format } = await s.images.probe(input, { caller: imageCallerOf(request.actor) });
        const { camera, gps } = readExif(meta.exif);
        return {
          format,
          width,
          height,
          space: meta.space ?? null,
          channels: meta.channels ?? null,
          density: meta.density ?? null,
          hasAlpha: meta.hasAlpha ?? false,
          orientation: meta.orientation ?? null,
          pages: meta.pages ?? 1,
          camera: { make: camera.make ?? null, model: camera.model ?? null, lens: camera.lensModel ?? null },
          exif: camera,
          gps,
          iptc: readIptc(meta.iptc),
          hasIcc: Boolean(meta.icc),
        };
      }),
  );

  app.post(
    '/api/v1/dam/transform',
    {
      config: { permission: ASSET_KEYS.upload },
      schema: {
        tags,
        body: Type.Object(
          {
            id: Id,
            rotate: Type.Optional(Type.Integer({ minimum: -360, maximum: 360 })),
            crop: Type.Optional(
              Type.Object(
                {
                  left: Type.Integer({ minimum: 0, maximum: 100_000 }),
                  top: Type.Integer({ minimum: 0, maximum: 100_000 }),
                  width: Side,
                  height: Side,
                },
                { additionalProperties: false },
              ),
            ),
            width: Type.Optional(Side),
            height: Type.Optional(Side),
            fit: Type.Optional(Fit),
            format: Type.Optional(Format),
            quality: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
            saveAs: Type.Union([Type.Literal('version'), Type.Literal('copy')]),
            filename: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Asset, 201: Asset },
      },
    },
    async (request, reply) => {
      const { id, ...req } = request.body;
      const row = await s.library.get(id);
      const out = await transformAsset(s.library, s.images, row, req, changeActorOf(request.actor), s.tmpDir);
      return reply.code(req.saveAs === 'copy' ? 201 : 200).send(s.urls.dto(out));
    },
  );
}
