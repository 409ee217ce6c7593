import { multipartBody } from '../../../test/helpers/multipart.ts';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';

/** A kernel with assets, content and docs, an editor and a reader, and helpers to upload and make sites. */
export async function startDocsKernel(env: Record<string, string> = {}, more: string[] = []) {
  const t: TestKernel = await startTestKernel({
    plugins: ['assets', 'content', 'docs', ...more],
    ownDataDir: true,
    env,
  });
  const { editor, reader, nobody } = await t.users({
    editor: ['objects:read', 'objects:write'],
    reader: ['objects:read'],
    nobody: [],
  });
  /** Uploads (or replaces) a file at `path` of the library. */
  const put = async (path: string, text: string | Buffer, user: TestUser = editor) => {
    const cut = path.lastIndexOf('/');
    const body = multipartBody(
      { name: path.slice(cut + 1), data: Buffer.isBuffer(text) ? text : Buffer.from(text), type: 'text/markdown' },
      { folder: path.slice(0, cut), overwrite: '1' },
    );
    const res = await t.inject({
      method: 'POST',
      url: '/api/v1/dam/upload',
      payload: body.payload,
      headers: { ...body.headers, cookie: user.cookie },
    });
    if (res.statusCode >= 300) throw new Error(`upload ${path}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  const site = async (name: string, rootPath: string, docs: Record<string, unknown>) => {
    const res = await t.call('POST', '/cms-one/websites', editor, {
      name,
      rootPath,
      kind: 'documentation',
      settings: { docs },
    });
    if (res.statusCode !== 201 && res.statusCode !== 200) throw new Error(`website: ${res.statusCode} ${res.body}`);
    return res.json().id as string;
  };
  return { t, editor, reader, nobody, put, site, close: () => t.close() };
}
