import { expect } from 'chai';
import { expectNoLeaks } from '../../../test/helpers/answer-leaks.ts';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import type { PublishJobs } from '../services/jobs.ts';

const TOKEN = 'publish-runner-token-0123456789';

/**
 * A job's claim is stored as a hash and its runs are scheduled by a kernel job; neither the hash nor
 * that job's id is anyone's business. The editor routes and the runner routes never answer them, and
 * the runner routes that answer the service's own result do so by their schema.
 */
describe('publish: no internal column reaches a client', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: TestUser;
  let websiteId: string;

  const runner = (method: string, url: string, body?: unknown, claim?: string) =>
    t.inject({
      method: method as 'POST',
      url,
      headers: { authorization: `Bearer ${TOKEN}`, ...(claim ? { 'x-publish-claim': claim } : {}) },
      payload: body as object,
    });
  /** The stored claim hash and kernel job of a job: the values no answer may carry. */
  const internals = async (id: string) => {
    const row = await t.db('publish_jobs').where({ id }).first();
    return [row.claim_hash, row.run_job_id].filter((v): v is string => typeof v === 'string');
  };

  before(async () => {
    t = await startTestKernel({
      plugins: ['identity', 'assets', 'content', 'publish'],
      env: { PUBLISH_RUNNER_TOKEN: TOKEN },
    });
    admin = await t.admin();
    const site = await t.call('POST', '/cms-one/websites', admin, {
      name: 'Leaks',
      rootPath: '/leaks',
      locales: ['en'],
    });
    expect(site.statusCode, site.body).to.equal(201);
    websiteId = site.json().id;
    const page = await t.call('POST', '/cms-one/pages', admin, {
      websiteId,
      locale: 'en',
      path: '/',
      title: 'Home',
      published: true,
      content: { type: 'section', children: [{ type: 'p', text: 'Hello' }] },
    });
    expect(page.statusCode, page.body).to.equal(201);
  });
  after(() => t?.close());

  it('answers the editor and runner routes without a claim hash or a kernel job id', async () => {
    const queued = await t.call('POST', '/publish/jobs', admin, { websiteId });
    expect(queued.statusCode, queued.body).to.equal(202);
    const id = queued.json().id as string;
    const claimed = await runner('POST', '/publish/jobs/claim', { runner: 'leak-check' });
    expect(claimed.statusCode, claimed.body).to.equal(200);
    const claim = claimed.json().claim as string;
    const forbidden = await internals(id);
    expect(forbidden).to.have.length(2);
    const answers = [
      queued,
      claimed,
      await runner('GET', `/publish/jobs/${id}/runner/pages`, undefined, claim),
      await runner('POST', `/publish/jobs/${id}/runner/files`, { references: [] }, claim),
      await runner(
        'POST',
        `/publish/jobs/${id}/runner/progress`,
        { done: 1, total: 1, logs: [{ level: 'info', message: 'one page' }] },
        claim,
      ),
      await runner('POST', `/publish/jobs/${id}/runner/finish`, { outcome: 'failed', error: 'leak check' }, claim),
      await t.call('GET', '/publish/jobs', admin),
      await t.call('GET', `/publish/jobs/${id}`, admin),
      await t.call('GET', `/publish/jobs/${id}/logs`, admin),
      await t.call('POST', `/publish/jobs/${id}/retry`, admin),
    ];
    const next = answers.at(-1)!.json().id as string;
    answers.push(await t.call('POST', `/publish/jobs/${next}/cancel`, admin));
    for (const res of answers) expect(res.statusCode, res.body).to.be.oneOf([200, 202]);
    expectNoLeaks(answers, { keys: ['claim_hash', 'claimHash', 'run_job_id', 'runJobId'], values: forbidden });
  });

  it('answers the runner routes by their schemas, whatever else the service returns', async () => {
    const queued = await t.call('POST', '/publish/jobs', admin, { websiteId });
    expect(queued.statusCode, queued.body).to.equal(202);
    const id = queued.json().id as string;
    const claimed = await runner('POST', '/publish/jobs/claim', { runner: 'leak-check' });
    expect(claimed.statusCode, claimed.body).to.equal(200);
    const claim = claimed.json().claim as string;
    const [claimHash, runJobId] = await internals(id);

    const jobs = t.services<PublishJobs>('publish');
    const { pages, describeFiles } = jobs;
    const extra = { claim_hash: claimHash, run_job_id: runJobId };
    jobs.pages = async (run) => {
      const out = await pages.call(jobs, run);
      return { ...out, ...extra, website: { ...out.website, ...extra } };
    };
    jobs.describeFiles = async (references) => {
      const out = await describeFiles.call(jobs, references);
      return {
        ...out,
        ...extra,
        files: [{ id, path: 'x.png', file: 'x.png', size: 1, mimeType: 'image/png', ...extra }],
      };
    };
    try {
      const answers = [
        await runner('GET', `/publish/jobs/${id}/runner/pages`, undefined, claim),
        await runner('POST', `/publish/jobs/${id}/runner/files`, { references: [] }, claim),
      ];
      for (const res of answers) expect(res.statusCode, res.body).to.equal(200);
      expect(answers[0].json()).to.have.keys('website', 'pages', 'skipped');
      expect(answers[0].json().pages).to.have.length(1);
      expect(answers[1].json().files[0]).to.have.keys('id', 'path', 'file', 'size', 'mimeType');
      expectNoLeaks(answers, { keys: ['claim_hash', 'run_job_id'], values: [claimHash!, runJobId!] });
    } finally {
      Object.assign(jobs, { pages, describeFiles });
      await runner('POST', `/publish/jobs/${id}/runner/finish`, { outcome: 'cancelled' }, claim);
    }
  });
});
