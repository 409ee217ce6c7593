import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type App, badRequest, emptyAnswer, nonJsonAnswer, notFound } from '../../../kernel/index.ts';
import { DOCS_SCRIPT, DOCS_SCRIPT_PATH, MINISEARCH_PATH, minisearchScript } from '../services/html.ts';
import type { DocsServices } from '../services/index.ts';
import { renderMarkdown } from '../services/markdown.ts';
import { checkNav } from '../services/nav.ts';
import { type BuiltSite, navOf, pageJsonOf, searchIndexOf } from '../services/site.ts';
import { NavCheck, Preview, PublicNav, PublicPage, Rendered, SearchIndex, SiteRef, Tree } from './answers.ts';

const WebsiteParams = Type.Object({ websiteId: Type.String({ format: 'uuid' }) });
const PageParams = Type.Object({ websiteId: Type.String({ format: 'uuid' }), '*': Type.String({ maxLength: 2000 }) });
const VersionQuery = Type.Object({
  version: Type.Optional(
    Type.String({ maxLength: 16, description: 'A version (`vN` or `latest`, as `site.versions` names them)' }),
  ),
});
const tags = ['documentation sites'];
const read = { permission: 'objects:read' } as const;
const edit = { permission: 'docs:edit' } as const;

/** A document path from the URL: no slashes at the ends; 400 for `.` or `..` segments or control characters. */
export function documentPath(raw: string): string {
  let text: string;
  try {
    text = decodeURIComponent(raw.split(/[?#]/, 1)[0]);
  } catch {
    throw badRequest('The document path is not valid percent-encoding', 'path', 'INVALID_PATH');
  }
  const segments = text.split('/').filter(Boolean);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (segments.some((s) => s === '.' || s === '..' || /[\u0000-\u001f\\]/.test(s)))
    throw badRequest('A document path has no "." or ".." segments', 'path', 'INVALID_PATH');
  return segments.join('/').replace(/\.md$/i, '');
}

/** JSON kept encoded: sent as it is, no serialisation or encoding per request. */
const json = (reply: FastifyReply, body: Buffer) => reply.type('application/json; charset=utf-8').send(body);

const versionNotFound = () => notFound('The site has no such version', 'DOCS_VERSION_NOT_FOUND');

function sendIndex(
  request: FastifyRequest,
  reply: FastifyReply,
  site: BuiltSite,
  which: 'all' | 'public',
  version: string | undefined,
) {
  const index = searchIndexOf(site, which, version);
  if (!index) throw versionNotFound();
  reply.header('etag', index.etag).header('cache-control', 'no-cache');
  const match = request.headers['if-none-match'];
  if (match?.split(',').some((t) => t.trim().replace(/^W\//, '') === index.etag)) return reply.code(304).send();
  return json(reply, index.body);
}

const documentNotFound = () => notFound('Document not found', 'DOCS_DOCUMENT_NOT_FOUND');

/** A public document's `{ site, page }`, kept encoded per URL path; the 404 for a private or missing one. */
function sendPublicPage(raw: string, site: BuiltSite, reply: FastifyReply): void {
  const sent = site.public.byUrl.get(raw);
  if (sent !== undefined) {
    json(reply, sent);
    return;
  }
  const path = documentPath(raw);
  const body = pageJsonOf(site, 'public', path);
  if (body === undefined) throw documentNotFound();
  if (path === raw) site.public.byUrl.set(raw, body);
  json(reply, body);
}

export function docsRoutes(app: App, s: DocsServices): void {
  // --- staff (dashboard) ---
  app.get(
    '/docs-sites/:websiteId/tree',
    { config: read, schema: { tags, params: WebsiteParams, response: { 200: Tree } } },
    async (request) => {
      const site = await s.site(request.params.websiteId);
      return {
        documents: [...site.documents.values()]
          .sort((a, b) => a.path.localeCompare(b.path))
          .map((d) => ({
            path: d.path,
            title: d.title,
            visibility: d.visibility,
            assetId: d.assetId,
            updatedAt: d.updatedAt,
          })),
        index: site.info.index,
        otherFiles: site.otherFiles,
        warnings: site.warnings,
      };
    },
  );
  app.get(
    '/docs-sites/:websiteId/preview/*',
    { config: read, schema: { tags, params: PageParams, response: { 200: Preview } } },
    async (request, reply) => {
      const path = documentPath(request.params['*']);
      const body = pageJsonOf(await s.site(request.params.websiteId), 'all', path);
      if (body === undefined) throw documentNotFound();
      return json(reply, body);
    },
  );
  app.post(
    '/docs-sites/:websiteId/render',
    {
      config: edit,
      schema: {
        tags,
        params: WebsiteParams,
        body: Type.Object(
          {
            path: Type.String({ maxLength: 1024 }),
            markdown: Type.String({ maxLength: 2 * 1024 * 1024 }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Rendered },
      },
    },
    async (request) => {
      const site = await s.site(request.params.websiteId);
      const path = documentPath(request.body.path);
      const doc = site.documents.get(path);
      const rendered = renderMarkdown(request.body.markdown, {
        path: doc?.file ?? `${path}.md`,
        visibility: doc?.visibility ?? 'public',
        lineOffset: 0,
        resolve: (target) => {
          // Resolved as the site resolves links: against the document's folder.
          const dir = (doc?.file ?? path).split('/').slice(0, -1);
          const out = [...dir];
          for (const seg of target.split('/')) {
            if (seg === '..') {
              if (!out.length) return { kind: 'missing' };
              out.pop();
            } else if (seg && seg !== '.') out.push(seg);
          }
          const joined = out
            .join('/')
            .replace(/\.md$/i, '')
            .replace(/(^|\/)index$/, '');
          const target2 = site.documents.get(joined);
          if (target2)
            return { kind: 'document', href: `${site.info.rootPath}/${joined}`, visibility: target2.visibility };
          const file = site.otherFiles.find((f) => f.path === out.join('/'));
          return file ? { kind: 'file', href: `/dam-asset/${file.path}` } : { kind: 'missing' };
        },
      });
      return {
        title: rendered.title ?? null,
        html: rendered.html,
        headings: rendered.headings,
        warnings: rendered.warnings,
      };
    },
  );
  app.post(
    '/docs-sites/:websiteId/nav/check',
    {
      config: edit,
      schema: {
        tags,
        params: WebsiteParams,
        body: Type.Object({ text: Type.String({ maxLength: 256 * 1024 }) }, { additionalProperties: false }),
        response: { 200: NavCheck },
      },
    },
    async (request) => {
      const site = await s.site(request.params.websiteId);
      return checkNav(request.body.text, 'nav', (path) => site.documents.get(path)?.title);
    },
  );
  app.get(
    '/docs-sites/:websiteId/search-index',
    {
      config: read,
      schema: {
        tags,
        params: WebsiteParams,
        querystring: VersionQuery,
        response: { 200: SearchIndex, 304: emptyAnswer('The index has not changed') },
      },
    },
    async (request, reply) =>
      sendIndex(request, reply, await s.site(request.params.websiteId), 'all', request.query.version),
  );

  // --- public: public documents only; a private document is the same 404 as a missing one ---
  const pub = {
    public: true,
    rateLimit: {
      key: 'address',
      bucket: 'docs:public',
      windowMs: 60_000,
      limit: s.config.DOCS_PUBLIC_RATE_LIMIT_PER_MINUTE,
      message: 'Too many requests to the public documentation API; try again later',
    },
  } as const;
  app.get(
    '/public/docs-site/:segment',
    {
      config: pub,
      schema: {
        tags: ['public'],
        params: Type.Object({ segment: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 200: SiteRef },
      },
    },
    async (request) => {
      const segment = request.params.segment.replace(/^\//, '');
      for (const source of s.sources()) {
        const site = await source.bySegment(segment);
        if (site?.docs) return { websiteId: site.id, rootPath: site.rootPath, title: site.name };
      }
      throw notFound('Documentation site not found', 'DOCS_SITE_NOT_FOUND');
    },
  );
  app.get(
    '/public/docs/:websiteId/nav',
    {
      config: pub,
      schema: { tags: ['public'], params: WebsiteParams, querystring: VersionQuery, response: { 200: PublicNav } },
    },
    async (request) => {
      const site = await s.site(request.params.websiteId);
      const nav = navOf(site, 'public', request.query.version);
      if (!nav) throw versionNotFound();
      return { site: site.public.info, nav };
    },
  );
  app.get(
    '/public/docs/:websiteId/page/*',
    { config: pub, schema: { tags: ['public'], params: PageParams, response: { 200: PublicPage } } },
    // Not an async handler: a built site's kept answer is sent at once, without a promise per read.
    (request, reply) => {
      const site = s.site(request.params.websiteId);
      if (site instanceof Promise) return site.then((built) => sendPublicPage(request.params['*'], built, reply));
      sendPublicPage(request.params['*'], site, reply);
    },
  );
  app.get(
    '/public/docs/:websiteId/search-index',
    {
      config: pub,
      schema: {
        tags: ['public'],
        params: WebsiteParams,
        querystring: VersionQuery,
        response: { 200: SearchIndex, 304: emptyAnswer('The index has not changed') },
      },
    },
    async (request, reply) =>
      sendIndex(request, reply, await s.site(request.params.websiteId), 'public', request.query.version),
  );
  // The site's scripts: same-origin files, so the pages forbid inline script.
  app.get(
    DOCS_SCRIPT_PATH,
    {
      config: pub,
      schema: {
        tags: ['public'],
        response: { 200: nonJsonAnswer('text/javascript', 'The documentation search script') },
      },
    },
    async (_request, reply) =>
      reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(DOCS_SCRIPT),
  );
  app.get(
    MINISEARCH_PATH,
    {
      config: pub,
      schema: { tags: ['public'], response: { 200: nonJsonAnswer('text/javascript', 'MiniSearch for the browser') } },
    },
    async (_request, reply) =>
      reply
        .type('text/javascript; charset=utf-8')
        .header('cache-control', 'public, max-age=86400')
        .send(await minisearchScript()),
  );
}
