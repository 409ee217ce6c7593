import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import { discoverPlugins, PROJECT_ROOT } from '../../../kernel/loader.ts';
import type { PublishJobs } from '../services/jobs.ts';
import { PublishRunner } from '../runner/runner.ts';
import { loadRunnerSettings } from '../runner/settings.ts';
import { eventually, startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { freePort } from '../../../test/helpers/ports.ts';

const CMS = path.join(PROJECT_ROOT, 'bin', 'cms.js');
const TOKEN = 'publish-runner-token-0123456789';
const PLUGINS = ['identity', 'assets', 'content', 'publish'];
const PAGES = ['/a', '/b', '/c'];

/**
 * Faults of a publish run: the runner process killed with SIGKILL in the middle of a build, and
 * core-api (`cms start`) killed in the middle of one and started again. Each time the job ends
 * `succeeded` with the whole build; what runs twice is the run (its pages are rendered again), which
 * the publish README documents as at-least-once, and nothing else.
 */
describe('publish jobs under faults: kill -9 mid-run, then a restart', function () {
  this.timeout(180_000);
  let t: TestKernel;
  let admin: TestUser;
  let out: string;
  let n = 0;
  const children: ChildProcess[] = [];
  const logs = pino({ level: 'silent' });

  const ok = async (method: string, url: string, body?: unknown, status = 201) => {
    const res = await t.call(method, url, admin, body);
    if (res.statusCode !== status) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  /** A website with three published pages and a queued publish job of it. */
  const queuedSite = async () => {
    const site = await ok('POST', '/cms-one/websites', {
      name: `Faults ${n}`,
      rootPath: `/faults-${Date.now().toString(36)}${n++}`,
      locales: ['en'],
    });
    for (const p of PAGES)
      await ok('POST', '/cms-one/pages', {
        websiteId: site.id,
        locale: 'en',
        path: p,
        title: `Page ${p}`,
        published: true,
        content: { type: 'section', children: [{ type: 'p', text: p }] },
      });
    const job = await ok('POST', '/publish/jobs', { websiteId: site.id }, 202);
    return { site, job };
  };
  const runner = (api: string) =>
    new PublishRunner(
      loadRunnerSettings({
        PUBLISH_API_URL: api,
        PUBLISH_RUNNER_TOKEN: TOKEN,
        PUBLISH_OUTPUT_DIR: out,
        PUBLISH_RUNNER_PARALLEL: '1',
      }),
      logs,
    );
  const claimStatus = async () =>
    (
      await t.inject({
        method: 'POST',
        url: '/publish/jobs/claim',
        headers: { authorization: `Bearer ${TOKEN}` },
        payload: { runner: 'probe' },
      })
    ).statusCode;
  const leaseMs = () => t.services<PublishJobs>('publish').leaseSeconds * 1000;
  /** Every page's render, counted per website (the test's window on what runs twice). */
  const renders = new Map<string, number>();
  let holdRender: ((websiteId: string) => Promise<void>) | undefined;
  const messagesOf = async (jobId: string) =>
    (await ok('GET', `/publish/jobs/${jobId}/logs`, undefined, 200)).lines.map(
      (l: { attempt: number; message: string }) =>
        `${l.attempt}: ${l.message.replace(/^the runner \S+ /, 'the runner ')}`,
    );
  const expectWholeBuild = async (site: { id: string; rootPath: string }) => {
    const segment = site.rootPath.slice(1);
    const built = (await fs.readdir(path.join(out, site.id), { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile())
      .map((e) => path.relative(path.join(out, site.id), path.join(e.parentPath, e.name)));
    expect(built.sort()).to.deep.equal(PAGES.map((p) => path.join(segment, p.slice(1), 'index.html')).sort());
  };
  const exited = (child: ChildProcess) =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => child.once('exit', () => resolve()));

  before(async () => {
    t = await startTestKernel({ plugins: PLUGINS, ownDataDir: true, env: { PUBLISH_RUNNER_TOKEN: TOKEN } });
    admin = await t.admin();
    out = await fs.mkdtemp(path.join(os.tmpdir(), 'cms-publish-faults-'));
    // The renders of this kernel's runner routes, counted; a test may hold one (the run is then "in the middle").
    const publish = t.services<PublishJobs>('publish');
    const render = publish.renderPage.bind(publish);
    publish.renderPage = async (run, locale, pagePath) => {
      renders.set(run.job.website_id, (renders.get(run.job.website_id) ?? 0) + 1);
      await holdRender?.(run.job.website_id);
      return render(run, locale, pagePath);
    };
  });
  after(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await t?.close();
    if (out) await fs.rm(out, { recursive: true, force: true });
  });

  it('the runner process killed mid-build: the job waits out the lease, the next runner builds it whole (run 2)', async () => {
    const { site, job } = await queuedSite();
    const api = (await t.kernel.listen(0)).replace('0.0.0.0', '127.0.0.1');
    let reached!: () => void;
    const midRun = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    holdRender = async (websiteId) => {
      if (websiteId !== site.id) return;
      reached();
      await released;
    };
    const child = spawn(process.execPath, [CMS, 'publish-runner'], {
      env: {
        ...process.env,
        LOG_LEVEL: 'warn',
        PUBLISH_API_URL: api,
        PUBLISH_RUNNER_TOKEN: TOKEN,
        PUBLISH_OUTPUT_DIR: out,
        PUBLISH_RUNNER_PARALLEL: '1',
      },
      stdio: 'ignore',
    });
    children.push(child);
    try {
      await midRun;
      const running = await ok('GET', `/publish/jobs/${job.id}`, undefined, 200);
      expect(running).to.include({ state: 'running', attempt: 1 });
      expect(running.runner).to.match(new RegExp(`:${child.pid}$`));
      child.kill('SIGKILL');
      await exited(child);
    } finally {
      holdRender = undefined;
      release();
    }
    // Inside the lease the run is still the dead runner's: nobody else is handed the job.
    expect(await claimStatus()).to.equal(204);
    await t.advanceClock(leaseMs() + 1);
    expect(await runner(api).runOnce()).to.equal('succeeded');

    const done = await ok('GET', `/publish/jobs/${job.id}`, undefined, 200);
    expect(done).to.include({ state: 'succeeded', attempt: 2, pages: PAGES.length });
    await expectWholeBuild(site);
    // What ran twice: the first run's one page, then the whole second run.
    expect(renders.get(site.id)).to.equal(1 + PAGES.length);
    const messages = await messagesOf(job.id);
    expect(messages[0]).to.match(/^1: claimed by .+ \(run 1\)$/);
    expect(messages.filter((m: string) => / \(run \d\)$/.test(m))).to.have.length(2);
    expect(messages).to.include(`1: the runner reported nothing for ${leaseMs() / 1000} s: queued`);
    expect(messages.filter((m: string) => m.includes('succeeded'))).to.deep.equal([
      `2: succeeded (${PAGES.length} pages, 0 files)`,
    ]);
    expect(await claimStatus()).to.equal(204);
  });

  it('core-api (cms start) killed mid-build and started again: the job is still there, its run is taken back at the lease and built whole', async () => {
    const { site, job } = await queuedSite();
    const url = (t.db.client as { connectionSettings: { connectionString: string } }).connectionSettings
      .connectionString;
    const disabled = (await discoverPlugins())
      .map((p) => p.id)
      .filter((id) => !PLUGINS.includes(id))
      .join(',');
    const port = await freePort();
    const api = `http://127.0.0.1:${port}`;
    const start = async () => {
      const child = spawn(process.execPath, [CMS, 'start', '--service', 'core-api'], {
        env: {
          ...process.env,
          NODE_ENV: 'test',
          LOG_LEVEL: 'warn',
          DATABASE_URL: url,
          CMS_DATA_DIR: t.dataDir,
          CMS_DISABLED_PLUGINS: disabled,
          PUBLISH_RUNNER_TOKEN: TOKEN,
          PORT: String(port),
          HOST: '127.0.0.1',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      children.push(child);
      let output = '';
      child.stderr!.on('data', (c) => (output += c));
      await eventually(async () => (await fetch(`${api}/publish/jobs`).catch(() => undefined))?.status === 401, {
        timeoutMs: 90_000,
        intervalMs: 200,
        what: `core-api to listen (${output})`,
      });
      return child;
    };
    let core = await start();
    const realFetch = globalThis.fetch;
    let killed = false;
    // The runner's first page request: core-api dies under it (the runner's calls then fail).
    globalThis.fetch = async (input, init) => {
      if (!killed && String(input).includes(`/publish/jobs/${job.id}/runner/page?`)) {
        killed = true;
        core.kill('SIGKILL');
        await exited(core);
      }
      return realFetch(input, init);
    };
    try {
      expect(await runner(api).runOnce()).to.equal('failed');
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(killed).to.equal(true);
    // Nothing lost: the job and its run are as the dead process left them.
    expect(await ok('GET', `/publish/jobs/${job.id}`, undefined, 200)).to.include({ state: 'running', attempt: 1 });

    core = await start();
    // Inside the lease the run is still the killed run's: the restarted core-api hands the job to nobody.
    const claim = await fetch(`${api}/publish/jobs/claim`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ runner: 'probe' }),
    });
    expect(claim.status).to.equal(204);
    await t.advanceClock(leaseMs() + 1);
    expect(await runner(api).runOnce()).to.equal('succeeded');
    const done = await ok('GET', `/publish/jobs/${job.id}`, undefined, 200);
    expect(done).to.include({ state: 'succeeded', attempt: 2, pages: PAGES.length });
    await expectWholeBuild(site);
    const messages = await messagesOf(job.id);
    expect(messages).to.include(`1: the runner reported nothing for ${leaseMs() / 1000} s: queued`);
    expect(messages.filter((m: string) => m.includes('succeeded'))).to.have.length(1);
    core.kill('SIGKILL');
    await exited(core);
  });
});
