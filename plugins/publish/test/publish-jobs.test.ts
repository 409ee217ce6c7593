import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { pino } from 'pino';
import { png } from '../../../test/helpers/images.ts';
import { auditRows, startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import { startLocalS3 } from '../../../test/helpers/s3-server.ts';
import { PROJECT_ROOT } from '../../../kernel/loader.ts';
import { PublishRunner } from '../runner/runner.ts';
import { loadRunnerSettings } from '../runner/settings.ts';

const run = promisify(execFile);
const CMS = path.join(PROJECT_ROOT, 'bin', 'cms.js');

const TOKEN = 'publish-runner-token-0123456789';
/** What a browser sends when it navigates to a page. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const silent = pino({ level: 'silent' });

function multipart(name: string, data: Buffer, fields: Record<string, string>) {
  const boundary = `----p${randomBytes(6).toString('hex')}`;
  const parts = Object.entries(fields).map(
    ([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
  );
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  return {
    payload: Buffer.concat([Buffer.from(parts.join('') + head), data, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

/** Every file under a folder, relative, sorted. */
async function filesIn(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

/**
 * The plainest static web server over a build: `/a/b` is `a/b/index.html` (or the file `a/b`), as
 * nginx's `try_files $uri $uri/index.html` or any static host serves such a folder.
 */
async function staticServer(root: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const clean = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const candidates = [path.join(root, clean), path.join(root, clean, 'index.html')];
    const found = candidates.find((f) => f.startsWith(root) && fsSync.statSync(f, { throwIfNoEntry: false })?.isFile());
    if (!found) return void res.writeHead(404).end();
    res.writeHead(200, {
      'content-type': found.endsWith('.html') ? 'text/html; charset=utf-8' : 'application/octet-stream',
    });
    res.end(fsSync.readFileSync(found));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('publish jobs: an editor queues a static build, a runner makes it', function () {
  this.timeout(120_000);
  let t: TestKernel;
  let base: string;
  let out: string;
  let admin: TestUser;
  let users: Record<'editor' | 'reader' | 'nobody', TestUser>;
  let site: { id: string; rootPath: string; name: string };
  let n = 0;

  const runner = (env: Record<string, string> = {}) =>
    new PublishRunner(
      loadRunnerSettings({ PUBLISH_API_URL: base, PUBLISH_RUNNER_TOKEN: TOKEN, PUBLISH_OUTPUT_DIR: out, ...env }),
      silent,
    );
  const ok = async (user: TestUser, method: string, url: string, body?: unknown, status = 201) => {
    const res = await t.call(method, url, user, body);
    if (res.statusCode !== status) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  const upload = async (name: string, data: Buffer, fields: Record<string, string>) => {
    const up = multipart(name, data, fields);
    const res = await t.inject({
      method: 'POST',
      url: '/api/v1/dam/upload',
      payload: up.payload,
      headers: { ...up.headers, cookie: admin.cookie },
    });
    expect(res.statusCode, res.body).to.equal(201);
  };
  const newSite = async () =>
    ok(admin, 'POST', '/cms-one/websites', {
      name: `Static ${n}`,
      rootPath: `/static-${Date.now().toString(36)}${n++}`,
      locales: ['en', 'de'],
    });
  const page = (websiteId: string, body: Record<string, unknown>) =>
    ok(admin, 'POST', '/cms-one/pages', {
      websiteId,
      locale: 'en',
      title: 'A page',
      published: true,
      content: { type: 'section', children: [{ type: 'p', text: 'Hello' }] },
      ...body,
    });
  const runnerCall = (method: string, url: string, opts: { claim?: string; body?: unknown; token?: string } = {}) =>
    t.inject({
      method: method as 'POST',
      url,
      headers: {
        authorization: `Bearer ${opts.token ?? TOKEN}`,
        ...(opts.claim ? { 'x-publish-claim': opts.claim } : {}),
      },
      payload: opts.body as object,
    });
  const queued = () =>
    t.kernel.resolve('metrics').registry.getSingleMetricAsString('publish_jobs_queued') as Promise<string>;

  before(async () => {
    t = await startTestKernel({
      // admin-ui: the live site at /<root>/<path> (the website preview of the edge table's `/` row).
      plugins: ['identity', 'assets', 'content', 'publish', 'admin-ui'],
      ownDataDir: true,
      env: { PUBLISH_RUNNER_TOKEN: TOKEN, PUBLIC_CONTENT_RATE_LIMIT_PER_MINUTE: '100000' },
    });
    base = (await t.kernel.listen(0)).replace('0.0.0.0', '127.0.0.1');
    out = await fs.mkdtemp(path.join(os.tmpdir(), 'cms-publish-'));
    admin = await t.admin();
    users = await t.users({ editor: ['objects:read', 'objects:write'], reader: ['objects:read'], nobody: [] });
    await upload('lamp.png', await png(6, 4), { folder: 'images' });
    await upload('secret.png', await png(3, 3), { folder: 'private', visibility: 'private' });
    site = await newSite();
    await page(site.id, { path: '/', title: 'Home', seo: { description: 'The home <page> & more' } });
    await page(site.id, {
      path: '/about',
      title: 'About',
      content: {
        type: 'section',
        children: [
          { type: 'h1', text: 'About us' },
          { type: 'img', props: { src: '/dam-asset/images/lamp.png', alt: 'A lamp' } },
          { type: 'a', props: { href: '/dam-asset/private/secret.png' }, text: 'secret' },
          { type: 'comment', text: 'kept while strip-html-comments is off' },
        ],
      },
    });
    await page(site.id, { path: '/about', locale: 'de', title: 'Über uns' });
    await page(site.id, { path: '/draft', title: 'Draft', published: false });
  });
  after(async () => {
    await t?.close();
    if (out) await fs.rm(out, { recursive: true, force: true });
  });

  it('queue → the runner claims it → the folder serves the live pages byte for byte, with the public files they use', async () => {
    const job = await ok(users.editor, 'POST', '/publish/jobs', { websiteId: site.id }, 202);
    expect(job).to.include({ websiteId: site.id, state: 'queued', attempt: 0 });
    const [audit] = await auditRows(t, 'website.publish', site.id);
    expect(audit).to.include({ target_type: 'website', target_label: site.name });
    expect(audit.after).to.deep.equal({ jobId: job.id });
    expect(await queued()).to.match(/^publish_jobs_queued 1$/m);

    expect(await runner().runOnce()).to.equal('succeeded');
    const done = await ok(users.reader, 'GET', `/publish/jobs/${job.id}`, undefined, 200);
    const root = path.join(out, site.id);
    expect(done).to.include({ state: 'succeeded', attempt: 1, pages: 3, files: 1, output: root, error: null });
    expect(done.progress.done).to.equal(done.progress.total).and.equal(4);
    expect(await queued()).to.match(/^publish_jobs_queued 0$/m);

    const segment = site.rootPath.slice(1);
    expect(await filesIn(root)).to.deep.equal(
      [
        `${segment}/index.html`,
        `${segment}/about/index.html`,
        `${segment}/about/index.de.html`,
        'dam-asset/images/lamp.png',
      ]
        .map((f) => f.split('/').join(path.sep))
        .sort(),
    );
    // Each file is what the live site answers a browser at that page's address: nothing differs.
    const live = async (url: string) => {
      const res = await t.call('GET', url, null, undefined, { accept: BROWSER_ACCEPT });
      expect(res.statusCode, url).to.equal(200);
      expect(res.headers['content-type'], url).to.equal('text/html; charset=utf-8');
      return res.rawPayload;
    };
    const file = (f: string) => fs.readFile(path.join(root, f));
    expect((await file(`${segment}/index.html`)).equals(await live(`/public/page${site.rootPath}`))).to.equal(true);
    const about = await file(`${segment}/about/index.html`);
    expect(about.equals(await live(`/public/page${site.rootPath}/about`))).to.equal(true);
    expect(about.equals(await live(`/public/pages/en${site.rootPath}/about`))).to.equal(true);
    expect(
      (await file(`${segment}/about/index.de.html`)).equals(await live(`/public/pages/de${site.rootPath}/about`)),
    ).to.equal(true);
    const html = about.toString();
    expect(html).to.match(/^<!DOCTYPE html>\n<html lang="en">/);
    expect(html).to.contain('<title>About</title>');
    expect(html).to.contain('<img alt="A lamp" src="/dam-asset/images/lamp.png">');
    expect(html).to.contain('<!-- kept while strip-html-comments is off -->');
    expect((await file(`${segment}/index.html`)).toString()).to.contain(
      '<meta name="description" content="The home &lt;page&gt; &amp; more">',
    );
    // The file the page shows is the one the live site delivers; the private one stays out.
    const lamp = await t.call('GET', '/dam-asset/images/lamp.png', null);
    expect((await file('dam-asset/images/lamp.png')).equals(lamp.rawPayload)).to.equal(true);
    // API clients still get JSON from the same routes.
    const json = await t.call('GET', `/public/page${site.rootPath}/about`, null, undefined, { accept: '*/*' });
    expect(json.json()).to.include({ title: 'About', locale: 'en' });
    expect(json.headers.vary).to.contain('accept');

    // Served: a static web server over the build answers the live site's addresses with the same bytes.
    const host = await staticServer(root);
    try {
      for (const url of [site.rootPath, `${site.rootPath}/about`, '/dam-asset/images/lamp.png']) {
        const there = await fetch(`${host.url}${url}`, { headers: { accept: BROWSER_ACCEPT } });
        const here = await fetch(`${base}${url}`, { headers: { accept: BROWSER_ACCEPT } });
        expect([there.status, here.status], url).to.deep.equal([200, 200]);
        expect(Buffer.from(await there.arrayBuffer()).equals(Buffer.from(await here.arrayBuffer())), url).to.equal(
          true,
        );
      }
      expect((await fetch(`${host.url}${site.rootPath}/draft`)).status).to.equal(404);
    } finally {
      host.server.close();
    }

    const { lines } = await ok(users.reader, 'GET', `/publish/jobs/${job.id}/logs`, undefined, 200);
    const messages = lines.map((l: { message: string }) => l.message);
    expect(messages[0]).to.match(/^claimed by .+ \(run 1\)$/);
    expect(messages).to.include('file private/secret.png left out: a private file is never part of a static build');
    expect(messages.at(-1)).to.equal('succeeded (3 pages, 1 files)');
  });

  it('cms publish-runner --once, as an operator runs it, builds the queued job; without a target it refuses to start', async () => {
    const own = await newSite();
    await page(own.id, { path: '/cli', title: 'From the command line' });
    const job = await ok(users.editor, 'POST', '/publish/jobs', { websiteId: own.id }, 202);
    const env = { ...process.env, PUBLISH_API_URL: base, PUBLISH_RUNNER_TOKEN: TOKEN, LOG_LEVEL: 'warn' };
    const done = await run('node', [CMS, 'publish-runner', '--once'], { env: { ...env, PUBLISH_OUTPUT_DIR: out } });
    expect(done.stdout.trim()).to.equal('publish job succeeded');
    expect((await ok(users.reader, 'GET', `/publish/jobs/${job.id}`, undefined, 200)).state).to.equal('succeeded');
    const html = await fs.readFile(path.join(out, own.id, own.rootPath.slice(1), 'cli', 'index.html'), 'utf8');
    expect(html).to.contain('<title>From the command line</title>');
    const idle = await run('node', [CMS, 'publish-runner', '--once'], { env: { ...env, PUBLISH_OUTPUT_DIR: out } });
    expect(idle.stdout.trim()).to.equal('no queued publish job');
    const refused = await run('node', [CMS, 'publish-runner', '--once'], { env }).catch((e) => e);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.contain('set exactly one of PUBLISH_OUTPUT_DIR');
  });

  it('into a bucket: the same files under <prefix><websiteId>/, keys of the previous build it no longer has removed', async () => {
    const s3 = await startLocalS3();
    const sdk = await import('@aws-sdk/client-s3');
    const client = new sdk.S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    try {
      await client.send(new sdk.CreateBucketCommand({ Bucket: 'sites' }));
      const own = await newSite();
      await page(own.id, { path: '/a', title: 'A' });
      const gone = await page(own.id, { path: '/b', title: 'B' });
      const bucketRunner = () =>
        runner({
          PUBLISH_OUTPUT_DIR: '',
          PUBLISH_S3_BUCKET: 'sites',
          PUBLISH_S3_PREFIX: 'static/',
          PUBLISH_S3_ENDPOINT: s3.endpoint,
          PUBLISH_S3_ACCESS_KEY_ID: s3.accessKeyId,
          PUBLISH_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
          PUBLISH_S3_FORCE_PATH_STYLE: '1',
        });
      const keys = async () =>
        ((await client.send(new sdk.ListObjectsV2Command({ Bucket: 'sites', Prefix: 'static/' }))).Contents ?? [])
          .map((o) => o.Key)
          .sort();
      const job = await ok(users.editor, 'POST', '/publish/jobs', { websiteId: own.id }, 202);
      expect(await bucketRunner().runOnce()).to.equal('succeeded');
      const segment = own.rootPath.slice(1);
      const prefix = `static/${own.id}/${segment}`;
      expect(await keys()).to.deep.equal([`${prefix}/a/index.html`, `${prefix}/b/index.html`]);
      expect((await ok(users.reader, 'GET', `/publish/jobs/${job.id}`, undefined, 200)).output).to.equal(
        `s3://sites/static/${own.id}/`,
      );
      const object = await client.send(new sdk.GetObjectCommand({ Bucket: 'sites', Key: `${prefix}/a/index.html` }));
      expect(object.ContentType).to.equal('text/html; charset=utf-8');
      const live = await t.call('GET', `/public/page${own.rootPath}/a`, null, undefined, { accept: BROWSER_ACCEPT });
      expect(Buffer.from(await object.Body!.transformToByteArray()).equals(live.rawPayload)).to.equal(true);

      await ok(admin, 'PATCH', `/cms-one/pages/${gone.id}`, { published: false }, 200);
      await t.advanceClock(1000);
      await ok(users.editor, 'POST', '/publish/jobs', { websiteId: own.id }, 202);
      expect(await bucketRunner().runOnce()).to.equal('succeeded');
      expect(await keys()).to.deep.equal([`${prefix}/a/index.html`]);
    } finally {
      client.destroy();
      await s3.close();
    }
  });

  it('a new build replaces the old one whole: an unpublished page is gone from the folder', async () => {
    const own = await newSite();
    await page(own.id, { path: '/keep', title: 'Keep' });
    const drop = await page(own.id, { path: '/drop', title: 'Drop' });
    const build = async () => {
      const job = await ok(users.editor, 'POST', '/publish/jobs', { websiteId: own.id }, 202);
      expect(await runner().runOnce()).to.equal('succeeded');
      return job;
    };
    await build();
    const segment = own.rootPath.slice(1);
    expect(await filesIn(path.join(out, own.id))).to.have.members([
      path.join(segment, 'drop', 'index.html'),
      path.join(segment, 'keep', 'index.html'),
    ]);
    await ok(admin, 'PATCH', `/cms-one/pages/${drop.id}`, { published: false }, 200);
    await t.advanceClock(1000);
    await build();
    expect(await filesIn(path.join(out, own.id))).to.deep.equal([path.join(segment, 'keep', 'index.html')]);
    // No staging or old folder is left beside the builds.
    expect((await fs.readdir(out)).filter((name) => name.startsWith('.'))).to.deep.equal([]);
  });

  it('cancel: a queued job ends cancelled at once; a running one when its runner next reports, and nothing is written', async () => {
    const own = await newSite();
    await page(own.id, { path: '/one', title: 'One' });
    const first = await ok(users.editor, 'POST', '/publish/jobs', { websiteId: own.id }, 202);
    const cancelled = await ok(users.editor, 'POST', `/publish/jobs/${first.id}/cancel`, undefined, 200);
    expect(cancelled).to.include({ state: 'cancelled' });
    const [row] = await auditRows(t, 'website.publish_cancel', own.id);
    expect(row.after).to.deep.equal({ jobId: first.id, state: 'cancelled' });
    const again = await t.call('POST', `/publish/jobs/${first.id}/cancel`, users.editor);
    expect(again.statusCode).to.equal(409);
    expect(again.json().code).to.equal('PUBLISH_JOB_FINISHED');
    expect(await auditRows(t, 'website.publish_cancel', own.id)).to.have.length(1);

    // A running job: the editor cancels while the runner is reading the page list.
    await t.advanceClock(1000);
    const second = await ok(users.editor, 'POST', '/publish/jobs', { websiteId: own.id }, 202);
    const realFetch = globalThis.fetch;
    globalThis.fetch = async (input, init) => {
      const url = String(input);
      if (url.endsWith(`/publish/jobs/${second.id}/runner/pages`)) {
        const during = await ok(users.editor, 'POST', `/publish/jobs/${second.id}/cancel`, undefined, 200);
        expect(during.state).to.equal('cancelling');
      }
      return realFetch(input, init);
    };
    try {
      expect(await runner().runOnce()).to.equal('cancelled');
    } finally {
      globalThis.fetch = realFetch;
    }
    const end = await ok(users.reader, 'GET', `/publish/jobs/${second.id}`, undefined, 200);
    expect(end).to.include({ state: 'cancelled', output: null });
    await fs.access(path.join(out, own.id)).then(
      () => expect.fail('a cancelled build must not be put in place'),
      () => undefined,
    );
    const states = (await auditRows(t, 'website.publish_cancel', own.id)).map((r) => r.after.state);
    expect(states).to.deep.equal(['cancelled', 'cancelling']);
  });

  it('retry after a failure: the failed job is queued again with its logs kept, and the next run succeeds', async () => {
    const own = await newSite();
    await page(own.id, { path: '/x', title: 'X' });
    const job = await ok(users.editor, 'POST', '/publish/jobs', { websiteId: own.id }, 202);
    // A folder the runner cannot write: a file stands where the folder of the builds should be.
    const blocked = path.join(out, `blocked-${own.id}`);
    await fs.writeFile(blocked, 'not a folder');
    expect(await runner({ PUBLISH_OUTPUT_DIR: blocked }).runOnce()).to.equal('failed');
    const failed = await ok(users.reader, 'GET', `/publish/jobs/${job.id}`, undefined, 200);
    expect(failed.state).to.equal('failed');
    expect(failed.error).to.match(/EEXIST|ENOTDIR/);

    expect((await t.call('POST', `/publish/jobs/${job.id}/retry`, users.reader)).statusCode).to.equal(403);
    await t.advanceClock(1000);
    const retried = await ok(users.editor, 'POST', `/publish/jobs/${job.id}/retry`, undefined, 202);
    expect(retried).to.include({ state: 'queued', error: null, attempt: 1 });
    const audits = await auditRows(t, 'website.publish', own.id);
    expect(audits.map((r) => r.after)).to.deep.equal([{ jobId: job.id }, { jobId: job.id, retry: true }]);

    expect(await runner().runOnce()).to.equal('succeeded');
    const done = await ok(users.reader, 'GET', `/publish/jobs/${job.id}`, undefined, 200);
    expect(done).to.include({ state: 'succeeded', attempt: 2, pages: 1 });
    const { lines } = await ok(users.reader, 'GET', `/publish/jobs/${job.id}/logs`, undefined, 200);
    expect(
      lines.filter((l: { level: string }) => l.level === 'error').map((l: { attempt: number }) => l.attempt),
    ).to.include(1);
    expect(lines.at(-1)).to.include({ attempt: 2, message: 'succeeded (1 pages, 0 files)' });
    const second = await t.call('POST', `/publish/jobs/${job.id}/retry`, users.editor);
    expect(second.statusCode).to.equal(409);
    expect(second.json().code).to.equal('PUBLISH_JOB_NOT_RETRYABLE');
  });

  it('a runner that goes silent loses its run when the lease runs out: queued again, then failed when no attempts are left', async () => {
    const own = await newSite();
    await page(own.id, { path: '/y', title: 'Y' });
    const job = await ok(users.editor, 'POST', '/publish/jobs', { websiteId: own.id }, 202);
    const lease = (await t.services<{ leaseSeconds: number }>('publish')).leaseSeconds;
    const claims: string[] = [];
    for (let run = 1; run <= 3; run++) {
      // The kernel queue hands the job to the next claim once the last runner's lease ran out.
      const claimed = await runnerCall('POST', '/publish/jobs/claim', { body: { runner: `silent-${run}` } });
      expect(claimed.statusCode, claimed.body).to.equal(200);
      expect(claimed.json().job).to.include({ id: job.id, state: 'running', attempt: run });
      claims.push(claimed.json().claim);
      // Inside the lease nobody else gets it.
      await t.advanceClock(lease * 1000 - 1000);
      expect((await runnerCall('POST', '/publish/jobs/claim', { body: { runner: 'early' } })).statusCode).to.equal(204);
      await t.advanceClock(1001);
    }
    expect((await runnerCall('POST', '/publish/jobs/claim', { body: { runner: 'idle' } })).statusCode).to.equal(204);
    const failed = await ok(users.reader, 'GET', `/publish/jobs/${job.id}`, undefined, 200);
    expect(failed.state).to.equal('failed');
    expect(failed.error).to.match(/reported nothing for \d+ s; no attempts left/);
    const { lines } = await ok(users.reader, 'GET', `/publish/jobs/${job.id}/logs`, undefined, 200);
    expect(lines.map((l: { message: string }) => l.message.replace(/^the runner (\S+) .*: /, '$1: '))).to.deep.equal([
      'claimed by silent-1 (run 1)',
      'silent-1: queued',
      'claimed by silent-2 (run 2)',
      'silent-2: queued',
      'claimed by silent-3 (run 3)',
      'silent-3: failed',
    ]);
    // A claim of a run that was taken back is refused.
    const late = await runnerCall('POST', `/publish/jobs/${job.id}/runner/progress`, {
      claim: claims[0],
      body: { done: 1, total: 1 },
    });
    expect(late.statusCode).to.equal(409);
    expect(late.json().code).to.equal('PUBLISH_CLAIM_LOST');
    expect(await queued()).to.match(/^publish_jobs_queued 0$/m);
  });

  it('a silent run is taken back on the minute even when no runner asks again: the row is queued, then claimed', async () => {
    const own = await newSite();
    await page(own.id, { path: '/z', title: 'Z' });
    const job = await ok(users.editor, 'POST', '/publish/jobs', { websiteId: own.id }, 202);
    const lease = (await t.services<{ leaseSeconds: number }>('publish')).leaseSeconds;
    const claimed = await runnerCall('POST', '/publish/jobs/claim', { body: { runner: 'dies' } });
    expect(claimed.json().job).to.include({ id: job.id, state: 'running', attempt: 1 });

    await t.advanceClock(lease * 1000 - 1000);
    await t.runJob('publish', 'silent-runs');
    expect(
      (await ok(users.reader, 'GET', `/publish/jobs/${job.id}`, undefined, 200)).state,
      'inside the lease',
    ).to.equal('running');
    await t.advanceClock(1001);
    await t.runJob('publish', 'silent-runs');
    const back = await ok(users.reader, 'GET', `/publish/jobs/${job.id}`, undefined, 200);
    expect(back).to.include({ state: 'queued', attempt: 1 });
    const again = await runnerCall('POST', '/publish/jobs/claim', { body: { runner: 'next' } });
    expect(again.statusCode, again.body).to.equal(200);
    expect(again.json().job).to.include({ id: job.id, state: 'running', attempt: 2, runner: 'next' });
    const done = await runnerCall('POST', `/publish/jobs/${job.id}/runner/finish`, {
      claim: again.json().claim,
      body: { outcome: 'failed', error: 'given up by the test' },
    });
    expect(done.json().job).to.include({ state: 'failed', attempt: 2 });
  });

  it('a runner that reports keeps its run past the first lease; once the lease ran out and the run was taken back, its reports and its finish are refused', async () => {
    const own = await newSite();
    await page(own.id, { path: '/z', title: 'Z' });
    const job = await ok(users.editor, 'POST', '/publish/jobs', { websiteId: own.id }, 202);
    const lease = (await t.services<{ leaseSeconds: number }>('publish')).leaseSeconds;
    const first = (await runnerCall('POST', '/publish/jobs/claim', { body: { runner: 'slow' } })).json();
    await t.advanceClock(lease * 1000 - 1000);
    const report = (claim: string) =>
      runnerCall('POST', `/publish/jobs/${job.id}/runner/progress`, { claim, body: { done: 0, total: 1 } });
    expect((await report(first.claim)).json()).to.deep.equal({ state: 'running' });
    await t.advanceClock(lease * 1000 - 1000);
    // Twice the lease after the claim, inside the one its report renewed: still its run.
    expect((await runnerCall('POST', '/publish/jobs/claim', { body: { runner: 'other' } })).statusCode).to.equal(204);
    await t.advanceClock(1001);
    const second = (await runnerCall('POST', '/publish/jobs/claim', { body: { runner: 'other' } })).json();
    expect(second.job).to.include({ id: job.id, attempt: 2 });
    expect((await report(first.claim)).json().code).to.equal('PUBLISH_CLAIM_LOST');
    const late = await runnerCall('POST', `/publish/jobs/${job.id}/runner/finish`, {
      claim: first.claim,
      body: { outcome: 'succeeded' },
    });
    expect(late.json().code).to.equal('PUBLISH_CLAIM_LOST');
    expect((await report(second.claim)).json()).to.deep.equal({ state: 'running' });
    const done = await runnerCall('POST', `/publish/jobs/${job.id}/runner/finish`, {
      claim: second.claim,
      body: { outcome: 'failed', error: 'given up by the test' },
    });
    expect(done.json().job).to.include({ state: 'failed', attempt: 2, error: 'given up by the test' });
    // The run's kernel job ended with it: nothing is handed out again.
    await t.advanceClock(lease * 1000 + 1);
    expect((await runnerCall('POST', '/publish/jobs/claim', { body: { runner: 'idle' } })).statusCode).to.equal(204);
  });

  it('a job queued before runs were kernel jobs (no run job) gets one at start and is claimed', async () => {
    const own = await newSite();
    const [row] = await t
      .db('publish_jobs')
      .insert({
        website_id: own.id,
        website_name: own.name,
        state: 'queued',
        requested_at: t.clock.now(),
        attempts_left: 3,
      })
      .returning('*');
    await t.services<{ scheduleUnscheduled(): Promise<void> }>('publish').scheduleUnscheduled();
    // Idempotent: a second start finds nothing left to schedule.
    await t.services<{ scheduleUnscheduled(): Promise<void> }>('publish').scheduleUnscheduled();
    expect((await t.db('publish_jobs').where({ id: row.id }).first()).run_job_id).to.be.a('string');
    const claimed = await runnerCall('POST', '/publish/jobs/claim', { body: { runner: 'upgrade' } });
    expect(claimed.json().job).to.include({ id: row.id, state: 'running', attempt: 1 });
    await runnerCall('POST', `/publish/jobs/${row.id}/runner/finish`, {
      claim: claimed.json().claim,
      body: { outcome: 'failed', error: 'given up by the test' },
    });
    expect((await runnerCall('POST', '/publish/jobs/claim', { body: { runner: 'idle' } })).statusCode).to.equal(204);
  });

  it('runner routes: the bearer token is the credential (401 without it or wrong; a session is not enough)', async () => {
    const claim = (headers: Record<string, string>) =>
      t.inject({ method: 'POST', url: '/publish/jobs/claim', headers, payload: { runner: 'r' } });
    for (const headers of <Record<string, string>[]>[
      {},
      { authorization: 'Bearer wrong-token-wrong-token' },
      { authorization: `Bearer ${TOKEN}x` },
      { cookie: admin.cookie },
    ]) {
      const res = await claim(headers);
      expect(res.statusCode, JSON.stringify(headers)).to.equal(401);
      expect(res.json().code).to.equal('PUBLISH_RUNNER_UNAUTHENTICATED');
    }
    const noClaim = await runnerCall('GET', `/publish/jobs/${site.id}/runner/pages`);
    expect(noClaim.statusCode).to.equal(400);
    expect(noClaim.json().field).to.equal('x-publish-claim');
    // With the token, an unknown job is the handler's 404 on every route of a run.
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const [method, url, body] of [
      ['GET', `/publish/jobs/${unknown}/runner/pages`],
      ['GET', `/publish/jobs/${unknown}/runner/page?locale=en&path=/`],
      ['POST', `/publish/jobs/${unknown}/runner/files`, { references: [] }],
      ['GET', `/publish/jobs/${unknown}/runner/files/${unknown}`],
      ['POST', `/publish/jobs/${unknown}/runner/progress`, { done: 0, total: 0 }],
      ['POST', `/publish/jobs/${unknown}/runner/finish`, { outcome: 'failed' }],
    ] as const) {
      const res = await runnerCall(method, url, { claim: 'some-claim', body });
      expect(res.statusCode, url).to.equal(404);
      expect(res.json().code, url).to.equal('PUBLISH_JOB_NOT_FOUND');
    }
  });

  it('editors: a reader follows jobs but may not queue or cancel (403), anonymous 401, unknown website 404, one job per website (409)', async () => {
    const own = await newSite();
    expect((await t.call('POST', '/publish/jobs', users.reader, { websiteId: own.id })).statusCode).to.equal(403);
    expect((await t.call('POST', '/publish/jobs', users.nobody, { websiteId: own.id })).statusCode).to.equal(403);
    expect((await t.call('POST', '/publish/jobs', null, { websiteId: own.id })).statusCode).to.equal(401);
    expect((await t.call('GET', '/publish/jobs', users.nobody)).statusCode).to.equal(403);
    const unknown = await t.call('POST', '/publish/jobs', users.editor, {
      websiteId: '00000000-0000-4000-8000-000000000000',
    });
    expect(unknown.statusCode).to.equal(404);
    expect(unknown.json().code).to.equal('WEBSITE_NOT_FOUND');
    const bad = await t.call('POST', '/publish/jobs', users.editor, { websiteId: 'nope' });
    expect(bad.statusCode).to.equal(400);
    expect(bad.json().field).to.equal('websiteId');

    const job = await ok(users.editor, 'POST', '/publish/jobs', { websiteId: own.id }, 202);
    const twice = await t.call('POST', '/publish/jobs', users.editor, { websiteId: own.id });
    expect(twice.statusCode).to.equal(409);
    expect(twice.json().code).to.equal('PUBLISH_JOB_ACTIVE');
    expect(await auditRows(t, 'website.publish', own.id)).to.have.length(1);
    expect((await t.call('POST', `/publish/jobs/${job.id}/cancel`, users.reader)).statusCode).to.equal(403);
    const list = await ok(users.reader, 'GET', `/publish/jobs?websiteId=${own.id}`, undefined, 200);
    expect(list).to.deep.include({ total: 1 });
    expect(list.jobs[0]).to.include({ id: job.id, state: 'queued' });
    await ok(users.editor, 'POST', `/publish/jobs/${job.id}/cancel`, undefined, 200);
  });
});

describe('publish jobs without PUBLISH_RUNNER_TOKEN', function () {
  this.timeout(60_000);

  it('the runner routes answer 503 PUBLISH_RUNNER_DISABLED; editors may still queue', async () => {
    const t = await startTestKernel({ plugins: ['identity', 'assets', 'content', 'publish'] });
    try {
      const res = await t.inject({
        method: 'POST',
        url: '/publish/jobs/claim',
        headers: { authorization: `Bearer ${TOKEN}` },
        payload: { runner: 'r' },
      });
      expect(res.statusCode).to.equal(503);
      expect(res.json().code).to.equal('PUBLISH_RUNNER_DISABLED');
      const admin = await t.admin();
      const site = await t.call('POST', '/cms-one/websites', admin, {
        name: 'N',
        rootPath: '/no-runner',
        locales: ['en'],
      });
      expect((await t.call('POST', '/publish/jobs', admin, { websiteId: site.json().id })).statusCode).to.equal(202);
    } finally {
      await t.close();
    }
  });
});
