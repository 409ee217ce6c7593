import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { discoverPlugins, PROJECT_ROOT } from '../../../kernel/loader.ts';
import { secondHandle } from '../../../test/helpers/events-kernel.ts';
import { eventually, startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';
import { freePort } from '../../../test/helpers/ports.ts';
import { startSmtpCatcher, type SmtpCatcher } from '../../../test/helpers/smtp-catcher.ts';
import { OUTBOX_QUEUE } from '../services/outbox.ts';
import { drainOutbox } from './outbox-drain.ts';

const KEY = 'a1'.repeat(32);
const PLUGINS = ['identity', 'content', 'mail'];

/**
 * Faults: a `cms start` process killed mid-drain and started again, two processes on one outbox, a
 * process stopping mid-send, the SMTP server down then up (last: it moves this kernel's clock, which a
 * child process on the system clock would not follow). This kernel queues and configures; the mails
 * are sent by other processes on its database.
 */
describe('mail: outbox under faults', function () {
  this.timeout(120_000);
  let t: TestKernel;
  let smtp: SmtpCatcher;

  before(async () => {
    smtp = await startSmtpCatcher({ parse: true });
    // This kernel queues and configures; it does not work the outbox queue.
    t = await startTestKernel({
      plugins: PLUGINS,
      env: { MAIL_WORKER_ENABLED: '0', MAIL_SETTINGS_ENCRYPTION_KEY: KEY },
    });
    const admin = await t.admin();
    const res = await t.call('PUT', '/mail-settings', admin, {
      provider: 'smtp',
      smtp: {
        host: '127.0.0.1',
        port: smtp.port,
        user: smtp.user,
        password: smtp.password,
        allowInvalidCertificate: true,
      },
      from: 'faults@example.test',
    });
    expect(res.statusCode, res.body).to.equal(200);
  });
  after(async () => {
    await t?.close();
    await smtp?.close();
  });

  const queue = (to: string, subject = 'Fault test') =>
    t.kernel.resolve('mail').send({ to, subject, text: `to ${to}`, kind: 'probe' });
  const rowOf = (to: string) => t.db('mail_outbox').whereRaw('recipients @> array[?]::text[]', [to]).first();
  const receivedBy = (to: string) => smtp.received.filter((m) => m.envelope.to.includes(to));

  /** A `cms start` process of this test's plugins on this test's database, sending the outbox. */
  const startChild = async (dataDir: string, port: number) => {
    const url = (t.db.client as { connectionSettings: { connectionString: string } }).connectionSettings
      .connectionString;
    const child = spawn('node', [path.join(PROJECT_ROOT, 'bin', 'cms.js'), 'start', '--service', 'core-api'], {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        DATABASE_URL: url,
        CMS_DATA_DIR: dataDir,
        // Only this test's plugins (the others would add tables and jobs this test does not need).
        CMS_DISABLED_PLUGINS: (await discoverPlugins())
          .map((p) => p.id)
          .filter((id) => !PLUGINS.includes(id))
          .join(','),
        MAIL_SETTINGS_ENCRYPTION_KEY: KEY,
        MAIL_WORKER_CONCURRENCY: '4',
        // A try may take 6 s: a try of a dead process is taken back 12 s after it began.
        MAIL_SEND_TIMEOUT_SECONDS: '3',
        JOBS_SUPERVISE_SECONDS: '1',
        PORT: String(port),
        HOST: '127.0.0.1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (c) => (output += c));
    child.stderr!.on('data', (c) => (output += c));
    await eventually(
      async () => (await fetch(`http://127.0.0.1:${port}/auth/me`).catch(() => undefined)) !== undefined,
      { timeoutMs: 60_000, what: `the child to listen (${output})` },
    );
    return { child, output: () => output };
  };
  const killed = (child: ChildProcess) =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
      child.once('exit', resolve);
      child.kill('SIGKILL');
    });

  it('kill -9 mid-drain, then a restart: every mail is delivered; only a mail in flight at the kill may go twice', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cms-mail-kill-'));
    const port = await freePort();
    const children: ChildProcess[] = [];
    try {
      const first = await startChild(dataDir, port);
      children.push(first.child);
      const recipients = Array.from({ length: 120 }, (_, i) => `kill-${i}@example.test`);
      // The 31st and 32nd messages are held by the server: two tries are surely running at the kill.
      smtp.answerNext(...Array<'accept'>(30).fill('accept'), 'hold', 'hold');
      const held = smtp.held();
      await t.db.transaction(async (trx) => {
        for (const to of recipients)
          await t.kernel.resolve('mail').send({ to, subject: 'Drain', text: `to ${to}`, kind: 'probe' }, { trx });
      });
      await eventually(() => smtp.held() === held + 2, {
        timeoutMs: 60_000,
        what: `two held sends (${first.output()})`,
      });
      await killed(first.child);

      // The moment of the kill: part sent, the rest still queued, the held tries still running.
      const rows = () => t.db('mail_outbox').whereRaw("recipients[1] like 'kill-%'");
      const atKill = await rows();
      const pending = atKill.filter((r) => r.status === 'queued').map((r) => r.to_addresses[0]);
      expect(pending.length).to.be.above(2);
      expect(atKill.filter((r) => r.status === 'sent').length).to.be.above(10);
      const { rows: running } = await t.db.raw(
        "select count(*)::int as n from pgboss.job where name = 'mail.outbox' and state = 'active'",
      );
      expect(running[0].n).to.be.at.least(2);
      // Accepted by the server but not recorded as sent when the process died: the at-least-once case.
      const inFlight = new Set(pending.filter((to) => receivedBy(to).length > 0));

      const second = await startChild(dataDir, port);
      children.push(second.child);
      await eventually(async () => (await rows()).every((r) => r.status === 'sent'), {
        timeoutMs: 60_000,
        what: `every mail sent after the restart (${second.output()})`,
      });
      const after = await rows();
      expect(after).to.have.length(recipients.length);
      // A try cut short by the crash runs again with its own attempt number: no try was spent.
      expect(new Set(after.map((r) => r.attempts))).to.deep.equal(new Set([1]));
      for (const to of recipients) expect(receivedBy(to).length, to).to.be.at.least(1);
      const twice = recipients.filter((to) => receivedBy(to).length > 1);
      expect(
        twice.filter((to) => !inFlight.has(to)),
        'sent twice but not in flight at the kill',
      ).to.deep.equal([]);
      // A repeat is the same message: its Message-ID lets the receiver drop it.
      for (const to of twice) expect(new Set(receivedBy(to).map((m) => m.parsed.messageId)).size).to.equal(1);
    } finally {
      for (const child of children) await killed(child);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('two processes draining one outbox send every mail exactly once', async () => {
    const others: TestKernel[] = [];
    try {
      for (let i = 0; i < 2; i++)
        others.push(
          await startTestKernel({
            plugins: PLUGINS,
            database: secondHandle(t.db),
            // The same clock: rows are due by the time of the kernel that queued them.
            clock: t.clock,
            env: { MAIL_WORKER_CONCURRENCY: '4', MAIL_SETTINGS_ENCRYPTION_KEY: KEY },
          }),
        );
      const before = smtp.received.length;
      const recipients = Array.from({ length: 60 }, (_, i) => `pair-${i}@example.test`);
      // Each commit's notice wakes both processes' runners.
      for (const to of recipients) await queue(to);
      await smtp.waitFor(before + 60, 60_000);
      await eventually(async () => {
        const { rows } = await t.db.raw(
          "select count(*)::int as n from mail_outbox where status = 'sent' and recipients[1] like 'pair-%'",
        );
        return rows[0].n === 60;
      });
      const got = smtp.received.slice(before);
      expect(got).to.have.length(60);
      expect(new Set(got.map((m) => m.parsed.messageId)).size).to.equal(60);
      expect(new Set(got.map((m) => m.envelope.to[0])).size).to.equal(60);
      const attempts = await t.db('mail_outbox').whereRaw("recipients[1] like 'pair-%'").max({ n: 'attempts' });
      expect(attempts[0].n).to.equal(1);
    } finally {
      for (const k of others) await k.close();
    }
  });

  it('a process that stops finishes its tries in flight and leaves the mails it had not started to others', async () => {
    const other = await startTestKernel({
      plugins: PLUGINS,
      database: secondHandle(t.db),
      clock: t.clock,
      env: {
        // One SMTP connection, four tries at once: one sends, three wait for the connection.
        MAIL_WORKER_CONCURRENCY: '1',
        MAIL_SEND_TIMEOUT_SECONDS: '3',
        MAIL_SETTINGS_ENCRYPTION_KEY: KEY,
      },
    });
    try {
      const held = smtp.held();
      smtp.answerNext('hold');
      const recipients = Array.from({ length: 6 }, (_, i) => `stop-${i}@example.test`);
      await t.db.transaction(async (trx) => {
        for (const to of recipients)
          await t.kernel.resolve('mail').send({ to, subject: 'Stop', text: `to ${to}`, kind: 'probe' }, { trx });
      });
      await eventually(() => smtp.held() === held + 1, { what: 'a send held by the server' });
      const { rows: running } = await t.db.raw(
        "select count(*)::int as n from pgboss.job where name = 'mail.outbox' and state = 'active'",
      );
      expect(running[0].n).to.equal(4);
      // Stopping lets the four tries end (within the stop grace): the held send times out after 3 s,
      // then the three waiting ones go out on the connection.
      await other.close();

      const rows = await t.db('mail_outbox').whereRaw("recipients[1] like 'stop-%'").orderBy('status');
      expect(rows.map((r) => [r.status, r.attempts])).to.deep.equal([
        ['queued', 0],
        ['queued', 0],
        ['retrying', 1],
        ['sent', 1],
        ['sent', 1],
        ['sent', 1],
      ]);
      // The two not started are due: the next process sends them; the timed-out one waits for its retry.
      await drainOutbox(t, { plugins: PLUGINS, env: { MAIL_SETTINGS_ENCRYPTION_KEY: KEY } });
      expect(recipients.filter((to) => receivedBy(to).length === 1)).to.have.length(5);
      const done = await t.db('mail_outbox').whereRaw("recipients[1] like 'stop-%'").orderBy('status');
      expect(done.map((r) => r.status)).to.deep.equal(['retrying', 'sent', 'sent', 'sent', 'sent', 'sent']);
    } finally {
      await other.close();
      // The retrying row would be due in the next test, which moves the clock (its job then finds no
      // row and ends).
      await t.db('mail_outbox').whereRaw("recipients[1] like 'stop-%'").delete();
    }
  });

  it('a mail queued before the outbox was a job queue (marked by migration 0003) is enqueued at start and sent once', async () => {
    await queue('upgrade@example.test');
    // As migration 0003 leaves a pending row of the claim-based outbox: marked, and without a job.
    const row = await rowOf('upgrade@example.test');
    await t.db.raw("delete from pgboss.job where name = 'mail.outbox' and data->'payload'->>'mailId' = ?", [row.id]);
    await t.db('mail_outbox').where({ id: row.id }).update({ claimed_by: 'before-job-queue' });
    // Two processes start: each enqueues the marked rows it finds; the row is taken once.
    await drainOutbox(t, { plugins: PLUGINS, env: { MAIL_SETTINGS_ENCRYPTION_KEY: KEY } });
    await drainOutbox(t, { plugins: PLUGINS, env: { MAIL_SETTINGS_ENCRYPTION_KEY: KEY } });
    expect(await rowOf('upgrade@example.test')).to.include({ status: 'sent', attempts: 1, claimed_by: null });
    expect(receivedBy('upgrade@example.test')).to.have.length(1);
  });

  it('SMTP down: the mail waits (retrying); when the server is back it goes out later, once', async () => {
    const sender = await startTestKernel({
      plugins: PLUGINS,
      database: secondHandle(t.db),
      clock: t.clock,
      env: { MAIL_SETTINGS_ENCRYPTION_KEY: KEY },
    });
    const jobs = sender.kernel.resolve('jobs');
    try {
      await smtp.stop();
      await queue('down@example.test');
      await jobs.settled(OUTBOX_QUEUE);
      const waiting = await rowOf('down@example.test');
      expect(waiting).to.include({ status: 'retrying', attempts: 1 });
      expect(waiting.last_error).to.match(/ECONNREFUSED|ESOCKET|ECONNECTION/);
      // Not due yet: nothing is tried before its time.
      await t.advanceClock(30_000);
      await jobs.settled(OUTBOX_QUEUE);
      expect(await rowOf('down@example.test')).to.include({ status: 'retrying', attempts: 1 });

      await smtp.start();
      await t.advanceClock(31_000);
      await jobs.settled(OUTBOX_QUEUE);
      await smtp.waitFor(1);
      expect(receivedBy('down@example.test')).to.have.length(1);
      expect(await rowOf('down@example.test')).to.include({ status: 'sent', attempts: 2 });
      await t.advanceClock(3600_000);
      await jobs.settled(OUTBOX_QUEUE);
      expect(receivedBy('down@example.test')).to.have.length(1);
    } finally {
      await sender.close();
    }
  });
});
