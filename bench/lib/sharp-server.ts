import Fastify from 'fastify';
import sharp from 'sharp';
import { portOf, reportReady } from './child-server.ts';

/**
 * Second reference of the transform benchmark: the natural bare HTTP service, Fastify with a raw
 * `image/*` body handed to sharp, the same pipeline and libvips settings as the product's defaults
 * (1 thread per operation, operation cache off). Shows what HTTP alone costs against in-process sharp.
 * Reports `{ port }` over IPC.
 */
if (!process.send) throw new Error('sharp-server runs as a child of bench/assets.ts');
sharp.concurrency(Number(process.env.BENCH_SHARP_CONCURRENCY ?? 1));
sharp.cache(false);
const app = Fastify({ logger: false, bodyLimit: 60 * 1024 * 1024 });
app.addContentTypeParser(/^image\//, { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
app.post('/process', async (request, reply) => {
  const width = Number((request.query as { width?: string }).width ?? 800);
  const out = await sharp(request.body as Buffer, { limitInputPixels: 100_000_000 })
    .rotate()
    .resize({ width, withoutEnlargement: true })
    .webp({ quality: 80 })
    .toBuffer();
  return reply.type('image/webp').send(out);
});
await app.listen({ port: 0, host: '127.0.0.1' });
reportReady({ port: portOf(app.server) }, () => app.close());
