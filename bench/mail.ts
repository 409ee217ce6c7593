/**
 * Mail: (1) what queueing a mail adds to the request that causes it: p50 of public form submits whose
 * saved `notify` block queues a notification (outbox row in the submit's transaction) against the
 * same submits without `notify`; (2) 1,000 queued mails delivered to a local SMTP server (STARTTLS,
 * AUTH, pooled connections) by the outbox's job queue (`mail.outbox`): total time from the commit
 * that queued them (target < 10 s), mails/s, and the database statements per mail (counted at the
 * driver while the queue drains: the job engine's and the mail plugin's).
 *
 * Everything runs in this process: a kernel with data, assets, content, forms and mail (requests
 * through `inject`) that queues but does not send, a second kernel on the same database that works
 * the queue (idle until the mails commit), and the SMTP server (`smtp-server`, messages not parsed). Figures on a shared
 * machine move by tens of percent: read the ratio first. Run with `npm run bench:mail`.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { teardownTestDatabases } from '../test/helpers/database.ts';
import { secondHandle } from '../test/helpers/events-kernel.ts';
import { startTestKernel, type TestKernel } from '../test/helpers/kernel.ts';
import { startSmtpCatcher } from '../test/helpers/smtp-catcher.ts';

const MAILS = Number(process.env.BENCH_MAILS ?? 1000);
const SUBMITS = Number(process.env.BENCH_SUBMITS ?? 400);
const CONCURRENCY = process.env.BENCH_WORKER_CONCURRENCY ?? '4';
const WARMUP = 50;

/** The mail plugin's job queue (named here: no import of plugin internals). */
const OUTBOX_QUEUE = 'mail.outbox';

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** `count` submits one after the other (the added latency, not throughput, is measured); ms each. */
async function submits(t: TestKernel, classId: string, count: number, notify: unknown, tag: string) {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    // A fresh window for the submit limit (per address) and the 3-an-hour notification limit.
    await t.advanceClock(3600_001);
    const started = performance.now();
    const res = await t.inject({
      method: 'POST',
      url: `/public/forms/${classId}/submit`,
      payload: { attributes: { email: `${tag}${i}@example.test`, message: 'Hello' }, ...(notify ? { notify } : {}) },
      headers: { 'x-forwarded-for': '10.1.0.1' },
    });
    latencies.push(performance.now() - started);
    if (res.statusCode !== 201) throw new Error(`submit failed: ${res.statusCode} ${res.body}`);
  }
  return latencies.sort((a, b) => a - b);
}

/** Counts the statements every pg client of this process sends until `stop()`. */
function countStatements() {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  let n = 0;
  proto.query = function (this: pg.Client, ...args: unknown[]) {
    n += 1;
    return original.apply(this, args);
  };
  return {
    stop: () => {
      proto.query = original;
      return n;
    },
  };
}

