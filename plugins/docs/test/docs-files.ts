import { multipartBody } from '../../../test/helpers/multipart.ts';
import type { TestKernel, TestUser } from '../../../test/helpers/kernel.ts';

/** Uploads (or replaces) a file at `path` of the library as `user`. */
export async function putFile(t: TestKernel, user: TestUser, path: string, text: string | Buffer) {
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
}

/** A documentation website over `folder` (201), its id. */
export async function docsSite(t: TestKernel, user: TestUser, name: string, rootPath: string, docs: object) {
  const res = await t.call('POST', '/cms-one/websites', user, {
    name,
    rootPath,
    kind: 'documentation',
    settings: { docs },
  });
  if (res.statusCode !== 201 && res.statusCode !== 200) throw new Error(`website: ${res.statusCode} ${res.body}`);
  return res.json().id as string;
}

/** A small manual: home, two guide pages (one with code and a heading list), a private page. */
export async function putManual(t: TestKernel, user: TestUser, folder: string) {
  await putFile(t, user, `${folder}/index.md`, '# Handbook\n\nWelcome. Start with [the guide](guide/intro.md).\n');
  await putFile(
    t,
    user,
    `${folder}/guide/intro.md`,
    '---\ntitle: Introduction\norder: 1\ndescription: Getting started\n---\n# Introduction\n\nFirst steps.\n\n## Setup\n\n```js\nconst answer = 42;\n```\n\n## Usage\n\nRead on.\n',
  );
  await putFile(
    t,
    user,
    `${folder}/guide/advanced.md`,
    '---\norder: 2\n---\n# Advanced\n\nDeep words about zebrafish.\n',
  );
  await putFile(
    t,
    user,
    `${folder}/internal.md`,
    '---\nvisibility: private\n---\n# Staff only\n\nThe passphrase is aardvark.\n',
  );
}
