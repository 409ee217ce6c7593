import { randomBytes } from 'node:crypto';
import type { Clock } from '../../../kernel/clock.ts';
import type { PluginManifest } from '../../../kernel/plugin.ts';
import { startTestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import type { AssetServices } from '../services/index.ts';

export const SERVICE_TOKEN = 'test-service-token-0123456789';

/** A multipart/form-data body: fields first, then one file part. */
export function multipartBody(
  file: { name: string; data: Buffer; type?: string; field?: string },
  fields: Record<string, string> = {},
) {
  const boundary = `----cms${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; filename="${file.name}"\r\nContent-Type: ${file.type ?? 'application/octet-stream'}\r\n\r\n`,
    ),
  );
  parts.push(file.data, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

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
