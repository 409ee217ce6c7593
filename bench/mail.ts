/**
 * Mail: (1) what queueing a mail adds to the request that causes it: p50 of public form submits whose
 * saved `notify` block queues a notification (outbox row in the submit's transaction) against the
 * same submits without `notify`; (2) 1,000 queued mails delivered to a local SMTP server (STARTTLS,
 * AUTH, pooled connections) by the outbox worker: total time (target < 10 s), mails/s, and the
 * outbox's database statements per mail (counted at the driver while the worker drains).
 *
 * Everything runs in this process: a kernel with data, assets, content, forms and mail (requests
 * through `inject`), and the SMTP server (`smtp-server`, messages not parsed). Figures on a shared
 * machine move by tens of percent: read the ratio first. Run with `npm run bench:mail`.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { teardownTestDatabases } from '../test/helpers/database.ts';
import { startTestKernel, type TestKernel } from '../test/helpers/kernel.ts';
import { startSmtpCatcher } from '../test/helpers/smtp-catcher.ts';

const MAILS = Number(process.env.BENCH_MAILS ?? 1000);
const SUBMITS = Number(process.env.BENCH_SUBMITS ?? 400);
const CONCURRENCY = process.env.BENCH_WORKER_CONCURRENCY ?? '4';
const WARMUP = 50;

/** What this benchmark reads of the mail plugin's services (no import of plugin internals). */
interface MailWorkerHandle {
  worker: { start(): void; stop(): Promise<void> };
}

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
      MAIL_WORKER_CONCURRENCY: CONCURRENCY,
      MAIL_POLL_MS: '1000',
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
    // Those notifications are not part of the delivery run.
    await t.db('mail_outbox').delete();

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

    // (2) 1,000 queued mails, then the worker drains them to the SMTP server.
    const port = t.kernel.resolve('mail');
    for (let i = 0; i < MAILS; i += 50)
      await t.db.transaction(async (trx) => {
        for (let j = i; j < Math.min(MAILS, i + 50); j++)
          await port.send(
            { to: `reader${j}@example.test`, subject: `Issue ${j}`, text: `Hello ${j}`, html: `<p>Hello ${j}</p>` },
            { trx },
          );
      });
    const statements = countStatements();
    const cpu = process.cpuUsage();
    const started = performance.now();
    t.services<MailWorkerHandle>('mail').worker.start();
    await smtp.waitFor(MAILS, 180_000);
    // Stopping waits for the sends in flight and records their outcomes: then every row says sent.
    await t.services<MailWorkerHandle>('mail').worker.stop();
    const seconds = (performance.now() - started) / 1000;
    const sent = statements.stop();
    const used = process.cpuUsage(cpu);
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
      `\n(2) ${MAILS} queued mails to the local SMTP server (worker concurrency ${CONCURRENCY}, as many pooled SMTP connections):`,
    );
    console.log(`  all sent in ${seconds.toFixed(2)} s (target < 10 s) ${seconds < 10 ? 'MET' : 'MISSED'}`);
    console.log(`  ${(MAILS / seconds).toFixed(0)} mails/s`);
    console.log(
      `  ${cpuMsPerMail.toFixed(2)} ms of this process's CPU per mail (sender and SMTP server together): at most ${(1000 / cpuMsPerMail).toFixed(0)} mails/s on one free core`,
    );
    console.log(
      `  ${(sent / MAILS).toFixed(2)} database statements per mail (batched claims and outcome records; settings are cached; ${sent} in all)`,
    );
  } finally {
    await t.close();
    await smtp.close();
    await teardownTestDatabases();
  }
}

await main();
