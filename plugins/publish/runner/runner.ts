import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../../kernel/index.ts';
import type { PublishRunnerSettings } from './settings.ts';
import { type BuildTarget, bucketTarget, folderTarget } from './targets.ts';

type LogLine = { level: 'info' | 'warn' | 'error'; message: string };
type Outcome = 'idle' | 'succeeded' | 'failed' | 'cancelled';

interface Claimed {
  job: { id: string; websiteId: string; websiteName: string; attempt: number };
  claim: string;
  leaseSeconds: number;
}

/** An answer of core-api the runner cannot go on from. */
class RunnerCallError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** `/dam-asset/...` references in a page's HTML (attributes, `srcset` entries, CSS `url()`). */
function assetReferences(html: string, into: Set<string>): void {
  for (const match of html.matchAll(/\/dam-asset\/[^"'\s<>()]+/g)) into.add(match[0].replace(/&amp;/g, '&'));
}

/** Runs `work` over `items`, `parallel` at a time, in order of start; the first failure stops the rest. */
async function eachLimited<T>(items: readonly T[], parallel: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (!failed && next < items.length) {
      const item = items[next++];
      try {
        await work(item);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  // Every lane settles before the failure is passed on, so nothing still writes when the caller cleans up.
  const settled = await Promise.allSettled(Array.from({ length: Math.min(parallel, items.length) }, lane));
  const failure = settled.find((r) => r.status === 'rejected');
  if (failure) throw (failure as PromiseRejectedResult).reason;
}

/** A job cancelled by an editor, seen at a report: the run stops and ends `cancelled`. */
class Cancelled extends Error {}

/**
 * `cms publish-runner`: the process that carries out publish jobs (the spec's "publisher service").
 * It holds no database: it claims the oldest queued job from core-api's runner routes (bearer
 * PUBLISH_RUNNER_TOKEN), fetches each page's HTML and the public files the pages use, writes them into
 * a staging folder, and then puts the build in place, in a folder (PUBLISH_OUTPUT_DIR) or a bucket
 * (PUBLISH_S3_BUCKET). Progress and log lines go back to the job as it works; a cancel asked by an
 * editor is seen at the next report. Routes, states and layout: plugins/publish/README.md.
 */
export class PublishRunner {
  private readonly target: BuildTarget;
  private readonly name = `${os.hostname()}:${process.pid}`;

  constructor(
    private readonly settings: PublishRunnerSettings,
    private readonly log: Logger,
  ) {
    this.target = settings.PUBLISH_OUTPUT_DIR
      ? folderTarget(path.resolve(settings.PUBLISH_OUTPUT_DIR))
      : bucketTarget(settings, log);
  }

  private url(p: string): string {
    return `${this.settings.PUBLISH_API_URL.replace(/\/$/, '')}${p}`;
  }

  private async call(method: string, p: string, claim?: string, body?: unknown): Promise<Response> {
    const res = await fetch(this.url(p), {
      method,
      headers: {
        authorization: `Bearer ${this.settings.PUBLISH_RUNNER_TOKEN}`,
        ...(claim ? { 'x-publish-claim': claim } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 400) {
      const text = await res.text();
      let code = 'RUNNER_CALL_FAILED';
      let message = text.slice(0, 300);
      try {
        ({ code, message } = JSON.parse(text));
      } catch {
        // not the error body: keep the text
      }
      throw new RunnerCallError(res.status, code, `${method} ${p}: ${res.status} ${code}: ${message}`);
    }
    return res;
  }

  /** Claims one job and carries it out; `idle` when the queue is empty. */
  async runOnce(): Promise<Outcome> {
    const res = await this.call('POST', '/publish/jobs/claim', undefined, { runner: this.name });
    if (res.status === 204) return 'idle';
    const claimed = (await res.json()) as Claimed;
    return this.build(claimed);
  }

  /** Claims and builds until `signal` aborts (the job in hand is finished first). */
  async loop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      let outcome: Outcome = 'idle';
      try {
        outcome = await this.runOnce();
      } catch (err) {
        this.log.error({ err }, 'publish runner: could not reach core-api');
      }
      if (outcome === 'idle')
        await sleep(this.settings.PUBLISH_RUNNER_POLL_SECONDS * 1000, undefined, { signal }).catch(() => undefined);
    }
  }

  private async build({ job, claim, leaseSeconds }: Claimed): Promise<Outcome> {
    const base = `/publish/jobs/${job.id}/runner`;
    const logs: LogLine[] = [];
    const progress = { done: 0, total: 0 };
    let reportedAt = Date.now();
    const reportEveryMs = Math.min(2000, (leaseSeconds * 1000) / 4);
    const report = async (force = false) => {
      if (!force && Date.now() - reportedAt < reportEveryMs && logs.length < 100) return;
      reportedAt = Date.now();
      const sent = logs.splice(0, 200);
      const answer = await this.call('POST', `${base}/progress`, claim, { ...progress, logs: sent });
      if (((await answer.json()) as { state: string }).state === 'cancelling') throw new Cancelled();
    };
    let staging = '';
    /** The file inside the staging folder; a name that would leave it is refused. */
    const place = (file: string) => {
      const full = path.resolve(staging, file);
      if (!full.startsWith(staging + path.sep)) throw new Error(`refused a file outside the build: ${file}`);
      return full;
    };
    this.log.info({ jobId: job.id, website: job.websiteName }, 'publish runner: building');
    try {
      // Beside the folder of the builds, so putting a build in place is a rename on one file system.
      const stagingParent = this.settings.PUBLISH_OUTPUT_DIR
        ? path.resolve(this.settings.PUBLISH_OUTPUT_DIR)
        : os.tmpdir();
      await fs.mkdir(stagingParent, { recursive: true });
      staging = await fs.mkdtemp(path.join(stagingParent, '.build-'));
      const plan = (await (await this.call('GET', `${base}/pages`, claim)).json()) as {
        pages: Array<{ locale: string; path: string; file: string }>;
        skipped: Array<{ locale: string; path: string; reason: string }>;
      };
      for (const s of plan.skipped)
        logs.push({ level: 'warn', message: `${s.path} (${s.locale}) left out: ${s.reason}` });
      progress.total = plan.pages.length;
      logs.push({ level: 'info', message: `${plan.pages.length} pages to render` });
      await report(true);

      const references = new Set<string>();
      let pages = 0;
      await eachLimited(plan.pages, this.settings.PUBLISH_RUNNER_PARALLEL, async (page) => {
        const query = new URLSearchParams({ locale: page.locale, path: page.path }).toString();
        try {
          const res = await this.call('GET', `${base}/page?${query}`, claim);
          const html = Buffer.from(await res.arrayBuffer());
          const full = place(page.file);
          await fs.mkdir(path.dirname(full), { recursive: true });
          await fs.writeFile(full, html);
          assetReferences(html.toString('utf8'), references);
          pages++;
        } catch (err) {
          if (!(err instanceof RunnerCallError && err.code === 'PAGE_NOT_PUBLISHED')) throw err;
          logs.push({
            level: 'warn',
            message: `${page.path} (${page.locale}) was unpublished during the build: left out`,
          });
        }
        progress.done++;
        await report();
      });

      const found = (await (
        await this.call('POST', `${base}/files`, claim, { references: [...references] })
      ).json()) as {
        files: Array<{ id: string; path: string; file: string; size: number }>;
        skipped: Array<{ path: string; reason: string }>;
      };
      for (const s of found.skipped) logs.push({ level: 'warn', message: `file ${s.path} left out: ${s.reason}` });
      progress.total += found.files.length;
      logs.push({ level: 'info', message: `${pages} pages written; ${found.files.length} files to copy` });
      await report(true);
      await eachLimited(found.files, this.settings.PUBLISH_RUNNER_PARALLEL, async (file) => {
        const res = await this.call('GET', `${base}/files/${file.id}`, claim);
        const full = place(file.file);
        await fs.mkdir(path.dirname(full), { recursive: true });
        await pipeline(Readable.fromWeb(res.body as WebReadableStream), (await fs.open(full, 'w')).createWriteStream());
        progress.done++;
        await report();
      });
      await report(true);

      const output = await this.target.commit(staging, job.websiteId);
      await fs.rm(staging, { recursive: true, force: true });
      await this.call('POST', `${base}/finish`, claim, {
        outcome: 'succeeded',
        output,
        pages,
        files: found.files.length,
        logs: logs.splice(0, 200),
      });
      this.log.info({ jobId: job.id, output }, 'publish runner: build in place');
      return 'succeeded';
    } catch (err) {
      if (staging) await fs.rm(staging, { recursive: true, force: true });
      const cancelled = err instanceof Cancelled;
      if (err instanceof RunnerCallError && err.code === 'PUBLISH_CLAIM_LOST') {
        this.log.warn({ jobId: job.id }, 'publish runner: the job was taken back; build dropped');
        return 'failed';
      }
      const message = (err as Error).message.slice(0, 1900);
      if (!cancelled) this.log.error({ err, jobId: job.id }, 'publish runner: build failed');
      await this.call('POST', `${base}/finish`, claim, {
        outcome: cancelled ? 'cancelled' : 'failed',
        error: cancelled ? undefined : message,
        logs: [
          ...logs.splice(0, 199),
          cancelled ? { level: 'warn', message: 'stopped: cancelled' } : { level: 'error', message },
        ],
      }).catch((e: Error) => this.log.error({ err: e, jobId: job.id }, 'publish runner: could not report the end'));
      return cancelled ? 'cancelled' : 'failed';
    }
  }
}
