import { startTestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import type { PluginManifest } from '../../../kernel/plugin.ts';
import type { ContentServices } from '../services/index.ts';

/**
 * A kernel with the content plugin (and the data plugin unless told otherwise), an administrator, an
 * editor (objects:read + objects:write), a publisher (editor + objects:publish), a reader and a user
 * without keys; every `page` change is collected in `events`.
 */
export async function startContentKernel(
  opts: { env?: Record<string, string>; plugins?: string[]; extraPlugins?: PluginManifest[] } = {},
) {
  const t = await startTestKernel({
    plugins: opts.plugins ?? ['data', 'content'],
    env: opts.env,
    extraPlugins: opts.extraPlugins,
  });
  const admin = await t.admin();
  const { editor, publisher, reader, nobody } = await t.users({
    editor: ['objects:read', 'objects:write'],
    publisher: ['objects:read', 'objects:write', 'objects:publish'],
    reader: ['objects:read'],
    nobody: [],
  });
  const events = t.recordChanges('page');

  const call = t.call;

  let n = 0;
  const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${n++}`;
  const createWebsite = async (body: Record<string, unknown> = {}) => {
    const res = await call('POST', '/cms-one/websites', admin, {
      name: unique('Site '),
      rootPath: `/${unique('s')}`,
      locales: ['en', 'de'],
      ...body,
    });
    if (res.statusCode !== 201) throw new Error(`website create failed: ${res.body}`);
    return res.json();
  };
  const createPage = async (body: Record<string, unknown>, user: TestUser = publisher) => {
    const res = await call('POST', '/cms-one/pages', user, {
      locale: 'en',
      title: 'A page',
      content: { type: 'section', children: [{ type: 'p', text: 'Hello' }] },
      ...body,
    });
    if (res.statusCode !== 201) throw new Error(`page create failed: ${res.body}`);
    return res.json();
  };
  const services = () => t.services<ContentServices>('content');
  return {
    t,
    admin,
    editor,
    publisher,
    reader,
    nobody,
    events,
    call,
    unique,
    createWebsite,
    createPage,
    services,
    clearEvents: () => events.splice(0),
  };
}

export type ContentKernel = Awaited<ReturnType<typeof startContentKernel>>;