async function main(): Promise<void> {
  const smtp = await startSmtpCatcher({ parse: false });
  const t = await startTestKernel({
    plugins: ['data', 'assets', 'content', 'forms', 'mail'],
    env: {
      TRUST_PROXY: '1',
      MAIL_WORKER_ENABLED: '0',
      FORM_SUBMIT_RATE_LIMIT_PER_WINDOW: '1000000',
    },
  });
  try {
    const admin = await t.admin();
    const put = await t.call('PUT', '/mail-settings', admin, {
      provider: 'smtp',
      smtp: {
        host: '127.0.0.1',
        port: smtp.port,
        user: smtp.user,
        password: smtp.password,
        allowInvalidCertificate: true,
      },
      from: 'bench@example.test',
    });
    if (put.statusCode !== 200) throw new Error(`mail settings: ${put.body}`);
    const cls = await t.call('POST', '/data-classes', admin, {
      name: 'bench_leads',
      fields: [
        { name: 'email', type: 'text', required: true },
        { name: 'message', type: 'text' },
      ],
    });
    const classId = cls.json().id as string;
    const site = await t.call('POST', '/cms-one/websites', admin, {
      name: 'Bench',
      rootPath: '/bench',
      locales: ['en'],
    });
    const notify = { to: 'owner@example.test', subject: 'New lead' };
    const page = await t.call('POST', '/cms-one/pages', admin, {
      websiteId: site.json().id,
      locale: 'en',
      path: '/contact',
      title: 'Contact',
      published: true,
      content: { type: 'section', children: [{ type: 'form', props: { classId, notify } }] },
    });
    if (page.statusCode !== 201) throw new Error(`page: ${page.body}`);

    // (1) The request that queues a mail, against the same request without: interleaved rounds.
    await submits(t, classId, WARMUP, notify, 'w');
    await submits(t, classId, WARMUP, undefined, 'v');
    const without: number[] = [];
    const withMail: number[] = [];
    for (let round = 0; round < 4; round++) {
      without.push(...(await submits(t, classId, SUBMITS / 4, undefined, `a${round}-`)));
      withMail.push(...(await submits(t, classId, SUBMITS / 4, notify, `b${round}-`)));
    }
    without.sort((a, b) => a - b);
    withMail.sort((a, b) => a - b);
    // Those notifications are not part of the delivery run (nor their jobs).
    await t.db('mail_outbox').delete();
    await t.db.raw('DELETE FROM pgboss.job WHERE name = ?', [OUTBOX_QUEUE]);

    // (1b) The queueing call alone, inside the caller's transaction (what any request pays for a mail).
    const port0 = t.kernel.resolve('mail');
    const calls: number[] = [];
    for (let i = 0; i < SUBMITS + WARMUP; i++)
      await t.db.transaction(async (trx) => {
        const started = performance.now();
        await port0.send({ to: `q${i}@example.test`, subject: 'Queued', text: 'Hello', kind: 'bench' }, { trx });
        if (i >= WARMUP) calls.push(performance.now() - started);
      });
    calls.sort((a, b) => a - b);
    await t.db('mail_outbox').delete();
    await t.db.raw('DELETE FROM pgboss.job WHERE name = ?', [OUTBOX_QUEUE]);

    // (2) 1,000 mails queued in one transaction; the sending kernel drains them from its commit on.
    const sender = await startTestKernel({
      plugins: ['data', 'assets', 'content', 'forms', 'mail'],
      database: secondHandle(t.db),
      clock: t.clock,
      env: { MAIL_WORKER_CONCURRENCY: CONCURRENCY },
    });
    let seconds: number;
    let sent: number;
    let used: NodeJS.CpuUsage;
    try {
      const port = t.kernel.resolve('mail');
      let statements: ReturnType<typeof countStatements> | undefined;
      let cpu: NodeJS.CpuUsage | undefined;
      let started = 0;
      await t.db.transaction(async (trx) => {
        for (let j = 0; j < MAILS; j++)
          await port.send(
            { to: `reader${j}@example.test`, subject: `Issue ${j}`, text: `Hello ${j}`, html: `<p>Hello ${j}</p>` },
            { trx },
          );
        // The commit (its notice wakes the sender's runner) is the start.
        statements = countStatements();
        cpu = process.cpuUsage();
        started = performance.now();
      });
      await smtp.waitFor(MAILS, 180_000);
      // Every try ends once its row is recorded: settled means every row says sent.
      await sender.kernel.resolve('jobs').settled(OUTBOX_QUEUE);
      seconds = (performance.now() - started) / 1000;
      sent = statements!.stop();
      used = process.cpuUsage(cpu);
    } finally {
      await sender.close();
    }
    const cpuMsPerMail = (used.user + used.system) / 1000 / MAILS;
    const [{ left }] = await t.db('mail_outbox').whereNot({ status: 'sent' }).count<{ left: string }[]>({ left: '*' });
    if (Number(left) !== 0) throw new Error(`${left} mails not recorded as sent`);

    const ms = (v: number) => `${v.toFixed(2)} ms`;
    console.log(`load average before/after: ${os.loadavg()[0]!.toFixed(1)} (1 min), ${os.cpus().length} cores`);
    console.log('\n(1) public form submit, p50 / p95 (one at a time):');
    console.log(`  without notify:           ${ms(percentile(without, 50))} / ${ms(percentile(without, 95))}`);
    console.log(`  with a saved notify:      ${ms(percentile(withMail, 50))} / ${ms(percentile(withMail, 95))}`);
    const added = percentile(withMail, 50) - percentile(without, 50);
    console.log(`  added by queueing a mail: ${ms(added)} p50 (target < 2 ms) ${added < 2 ? 'MET' : 'MISSED'}`);
    console.log(
      `  mail.send({..}, { trx }) alone: ${ms(percentile(calls, 50))} p50 / ${ms(percentile(calls, 95))} p95 (template, settings, one INSERT)`,
    );
    console.log(
      `\n(2) ${MAILS} queued mails to the local SMTP server (queue concurrency ${CONCURRENCY}, as many pooled SMTP connections):`,
    );
    console.log(`  all sent in ${seconds.toFixed(2)} s (target < 10 s) ${seconds < 10 ? 'MET' : 'MISSED'}`);
    console.log(`  ${(MAILS / seconds).toFixed(0)} mails/s`);
    console.log(
      `  ${cpuMsPerMail.toFixed(2)} ms of this process's CPU per mail (sender and SMTP server together): at most ${(1000 / cpuMsPerMail).toFixed(0)} mails/s on one free core`,
    );
    console.log(
      `  ${(sent / MAILS).toFixed(2)} database statements per mail (job fetches and completions, row reads and outcome records, batched per round; settings are cached; ${sent} in all)`,
    );
  } finally {
    await t.close();
    await smtp.close();
    await teardownTestDatabases();
  }
}

await main();
