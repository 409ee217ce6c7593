import etag from '@fastify/etag';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { emptyAnswer, nonJsonAnswer, notFound, type App } from '../../../kernel/index.ts';
import type { ContentServices } from '../services/index.ts';
import { FORM_SCRIPT_PATH } from '../services/form-node.ts';
import { FORM_SCRIPT } from '../services/form-script.ts';
import { prefersHtml, WEBSITE_PAGE_POLICY } from '../services/page-document.ts';
import { robotsTxt } from '../services/sitemap.ts';
import {
  NotFoundContentAnswer,
  NotFoundHtml,
  PublicPageOrHtml,
  PublicPageRef,
  PublicSnippetAnswer,
  PublicWebsiteAnswer,
} from './answers.ts';
import { Id, Locale } from './schemas.ts';

/** A browser's 404: the website's 404 document (services/index.ts `notFoundHtml`), never cached as a page. */
const sendNotFound = (reply: FastifyReply, html: string) =>
  reply.code(404).type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html);

const Wildcard = Type.Object({ '*': Type.String({ maxLength: 2000 }) });
const SECRET_KEY = /secret|token|password|key|credential/i;

/**
 * Settings with every secret-looking member left out, at any depth (public website config). Past
 * the depth walked, a nested object is left out too: unchecked, it could carry a secret.
 */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > 8) return undefined;
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!SECRET_KEY.test(k)) out[k] = redactSecrets(v, depth + 1);
  return out;
}

/**
 * The public content API (no authentication): published pages only (a draft answers the same 404 as
 * an unknown path), counted per client address, with an ETag and Cache-Control on every 200. The page
 * routes answer JSON, or the page's HTML document to a request that asks for `text/html` over JSON
 * (a browser at the live site's address; `Vary: Accept`).
 * Registered in its own encapsulated context so the ETag hooks touch only these routes.
 */
