import type { Readable } from 'node:stream';
import fs from 'node:fs/promises';
import { Type } from '@sinclair/typebox';
import { type App, badRequest, isUuid, notFound, requestContext } from '../../../kernel/index.ts';
import type { BundleServices } from '../services/index.ts';
import { buildManifest, streamBundle } from '../services/export.ts';
import { importBundle } from '../services/import.ts';
import { parseAssetMap } from '../services/manifest.ts';
import { spoolToFile } from '../services/spool.ts';
import { AppliedImport, BundleZip, DryRunReport } from './answers.ts';

const ZIP_TYPES = ['application/zip', 'application/x-zip-compressed', 'application/octet-stream'];
const tags = ['website bundles'];

/** `/shop` → `shop`, for the file name of the download. */
const slug = (rootPath: string) => rootPath.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || 'website';

/**
 * `GET /cms-one/websites/:id/export` (zip download) and `POST /cms-one/websites/import` (a zip body,
 * or JSON: a plain manifest or `{ manifest, assetMap }`), with `?dryRun=1` for the report.
 */
export async function bundleRoutes(app: App, s: BundleServices): Promise<void> {
  // A zip arrives unparsed and is streamed to a temporary file by the handler.
  app.addContentTypeParser(ZIP_TYPES, (_request, payload, done) => done(null, payload));

  app.get(
    '/cms-one/websites/:id/export',
    {
      config: { permission: 'objects:read' },
      schema: {
        tags,
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        querystring: Type.Object({
          dataObjects: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('referenced')])),
          drafts: Type.Optional(
            Type.Union([Type.Literal('1'), Type.Literal('0'), Type.Literal('true'), Type.Literal('false')]),
          ),
        }),
        description:
          'The live records; with `?drafts=1` each page, snippet, layout and data object with a working copy carries it as `workingCopy`.',
        response: { 200: BundleZip },
      },
    },
    async (request, reply) => {
      if (!isUuid(request.params.id)) throw notFound('Website not found');
      const { manifest, assets } = await buildManifest(
        s.exportDeps,
        request.params.id,
        request.query.dataObjects ?? 'all',
        { drafts: request.query.drafts === '1' || request.query.drafts === 'true' },
      );
      const site = manifest.website as { rootPath: string };
      const day = s.now().toISOString().slice(0, 10);
      const archive = streamBundle(manifest, assets, s.exportDeps.files(), request.log);
      return reply
        .header('content-type', 'application/zip')
        .header('content-disposition', `attachment; filename="website-${slug(site.rootPath)}-${day}.zip"`)
        .header('cache-control', 'no-store')
        .send(archive);
    },
  );

  app.post(
    '/cms-one/websites/import',
    {
      // An import brings content from elsewhere: off under the sandbox profile (403 SANDBOX_BLOCKED).
      config: { permission: 'objects:write', sandbox: 'block' },
      schema: {
        tags,
        querystring: Type.Object({
          dryRun: Type.Optional(
            Type.Union([Type.Literal('1'), Type.Literal('0'), Type.Literal('true'), Type.Literal('false')]),
          ),
          rootPath: Type.Optional(Type.String({ minLength: 2, maxLength: 200, pattern: '^/[A-Za-z0-9_-]+$' })),
          assetMap: Type.Optional(Type.String({ maxLength: 1_000_000 })),
        }),
        response: { 200: DryRunReport, 201: AppliedImport },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const dryRun = q.dryRun === '1' || q.dryRun === 'true';
      const contentType = String(request.headers['content-type'] ?? '')
        .split(';')[0]
        .trim()
        .toLowerCase();
      const isZip = ZIP_TYPES.includes(contentType);
      if (!isZip && contentType !== 'application/json')
        throw badRequest(
          'Send the bundle as application/zip, or a manifest as application/json',
          'content-type',
          'UNSUPPORTED_BUNDLE_TYPE',
        );
      // The slot is taken before the body is read: three 4 GB uploads at once are what it bounds.
      const slot = s.slots.acquire(request.actor);
      let zipFile: string | undefined;
      try {
        let manifest: unknown;
        let assetMapRaw: unknown = q.assetMap;
        if (isZip)
          zipFile = await spoolToFile(request.body as Readable, {
            dir: s.tmpDir,
            maxBytes: s.limits.maxBytes,
            signal: slot.signal,
            onAbort: () => s.slots.overBudget(),
          });
        else {
          const body = request.body as Record<string, unknown> | null;
          // `{ manifest, assetMap }`, or the manifest itself (a plain `.json` bundle).
          if (body && typeof body === 'object' && 'manifest' in body) {
            manifest = body.manifest;
            assetMapRaw = body.assetMap ?? assetMapRaw;
          } else manifest = body;
        }
        const result = await importBundle(s.importDeps, {
          source: zipFile ? { zipFile } : { manifest },
          dryRun,
          assetMap: parseAssetMap(assetMapRaw),
          rootPath: q.rootPath,
          actor: request.actor,
          audit: requestContext(request),
          mayPublish: s.permissions.allows(request.actor, 'objects:publish'),
          checkBudget: slot.check,
        });
        return reply.code(dryRun ? 200 : 201).send(result);
      } finally {
        slot.release();
        if (zipFile) await fs.rm(zipFile, { force: true });
      }
    },
  );
}
