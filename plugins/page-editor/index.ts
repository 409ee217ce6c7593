import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type App, definePlugin, nonJsonAnswer } from '../../kernel/index.ts';
import { EDITOR_ENTRY, EDITOR_ENTRY_REDIRECTS, EDITOR_INDEX_HEADERS, EDITOR_PREFIX } from './editor-routes.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * The built page: `plugins/page-editor/dist/index.html`, written by the dashboard's Vite build (one
 * build, shared chunks in the dashboard's `/assets/`); the compiled server reads the source tree's.
 */
function builtPage(): string {
  const beside = path.join(here, 'dist', 'index.html');
  const fromBuild = path.resolve(here, '../../../plugins/page-editor/dist/index.html');
  return existsSync(beside) || !existsSync(fromBuild) ? beside : fromBuild;
}

const NOT_BUILT_PAGE =
  '<!doctype html><html lang="en"><meta charset="utf-8"><title>Editor not built</title>' +
  '<p>The page editor has not been built. Run <code>npm run build:admin</code> (npm ci does it) and reload.</p></html>';

/** The page, read once on first request (undefined while not built). */
class EditorPage {
  private html: Promise<Buffer | undefined> | undefined;
  constructor(readonly file: string) {}
  read(): Promise<Buffer | undefined> {
    this.html ??= readFile(this.file).catch(() => undefined);
    return this.html;
  }
}

async function editorRoutes(app: App, page: EditorPage): Promise<void> {
  // A static page, not an API operation: hidden from /openapi.json.
  const options = {
    config: { public: true },
    schema: {
      hide: true,
      response: {
        200: nonJsonAnswer('text/html', "The editor's page"),
        503: nonJsonAnswer('text/html', 'The editor is not built'),
      },
    },
  } as const;
  const handler = async (_request: unknown, reply: import('fastify').FastifyReply) => {
    const html = await page.read();
    reply.headers(EDITOR_INDEX_HEADERS).type('text/html; charset=utf-8');
    return html ? reply.send(html) : reply.code(503).send(NOT_BUILT_PAGE);
  };
  app.get(EDITOR_PREFIX, options, handler);
  app.get(`${EDITOR_PREFIX}/*`, options, handler);
  // `/cms-one` and `/cms-one/` (a JSON 404 before): the editor's entry, its tree of the websites.
  const toEntry = {
    config: { public: true },
    schema: { hide: true, response: { 302: nonJsonAnswer('text/html', "To the editor's entry") } },
  } as const;
  for (const path of EDITOR_ENTRY_REDIRECTS)
    app.get(path, toEntry, async (_request, reply) => reply.redirect(EDITOR_ENTRY));
}

/**
 * The page editor: a browser application (React + Mantine, built from `app/` by the dashboard's
 * Vite build) at `/cms-one/editor/...`, where editors build pages and snippets from blocks on a
 * canvas rendered by the content plugin. It stores nothing and calls only the documented API; the
 * page itself is public (it holds no data), every call it makes needs the session and its keys.
 */
export default definePlugin({
  id: 'page-editor',
  processes: ['core-api'],
  needs: [],
  setup: () => new EditorPage(builtPage()),
  async onStart({ services: page, log }) {
    if (!(await page.read())) log.warn({ file: page.file }, 'the page editor is not built: run `npm run build:admin`');
  },
  routes: (app, { services: page }) => editorRoutes(app, page),
});