export async function publicRoutes(app: App, s: ContentServices): Promise<void> {
  await app.register(async (scope) => {
    const pub = scope as App;
    await pub.register(etag, { algorithm: 'sha1', weak: true });
    const cacheControl = s.kernel.pluginConfig.PUBLIC_CONTENT_CACHE_CONTROL;
    pub.addHook('onSend', async (_request, reply, payload) => {
      if (reply.statusCode === 200 || reply.statusCode === 304) reply.header('cache-control', cacheControl);
      else reply.removeHeader('etag');
      return payload;
    });
    const config = { public: true, rateLimit: s.publicRateLimit };
    // The page routes answer a page's HTML document (or its 404 document) to a browser.
    const pageConfig = { ...config, documentPolicy: WEBSITE_PAGE_POLICY };
    const tags = ['public'];
    const origin = (request: { protocol: string; host: string }) => `${request.protocol}://${request.host}`;

    pub.get(
      '/public/pages/:locale/*',
      {
        config: pageConfig,
        schema: {
          tags,
          params: Type.Object({
            locale: Type.String({ minLength: 1, maxLength: 64 }),
            '*': Type.String({ maxLength: 2000 }),
          }),
          response: { 200: PublicPageOrHtml, 404: NotFoundHtml },
        },
      },
      async (request, reply) => {
        const located = await s.publicPages.locate(request.params['*'], request.headers.host);
        reply.header('vary', 'accept');
        if (prefersHtml(request.headers.accept)) {
          if (!located) throw notFound();
          const html = await s.pageHtml(located.site, request.params.locale, located.path);
          if (html === undefined) return sendNotFound(reply, await s.notFoundHtml(located.site, request.params.locale));
          return reply.type('text/html; charset=utf-8').send(html);
        }
        const page = located && (await s.publicPages.find(located.site, request.params.locale, located.path));
        if (!page) throw notFound();
        if (page.etag) reply.header('etag', page.etag);
        return reply.type('application/json; charset=utf-8').send(page.body);
      },
    );

    pub.get(
      '/public/page/*',
      {
        config: pageConfig,
        schema: {
          tags,
          params: Wildcard,
          querystring: Type.Object({ locale: Type.Optional(Locale) }),
          response: { 200: PublicPageOrHtml, 404: NotFoundHtml },
        },
      },
      async (request, reply) => {
        const located = await s.publicPages.locate(request.params['*'], undefined);
        reply.header('vary', 'accept');
        if (prefersHtml(request.headers.accept)) {
          if (!located) throw notFound();
          // A documentation website's pages are the docs plugin's (registry `docsWebsites`).
          if (located.site.row.kind === 'documentation') {
            const docs = await s.docsHtml.handler?.(located.site.id, located.path);
            if (!docs) throw notFound();
            return reply
              .code(docs.status)
              .type('text/html; charset=utf-8')
              .header('cache-control', 'no-cache')
              .send(docs.html);
          }
          const locale = request.query.locale ?? located.site.locales[0];
          const html = await s.pageHtml(located.site, locale, located.path);
          if (html === undefined) return sendNotFound(reply, await s.notFoundHtml(located.site, locale));
          return reply.type('text/html; charset=utf-8').send(html);
        }
        const page =
          located &&
          (await s.publicPages.find(located.site, request.query.locale ?? located.site.locales[0], located.path));
        if (!page) throw notFound();
        if (page.etag) reply.header('etag', page.etag);
        return reply.type('application/json; charset=utf-8').send(page.body);
      },
    );

    // The form block's script (services/form-script.ts): same-origin, so a page may forbid inline script.
    pub.get(
      FORM_SCRIPT_PATH,
      {
        config,
        schema: {
          tags,
          summary: "The form block's script",
          response: { 200: nonJsonAnswer('text/javascript', "The form block's script") },
        },
      },
      async (_request, reply) =>
        reply.type('text/javascript; charset=utf-8').header('x-content-type-options', 'nosniff').send(FORM_SCRIPT),
    );

    pub.get(
      '/public/pages',
      {
        config,
        schema: {
          tags,
          querystring: Type.Object({
            websiteId: Id,
            locale: Type.Optional(Locale),
            limit: Type.Integer({ minimum: 1, maximum: 1000, default: 1000 }),
            offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
          }),
          response: { 200: Type.Array(PublicPageRef) },
        },
      },
      async (request) => {
        if (!(await s.directory.byId(request.query.websiteId))) throw notFound();
        const rows = await s.publicStore.list(request.query);
        return rows.map((r) => ({ id: r.id, slug: r.path, title: r.title, locale: r.locale }));
      },
    );

    pub.get(
      '/public/apps/:websiteId',
      {
        config,
        schema: { tags, params: Type.Object({ websiteId: Id }), response: { 200: Type.Array(PublicPageRef) } },
      },
      async (request) => {
        if (!(await s.directory.byId(request.params.websiteId))) throw notFound();
        const rows = await s.publicStore.list({
          websiteId: request.params.websiteId,
          kind: 'app',
          limit: 1000,
          offset: 0,
        });
        return rows.map((r) => ({ id: r.id, slug: r.path, title: r.title, locale: r.locale }));
      },
    );

    pub.get(
      '/public/404/:websiteId',
      { config, schema: { tags, params: Type.Object({ websiteId: Id }), response: { 200: NotFoundContentAnswer } } },
      async (request, reply) => {
        const site = await s.directory.byId(request.params.websiteId);
        if (!site) throw notFound();
        const content = await s.layouts.notFoundContent(site.id);
        if (content) return { websiteId: site.id, content };
        // Without a layout region, a published page at /404 is the website's 404 content.
        const page = await s.publicStore.pageBody(site.id, site.locales[0], '/404');
        if (!page) throw notFound();
        // The page's JSON as the database built it: a string is sent as it is, never serialised again.
        return reply.type('application/json; charset=utf-8').send(page.body as never);
      },
    );

    pub.get(
      '/public/snippets/:id',
      { config, schema: { tags, params: Type.Object({ id: Id }), response: { 200: PublicSnippetAnswer } } },
      async (request) => {
        const row = await s.snippets.get(request.params.id).catch(() => undefined);
        if (!row) throw notFound();
        return { id: row.id, name: row.name, content: row.content, updatedAt: row.updated_at };
      },
    );

    const WebsiteRef = Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String() });
    pub.get('/public/websites', { config, schema: { tags, response: { 200: Type.Array(WebsiteRef) } } }, async () =>
      (await s.directory.all()).map((w) => ({ id: w.id, name: w.name })),
    );

    pub.get(
      '/public/websites/:id',
      { config, schema: { tags, params: Type.Object({ id: Id }), response: { 200: PublicWebsiteAnswer } } },
      async (request) => {
        const site = await s.directory.byId(request.params.id);
        if (!site) throw notFound();
        const r = site.row;
        return {
          id: r.id,
          name: r.name,
          rootPath: r.root_path,
          locales: r.locales,
          kind: r.kind,
          domains: r.domains,
          theme: r.theme,
          settings: redactSecrets(r.settings) as Record<string, unknown>,
        };
      },
    );

    pub.get(
      '/public/sitemap.xml',
      {
        config,
        schema: {
          tags,
          querystring: Type.Object({
            websiteId: Type.Optional(Id),
            part: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
          }),
          response: {
            200: nonJsonAnswer('application/xml', 'The sitemap, or the sitemap index of its parts'),
            304: emptyAnswer('Unchanged since the ETag given in If-None-Match'),
          },
        },
      },
      async (request, reply) => {
        const scope = await s.sitemaps.scope(request.query.websiteId, request.headers.host);
        if (scope && scope.length === 0) throw notFound();
        const base = origin(request);
        const self = `${base}/public/sitemap.xml?${request.query.websiteId ? `websiteId=${request.query.websiteId}&` : ''}`;
        // The validator covers the URL form too: the index's part links depend on it.
        const tag = await s.sitemaps.tag(scope, self, request.query.part);
        reply.header('etag', tag).type('application/xml; charset=utf-8');
        // The validator is known before the document: an unchanged sitemap is never built again.
        if (request.headers['if-none-match'] === tag) return reply.code(304).send();
        const doc = await s.sitemaps.build(scope, base, request.query.part, tag, self);
        if (doc === undefined) throw notFound();
        return reply.send(doc);
      },
    );

    const robots = nonJsonAnswer('text/plain', 'The robots.txt of the host');
    pub.get('/public/robots.txt', { config, schema: { tags, response: { 200: robots } } }, async (request, reply) => {
      const scope = await s.sitemaps.scope(undefined, request.headers.host);
      const sites = new Map((await s.directory.all()).map((w) => [w.id, w]));
      const disallowed = await s.publicStore.notIndexable(scope ? scope.map((w) => w.id) : null);
      return reply.type('text/plain; charset=utf-8').send(robotsTxt(origin(request), disallowed, sites));
    });
  });
}
