import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';
import { portOf, reportReady } from './child-server.ts';

/**
 * Baseline of the asset benchmark: bare Fastify with @fastify/static serving a folder (the same bytes
 * the product serves for a cached preset), in its own process. Reports `{ port }` over IPC.
 */
const root = process.env.BENCH_STATIC_DIR;
if (!root || !process.send) throw new Error('static-server runs as a child of bench/assets.ts');
const app = Fastify({ logger: false });
await app.register(fastifyStatic, { root, maxAge: 31536000 * 1000, immutable: true });
await app.listen({ port: 0, host: '127.0.0.1' });
reportReady({ port: portOf(app.server) }, () => app.close());
