import type { LightMyRequestResponse } from 'fastify';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { Clock } from '../../../kernel/clock.ts';
import type { RecordChange } from '../../../kernel/record-hooks.ts';
import type { PluginManifest } from '../../../kernel/plugin.ts';
import { startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';
import type { AssetServices } from '../services/index.ts';

export type User = Awaited<ReturnType<TestKernel['createUser']>>;
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

export const jpeg = (width: number, height: number, opts: { exif?: Record<string, Record<string, string>> } = {}) => {
  let img = sharp({ create: { width, height, channels: 3, background: { r: 200, g: 60, b: 30 } } }).jpeg({
    quality: 80,
  });
  if (opts.exif) img = img.withExif(opts.exif);
  return img.toBuffer();
};
export const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 4, background: { r: 0, g: 0, b: 255, alpha: 0.5 } } })
    .png()
    .toBuffer();

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
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cms-assets-'));
  const t = await startTestKernel({
    plugins,
    extraPlugins,
    env: { CMS_DATA_DIR: dataDir, DAM_SERVICE_TOKEN: SERVICE_TOKEN, ...env },
    clock,
  });
  const admin = await t.admin();
  const editor = await t.createUser({ permissions: ['objects:read', 'objects:write'] });
  const reader = await t.createUser({ permissions: ['objects:read'] });
  const events: RecordChange[] = [];
  t.kernel.resolve('recordHooks').subscribe('asset', (change) => void events.push(change));
  const services = () => t.kernel.pluginDeps('assets').services as AssetServices;

  const call = (
    method: string,
    url: string,
    user: User | null,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> =>
    t.inject({
      method: method as 'GET',
      url,
      payload: body as object,
      headers: { ...(user ? { cookie: user.cookie } : {}), ...headers },
    });

  const upload = async (
    file: { name: string; data: Buffer; type?: string },
    fields: Record<string, string> = {},
    user: User | null = editor,
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
    dataDir,
    async close() {
      await t.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

export type AssetsKernel = Awaited<ReturnType<typeof startAssetsKernel>>;
