import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { eventually, startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { rawZip } from '../../../test/helpers/zip.ts';
import { manyEntriesZip } from './many-entries-zip.ts';

const PLUGINS = ['data', 'content', 'assets', 'bundles'];
const HOST =
  os
    .hostname()
    .replace(/[^A-Za-z0-9.-]+/g, '_')
    .slice(0, 64) || 'host';

const zipImport = (t: TestKernel, user: TestUser, payload: Buffer | PassThrough, query = '') =>
  t.inject({
    method: 'POST',
    url: `/cms-one/websites/import${query}`,
    payload,
    headers: { 'content-type': 'application/zip', cookie: user.cookie },
  });

const spoolDir = (t: TestKernel) => path.join(t.dataDir, 'tmp', 'bundles');
const spooled = async (t: TestKernel) => (await fs.readdir(spoolDir(t)).catch(() => [] as string[])).length;

describe('bundles: bounds on imports', function () {
  this.timeout(90_000);

  describe('slots and the time budget', () => {
    let t: TestKernel;
    let admin: TestUser;
    let other: TestUser;

    before(async () => {
      t = await startTestKernel({
        plugins: PLUGINS,
        ownDataDir: true,
        env: { BUNDLE_IMPORTS_PER_USER: '1', BUNDLE_IMPORTS_GLOBAL: '1', BUNDLE_IMPORT_TIME_BUDGET_MS: '1500' },
      });
      admin = await t.admin();
      other = await t.createUser({ roles: ['admin'] });
    });
    after(() => t?.close());

    it('one import per user (429) and per process (503), dry runs too, both with Retry-After; the slot comes back', async () => {
      const body = new PassThrough();
      const first = zipImport(t, admin, body, '?dryRun=1');
      body.write(Buffer.alloc(1024));
      await eventually(async () => (await spooled(t)) > 0);
      const own = await zipImport(t, admin, rawZip([{ name: 'bundle.json', data: '{}' }]), '?dryRun=1');
      expect(own.statusCode, own.body).to.equal(429);
      expect(own.json().code).to.equal('IMPORT_RUNNING');
      expect(Number(own.headers['retry-after'])).to.be.greaterThan(0);
      const json = await t.call('POST', '/cms-one/websites/import?dryRun=1', other, { version: 2 });
      expect(json.statusCode, json.body).to.equal(503);
      expect(json.json().code).to.equal('IMPORTS_BUSY');
      expect(Number(json.headers['retry-after'])).to.be.greaterThan(0);
      body.end();
      expect((await first).json().code).to.equal('BUNDLE_NOT_ZIP');
      const next = await t.call('POST', '/cms-one/websites/import?dryRun=1', other, {
        version: 2,
        website: { name: 'Next', rootPath: '/next' },
      });
      expect(next.statusCode, next.body).to.equal(200);
    });

    it('an upload that outlasts the time budget is stopped with 503, its spool file removed, the slot freed', async () => {
      const body = new PassThrough();
      const started = Date.now();
      const stalled = zipImport(t, admin, body);
      body.write(Buffer.alloc(1024));
      const res = await stalled;
      expect(res.statusCode, res.body).to.equal(503);
      expect(res.json().code).to.equal('IMPORT_TIME_BUDGET');
      expect(res.json().message).to.include('BUNDLE_IMPORT_TIME_BUDGET_MS');
      expect(Number(res.headers['retry-after'])).to.be.greaterThan(0);
      expect(Date.now() - started).to.be.below(10_000);
      expect(await spooled(t)).to.equal(0);
      body.destroy();
      const next = await t.call('POST', '/cms-one/websites/import?dryRun=1', admin, {
        version: 2,
        website: { name: 'Next', rootPath: '/next2' },
      });
      expect(next.statusCode, next.body).to.equal(200);
    });

    it('a failed import leaves no spool file', async () => {
      const refused = rawZip([
        {
          name: 'bundle.json',
          data: JSON.stringify({
            version: 2,
            website: { name: 'X', rootPath: '/failed' },
            themes: [
              { name: 'A', isDefault: true },
              { name: 'B', isDefault: true },
            ],
          }),
        },
      ]);
      const res = await zipImport(t, admin, refused);
      expect(res.statusCode, res.body).to.equal(400);
      expect(await spooled(t)).to.equal(0);
    });
  });

  it('spool files left by crashed imports are removed at start-up; a running import of another host stays', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cms-spool-'));
    const dir = path.join(dataDir, 'tmp', 'bundles');
    await fs.mkdir(dir, { recursive: true });
    // A process that has ended: its pid is free.
    const gone = spawnSync(process.execPath, ['-e', 'process.pid'], {}).pid as number;
    const crashed = path.join(dir, `bundle-${HOST}~${gone}~0123abcd.zip`);
    const oldStyle = path.join(dir, 'bundle-1700000000000-0123456789abcdef.zip');
    const otherHost = path.join(dir, 'bundle-other-host~1~0123abcd.zip');
    for (const file of [crashed, oldStyle, otherHost]) await fs.writeFile(file, Buffer.alloc(4096));
    // Older than any import may run: nobody is still writing it.
    const longAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    await fs.utimes(oldStyle, longAgo, longAgo);
    const t = await startTestKernel({ plugins: PLUGINS, env: { CMS_DATA_DIR: dataDir } });
    try {
      expect((await fs.readdir(dir)).sort()).to.deep.equal([path.basename(otherHost)]);
    } finally {
      await t.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });

  describe('the library is asked in batches, and entry counts are refused at once', () => {
    let t: TestKernel;
    let admin: TestUser;

    before(async () => {
      t = await startTestKernel({ plugins: PLUGINS, ownDataDir: true });
      admin = await t.admin();
    });
    after(() => t?.close());

    it('a dry run of 2,000 assets looks them up in a few queries, not one per asset', async () => {
      const assets = Array.from({ length: 2000 }, (_, i) => ({ id: `a${i}`, path: `many/f${i}.pdf` }));
      let lookups = 0;
      const count = (q: { sql: string }) => {
        if (/from "assets"/.test(q.sql)) lookups++;
      };
      t.db.on('query', count);
      try {
        const res = await t.call('POST', '/cms-one/websites/import?dryRun=1', admin, {
          version: 1,
          website: { name: 'Many', rootPath: '/many' },
          assets,
        });
        expect(res.statusCode, res.body).to.equal(200);
        expect(res.json().assetPlan).to.have.length(2000);
      } finally {
        t.db.off('query', count);
      }
      expect(lookups).to.be.greaterThan(0);
      expect(lookups).to.be.at.most(5);
    });

    it('100,000 entries the manifest does not name are refused about as fast as 100,001 entries', async () => {
      const manifest = {
        name: 'bundle.json',
        data: JSON.stringify({ version: 2, website: { name: 'X', rootPath: '/x' } }),
      };
      // CPU time of this process (the import runs in it), not wall time: a loaded machine stretches
      // the second, while the regression this guards against was work (a read per entry).
      const timed = async (zip: Buffer) => {
        const started = process.cpuUsage();
        const res = await zipImport(t, admin, zip, '?dryRun=1');
        const used = process.cpuUsage(started);
        return { ms: (used.user + used.system) / 1000, code: res.json().code, status: res.statusCode };
      };
      const over = await timed(manyEntriesZip(100_001, (i) => `junk/${i}`));
      expect(over).to.include({ status: 400, code: 'BUNDLE_TOO_MANY_ENTRIES' });
      // Names of asset files, but none named by the manifest, which comes last.
      const unnamedLast = await timed(
        manyEntriesZip(99_999, (i) => `assets/${String(i).padStart(6, '0')}-x.bin`, { last: manifest }),
      );
      expect(unnamedLast).to.include({ status: 400, code: 'BUNDLE_UNKNOWN_ENTRY' });
      const junk = await timed(manyEntriesZip(99_999, (i) => `junk/${i}`, { first: manifest }));
      expect(junk).to.include({ status: 400, code: 'BUNDLE_UNKNOWN_ENTRY' });
      // Reading the directory entry by entry took about 10 s; one read and a plain loop, well under one.
      // (The zips are made before each call, outside the measured time.)
      for (const r of [unnamedLast, junk])
        expect(r.ms, JSON.stringify({ over, r })).to.be.below(Math.max(2500, over.ms * 10));
      expect(await spooled(t)).to.equal(0);
    });
  });
});
