import type { Clock } from '../../../kernel/clock.ts';
import type { PluginManifest } from '../../../kernel/plugin.ts';
import { startTestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import type { AssetServices } from '../services/index.ts';

export const SERVICE_TOKEN = 'test-service-token-0123456789';

import { multipartBody } from '../../../test/helpers/multipart.ts';

export { multipartBody };

/**
 * A kernel with the assets plugin on its own data folder (the filesystem store) or on a given S3
 * store, an administrator, an editor, a reader, and every `asset` change collected in `events`.
 */
export async function startAssetsKernel(
  env: Record<string, string> = {},
  extraPlugins: PluginManifest[] = [],
  plugins: string[] = ['assets'],
  clock?: Clock,
) {
  const t = await startTestKernel({
    plugins,
    extraPlugins,
    ownDataDir: true,
    env: { DAM_SERVICE_TOKEN: SERVICE_TOKEN, ...env },
    clock,
  });
  const admin = await t.admin();
  const { editor, reader } = await t.users({ editor: ['objects:read', 'objects:write'], reader: ['objects:read'] });
  const events = t.recordChanges('asset');
  const services = () => t.services<AssetServices>('assets');

  const call = t.call;

  const upload = async (
    file: { name: string; data: Buffer; type?: string },
    fields: Record<string, string> = {},
    user: TestUser | null = editor,
    query = '',
  ) => {
    const body = multipartBody(file, fields);
    return t.inject({
      method: 'POST',
      url: `/api/v1/dam/upload${query}`,
      payload: body.payload,
      headers: { ...body.headers, ...(user ? { cookie: user.cookie } : {}) },
    });
  };
  /** Every key in the store, for "nothing left behind" assertions. */
  const storedKeys = async () =>
    (await Promise.all(['a/', 't/', 'd/', 's/'].map((p) => services().storage.list(p)))).flat();

  return {
    t,
    admin,
    editor,
    reader,
    events,
    call,
    upload,
    services,
    storedKeys,
    close: () => t.close(),
  };
}

export type AssetsKernel = Awaited<ReturnType<typeof startAssetsKernel>>;
