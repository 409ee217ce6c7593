import { expect } from 'chai';
import { startAssetsKernel, type AssetsKernel } from './assets-kernel.ts';

/** Names that must never become a library path, each with what it pretends to be. */
const HOSTILE_NAMES: Array<[string, string]> = [
  ['a right-to-left override (invoice\u202Efdp.exe)', 'invoice\u202Efdp.exe'],
  ['a left-to-right isolate', 'a\u2066b.txt'],
  ['a zero-width space', 'ad\u200Bmin.txt'],
  ['a zero-width joiner between letters', 'a\u200Db.txt'],
  ['a zero-width non-joiner between Latin letters', 'ad\u200Cmin.txt'],
  ['a zero-width non-joiner after a space', 'ملف \u200Cx.txt'],
  ['a soft hyphen', 'in\u00ADvoice.pdf'],
  ['a byte order mark', '\uFEFFreport.pdf'],
  ['a tag character', 'x\u{E0041}.txt'],
  ['a line separator', 'a\u2028b.txt'],
  ['a private-use character', 'a\uE000b.txt'],
  ['a no-break space', 'my\u00A0file.txt'],
  ['a division slash (U+2215)', 'pub\u2215index.html'],
  ['a fraction slash (U+2044)', 'pub\u2044index.html'],
  ['a fullwidth solidus (U+FF0F)', 'pub\uFF0Findex.html'],
  ['a big solidus (U+29F8)', 'pub\u29F8index.html'],
  ['a fullwidth reverse solidus (U+FF3C)', 'pub\uFF3Cindex.html'],
  ['a small reverse solidus (U+FE68)', 'pub\uFE68index.html'],
  ['a combining long solidus overlay (U+0338)', 'pub\u0338x.html'],
  ['a two dot leader segment (‥)', '\u2025'],
  ['a fullwidth dot segment (．．)', '\uFF0E\uFF0E'],
  ['a percent-encoded dot segment', '%2e%2e'],
  ['a mixed-case percent escape', '.%2E'],
  ['a percent-encoded slash', 'a%2Fb.txt'],
  ['a doubly encoded dot segment', '%252e%252e'],
];

