import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DatabaseHandle } from '../../kernel/database.ts';
import { PROJECT_ROOT } from '../../kernel/loader.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { freePort } from '../helpers/nginx.ts';

const CMS = path.join(PROJECT_ROOT, 'bin', 'cms.js');

/** `cms start --service <name>` as an operator runs it; resolves once its /health answers 200. */
async function startService(service: string, env: NodeJS.ProcessEnv, spawned: ChildProcess[], port: number) {
  const child = spawn('node', [CMS, 'start', '--service', service], {
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned.push(child);
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  // A cold start on a loaded machine (the suite's other workers, the checks beside them) can take
  // well over the few seconds it takes alone.
  const deadline = Date.now() + 90_000;
  for (;;) {
    const health = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
    if (health?.status === 200) return;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${service} did not become healthy (exit ${child.exitCode}):\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Documentation sites in the split deployment: files are written in the asset-processor (its own
 * process), core-api reads the folder from it over DAM_SERVICE_TOKEN and hears of every change
 * through the database notice, so a new version, a rename and a move are live within 5 seconds.
 */
describe('documentation sites across processes: core-api reads the folder from the asset-processor', function () {
  this.timeout(240_000);
  const email = 'docs.split@example.com';
  const password = 'docs-split-password-1';
  const spawned: ChildProcess[] = [];
  let database: DatabaseHandle;
  let dataDir: string;
  let core: string;
  let assets: string;
  let cookie: string;
  let siteId: string;

  before(async () => {
    database = await createTestDatabase({ fresh: true });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'cms-docs-split-'));
    const [corePort, assetsPort] = [await freePort(), await freePort()];
    core = `http://127.0.0.1:${corePort}`;
    assets = `http://127.0.0.1:${assetsPort}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: database.url,
      CMS_ADMIN_EMAIL: email,
      CMS_ADMIN_PASSWORD: password,
      LOG_LEVEL: 'error',
      NODE_ENV: 'test',
      UPLOAD_TOKEN_SECRET: 'docs-split-upload-ticket-secret-0123',
      DAM_SERVICE_TOKEN: 'docs-split-dam-service-token-0123456',
      // The revalidation fallback is far beyond the 5 seconds: only the notice can make a change live.
      DOCS_REVALIDATE_SECONDS: '3600',
    };
    // Separate data folders: core-api can only see the files through the asset-processor.
    await startService(
      'core-api',
      { ...env, CMS_DATA_DIR: path.join(dataDir, 'core'), ASSET_SERVICE_URL: `${assets}/api/v1` },
      spawned,
      corePort,
    );
    await startService('asset-processor', { ...env, CMS_DATA_DIR: path.join(dataDir, 'assets') }, spawned, assetsPort);
    const login = await fetch(`${core}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    expect(login.status).to.equal(200);
    cookie = login.headers
      .getSetCookie()
      .find((c) => c.startsWith('cms_session='))!
      .split(';')[0];
  });

  after(async () => {
    for (const child of spawned) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await database?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** Uploads (or replaces) a file in the asset-processor. */
  const put = async (file: string, text: string) => {
    const cut = file.lastIndexOf('/');
    const form = new FormData();
    form.set('folder', file.slice(0, cut));
    form.set('overwrite', '1');
    form.set('file', new Blob([text], { type: 'text/markdown' }), file.slice(cut + 1));
    const res = await fetch(`${assets}/api/v1/dam/upload`, { method: 'POST', body: form, headers: { cookie } });
    expect(res.status, await res.clone().text()).to.be.within(200, 201);
    return (await res.json()) as { id: string };
  };
  const json = async (url: string, init: RequestInit = {}) => {
    const res = await fetch(url, {
      ...init,
      headers: { cookie, ...(init.body ? { 'content-type': 'application/json' } : {}), ...init.headers },
    });
    return { status: res.status, body: (await res.text()) as string };
  };
  /** Polls core-api's public page until `check` holds; fails after 5 seconds. */
  const liveWithin5s = async (docPath: string, check: (status: number, body: string) => boolean) => {
    const started = Date.now();
    for (;;) {
      const res = await fetch(`${core}/public/docs/${siteId}/page/${docPath}`);
      const body = await res.text();
      if (check(res.status, body)) return Date.now() - started;
      if (Date.now() - started > 5_000)
        throw new Error(`not live within 5 s: ${docPath} ${res.status} ${body.slice(0, 200)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  it('core-api builds the site from files written in the asset-processor (folder listed over DAM_SERVICE_TOKEN)', async () => {
    await put('manual/index.md', '# Handbook\n\nSee [the intro](guide/intro.md).\n');
    await put('manual/guide/intro.md', '# Intro\n\nFirst version about walruses.\n');
    const site = await json(`${core}/cms-one/websites`, {
      method: 'POST',
      body: JSON.stringify({
        name: 'Split handbook',
        rootPath: '/split-handbook',
        kind: 'documentation',
        settings: { docs: { sourceFolder: 'manual' } },
      }),
    });
    expect(site.status, site.body).to.be.within(200, 201);
    siteId = JSON.parse(site.body).id;
    const tree = await json(`${core}/docs-sites/${siteId}/tree`);
    expect(tree.status, tree.body).to.equal(200);
    expect(JSON.parse(tree.body).documents.map((d: { path: string }) => d.path)).to.deep.equal(['', 'guide/intro']);
    const page = await fetch(`${core}/public/docs/${siteId}/page/guide/intro`);
    expect(page.status).to.equal(200);
    expect(await page.text()).to.contain('walruses');
    // The folder route answers the service token only (core-api presents it).
    const anonymous = await fetch(`${assets}/api/v1/dam/folder-files?folder=manual`);
    expect(anonymous.status).to.be.within(401, 403);
  });

  it('a new version, a rename and a move in the asset-processor are live in core-api within 5 seconds', async () => {
    // Warm core-api's kept site, then change the file in the other process.
    expect((await fetch(`${core}/public/docs/${siteId}/page/guide/intro`)).status).to.equal(200);
    const { id } = await put('manual/guide/intro.md', '# Intro\n\nSecond version about narwhals.\n');
    await liveWithin5s('guide/intro', (s, b) => s === 200 && b.includes('narwhals') && !b.includes('walruses'));

    const renamed = await json(`${assets}/api/v1/dam/assets/move`, {
      method: 'POST',
      body: JSON.stringify({ id, filename: 'start.md' }),
    });
    expect(renamed.status, renamed.body).to.equal(200);
    await liveWithin5s('guide/start', (s, b) => s === 200 && b.includes('narwhals'));
    await liveWithin5s('guide/intro', (s) => s === 404);

    const moved = await json(`${assets}/api/v1/dam/assets/move`, {
      method: 'POST',
      body: JSON.stringify({ id, folder: 'manual/basics' }),
    });
    expect(moved.status, moved.body).to.equal(200);
    await liveWithin5s('basics/start', (s, b) => s === 200 && b.includes('narwhals'));
    await liveWithin5s('guide/start', (s) => s === 404);
    const nav = await fetch(`${core}/public/docs/${siteId}/nav`);
    expect(await nav.text())
      .to.contain('basics/start')
      .and.not.to.contain('guide/start');
  });
});