describe('assets: names and paths (hostile input, folder and file clashes, delivery URLs)', function () {
  this.timeout(60_000);
  let k: AssetsKernel;
  before(async () => {
    k = await startAssetsKernel();
  });
  after(async () => k.close());

  const data = Buffer.from('plain text, not markup\n');
  const upload = (name: string, folder: string) => k.upload({ name, data }, { folder });

  for (const [what, name] of HOSTILE_NAMES) {
    it(`refuses ${what} as a file name, folder, move target, rename and new folder, storing nothing`, async () => {
      const before = await k.storedKeys();
      const asFile = await upload(name, 'names/hostile');
      expect(asFile.statusCode, asFile.body).to.equal(400);
      expect(asFile.json()).to.include({ code: 'INVALID_PATH', field: 'filename' });
      const asFolder = await upload('ok.txt', `names/${name}`);
      expect(asFolder.statusCode, asFolder.body).to.equal(400);
      expect(asFolder.json()).to.include({ code: 'INVALID_PATH', field: 'folder' });
      const asPath = await k.t.inject(uploadWithPath(`names/${name}/x.txt`));
      expect(asPath.statusCode, asPath.body).to.equal(400);
      expect(asPath.json()).to.include({ code: 'INVALID_PATH', field: 'path' });
      expect(await k.storedKeys()).to.deep.equal(before);

      const ok = await upload(`ok-${HOSTILE_NAMES.findIndex(([, n]) => n === name)}.txt`, 'names/src');
      expect(ok.statusCode, ok.body).to.equal(201);
      const { id } = ok.json();
      const moved = await k.call('POST', '/api/v1/dam/assets/move', k.admin, { id, to: `names/${name}` });
      expect(moved.statusCode, moved.body).to.equal(400);
      expect(moved.json()).to.include({ code: 'INVALID_PATH', field: 'to' });
      const renamed = await k.call('POST', '/api/v1/dam/assets/move', k.admin, { id, filename: name });
      expect(renamed.statusCode, renamed.body).to.equal(400);
      expect(renamed.json()).to.include({ code: 'INVALID_PATH', field: 'filename' });
      const refolded = await k.call('POST', '/api/v1/dam/assets/move', k.admin, { id, folder: `x/${name}` });
      expect(refolded.statusCode, refolded.body).to.equal(400);
      expect(refolded.json()).to.include({ code: 'INVALID_PATH', field: 'folder' });
      const folder = await k.call('POST', '/api/v1/dam/folders', k.editor, { path: `names/${name}` });
      expect(folder.statusCode, folder.body).to.equal(400);
      expect(folder.json()).to.include({ code: 'INVALID_PATH', field: 'path' });
      const folders = await k.t.db('asset_folders').where('path', 'like', 'names/%').pluck('path');
      expect(folders.filter((p: string) => p.includes(name))).to.deep.equal([]);
    });
  }

  /** A multipart upload whose target is the `path` field. */
  function uploadWithPath(path: string) {
    const boundary = '----names';
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="path"\r\n\r\n${path}\r\n`),
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="f.txt"\r\nContent-Type: text/plain\r\n\r\n`,
      ),
      data,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    return {
      method: 'POST' as const,
      url: '/api/v1/dam/upload',
      payload,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, cookie: k.editor.cookie },
    };
  }

  it('keeps emoji, including those joined by a zero-width joiner, other scripts and their joiners', async () => {
    for (const name of [
      'family 👨‍👩‍👧.txt',
      'heart ❤️.txt',
      'ملف.txt',
      'می\u200Cخواهم.txt',
      '日本語\u3000ファイル.txt',
      'Ελληνικά.txt',
    ]) {
      const res = await upload(name, 'names/kept');
      expect(res.statusCode, `${name}: ${res.body}`).to.equal(201);
      expect(res.json().filename).to.equal(name.normalize('NFC'));
    }
  });

  it('a file cannot take a folder path, nor a folder a file path (upload, move, rename, folder create)', async () => {
    expect((await k.call('POST', '/api/v1/dam/folders', k.editor, { path: 'clash/pub' })).statusCode).to.equal(201);
    const file = await upload('notes.txt', 'clash');
    expect(file.statusCode, file.body).to.equal(201);
    const { id } = file.json();

    const moved = await k.call('POST', '/api/v1/dam/assets/move', k.admin, { id, to: 'clash/pub' });
    expect(moved.statusCode, moved.body).to.equal(409);
    expect(moved.json()).to.include({ code: 'PATH_IS_FOLDER', field: 'to' });
    const renamed = await k.call('POST', '/api/v1/dam/assets/move', k.admin, { id, filename: 'pub' });
    expect(renamed.statusCode, renamed.body).to.equal(409);
    expect(renamed.json().code).to.equal('PATH_IS_FOLDER');
    const uploaded = await upload('pub', 'clash');
    expect(uploaded.statusCode, uploaded.body).to.equal(409);
    expect(uploaded.json()).to.include({ code: 'PATH_IS_FOLDER', field: 'filename' });

    // The other way: a folder (made explicitly, or as the folder of a file) where a file is.
    const folder = await k.call('POST', '/api/v1/dam/folders', k.editor, { path: 'clash/notes.txt' });
    expect(folder.statusCode, folder.body).to.equal(409);
    expect(folder.json()).to.include({ code: 'PATH_IS_FILE', field: 'path' });
    const deeper = await k.call('POST', '/api/v1/dam/folders', k.editor, { path: 'clash/notes.txt/inner/more' });
    expect(deeper.statusCode, deeper.body).to.equal(409);
    const under = await upload('x.txt', 'clash/notes.txt');
    expect(under.statusCode, under.body).to.equal(409);
    expect(under.json()).to.include({ code: 'PATH_IS_FILE', field: 'folder' });
    const other = (await upload('other.txt', 'clash')).json();
    const into = await k.call('POST', '/api/v1/dam/assets/move', k.admin, {
      id: other.id,
      to: 'clash/notes.txt/o.txt',
    });
    expect(into.statusCode, into.body).to.equal(409);
    expect(into.json().code).to.equal('PATH_IS_FILE');

    // Nothing of the refused writes remains; the file still answers at its own path.
    expect(await k.t.db('asset_folders').where('path', 'like', 'clash/notes.txt%').pluck('path')).to.deep.equal([]);
    expect((await k.call('GET', '/api/v1/dam/exists?path=clash/pub', k.reader)).json().exists).to.equal(false);
    expect((await k.call('GET', `/api/v1/dam/assets/${id}`, k.reader)).json().path).to.equal('clash/notes.txt');
    // A file moved below its own name's folder is not a clash with itself.
    const self = await k.call('POST', '/api/v1/dam/assets/move', k.admin, { id, to: 'clash/notes.txt-dir/notes.txt' });
    expect(self.statusCode, self.body).to.equal(200);
  });

  it('a file and a folder made at the same path at the same moment: one of them is refused', async () => {
    for (let i = 0; i < 5; i++) {
      const [file, folder] = await Promise.all([
        upload(`race${i}`, 'race'),
        k.call('POST', '/api/v1/dam/folders', k.editor, { path: `race/race${i}` }),
      ]);
      const codes = [file.statusCode, folder.statusCode].sort();
      expect(codes, `${file.body} ${folder.body}`).to.deep.equal([201, 409]);
    }
  });

  it('delivers every stored name at the URL the API answered (spaces, unicode, #, %, +, &, quotes)', async () => {
    const names = [
      'with space.txt',
      'ünïcødé ☃ 日本.txt',
      'hash#tag.txt',
      '50% off.txt',
      '100%.txt',
      'a+b&c=d;e.txt',
      "it's (1) [2] {3} ~!@$^,.txt",
      'emoji 👨‍👩‍👧.txt',
    ];
    for (const [i, name] of names.entries()) {
      const folder = `deliver/dir ${i} #% ☃`;
      const body = Buffer.from(`file ${i}\n`);
      const res = await k.upload({ name, data: body }, { folder, visibility: 'public' });
      expect(res.statusCode, `${name}: ${res.body}`).to.equal(201);
      const asset = res.json();
      expect(asset.path).to.equal(`${folder}/${name}`);
      for (const url of [
        asset.url,
        (await k.call('GET', `/api/v1/dam/asset-urls?path=${encodeURIComponent(asset.path)}`, k.reader)).json().url,
      ]) {
        const got = await k.t.inject({ method: 'GET', url });
        expect(got.statusCode, `${name} at ${url}`).to.equal(200);
        expect(got.rawPayload.equals(body), `${name} at ${url}`).to.equal(true);
      }
      const listed = await k.call('GET', `/api/v1/dam/assets?folder=${encodeURIComponent(folder)}`, k.reader);
      expect(listed.json().assets.map((a: { path: string }) => a.path)).to.deep.equal([asset.path]);
    }
    // "?" and "*" stay refused (Windows and shells), with the field named.
    for (const name of ['what?.txt', 'star*.txt']) {
      const res = await upload(name, 'deliver');
      expect(res.statusCode).to.equal(400);
      expect(res.json()).to.include({ code: 'INVALID_PATH', field: 'filename' });
    }
  });

  it('a "%" or "_" in a folder name is that character in listings and folder deletes, never a wildcard', async () => {
    for (const [folder, name] of [
      ['pct/a%', 'one.txt'],
      ['pct/abc', 'two.txt'],
      ['pct/a_', 'three.txt'],
      ['pct/ab', 'four.txt'],
    ])
      expect((await upload(name, folder)).statusCode).to.equal(201);
    const listed = await k.call(
      'GET',
      `/api/v1/dam/assets?folder=${encodeURIComponent('pct/a%')}&recursive=true`,
      k.reader,
    );
    expect(listed.json().assets.map((a: { path: string }) => a.path)).to.deep.equal(['pct/a%/one.txt']);
    const children = await k.call('GET', '/api/v1/dam/folders?parent=pct', k.reader);
    expect(children.json().folders.map((f: { name: string }) => f.name)).to.deep.equal(['a%', 'a_', 'ab', 'abc']);
    const deleted = await k.call('DELETE', `/api/v1/dam/folders?path=${encodeURIComponent('pct/a_')}`, k.admin);
    expect(deleted.json()).to.include({ deletedAssets: 1 });
    expect(
      (await k.call('DELETE', `/api/v1/dam/folders?path=${encodeURIComponent('pct/a%')}`, k.admin)).json(),
    ).to.include({
      deletedAssets: 1,
    });
    const left = await k.call('GET', '/api/v1/dam/assets?folder=pct&recursive=true', k.reader);
    expect(left.json().assets.map((a: { path: string }) => a.path)).to.deep.equal([
      'pct/ab/four.txt',
      'pct/abc/two.txt',
    ]);
  });

  it('a path whose delivery URL would not fit a request line is refused', async () => {
    // 1024 characters, but 3 bytes each in UTF-8: 9 characters each once percent-encoded.
    const folder = Array.from({ length: 4 }, () => '日'.repeat(250)).join('/');
    const res = await upload('x.txt', folder);
    expect(res.statusCode, res.body).to.equal(400);
    expect(res.json()).to.include({ code: 'INVALID_PATH', field: 'folder' });
    const long = await upload('y'.repeat(255), Array.from({ length: 4 }, () => 'z'.repeat(200)).join('/'));
    expect(long.statusCode, long.body).to.equal(400);
    expect(long.json()).to.include({ code: 'INVALID_PATH', field: 'filename' });
  });

  it('a row stored under older rules stays readable, deliverable, movable and deletable', async () => {
    const ok = await upload('legacy.txt', 'legacy');
    expect(ok.statusCode, ok.body).to.equal(201);
    const odd = 'legacy/..%2f..%2f/a\u202Eb.txt';
    await k.t
      .db('assets')
      .where({ id: ok.json().id })
      .update({ path: odd, folder: 'legacy/..%2f..%2f', filename: 'a\u202Eb.txt' });
    const url = `/dam-asset/${odd.split('/').map(encodeURIComponent).join('/')}`;
    expect((await k.t.inject({ method: 'GET', url })).statusCode).to.equal(200);
    expect(
      (await k.call('GET', `/api/v1/dam/exists?path=${encodeURIComponent(odd)}`, k.reader)).json().exists,
    ).to.equal(true);
    const renamed = await k.call('POST', '/api/v1/dam/assets/move', k.admin, { path: odd, to: 'legacy/fixed.txt' });
    expect(renamed.statusCode, renamed.body).to.equal(200);
    expect((await k.call('DELETE', '/api/v1/dam/asset?path=legacy/fixed.txt', k.admin)).statusCode).to.equal(200);
  });
});
