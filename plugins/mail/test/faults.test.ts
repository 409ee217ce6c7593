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
import type { MailServices } from '../services/index.ts';

const KEY = 'a1'.repeat(32);
const PLUGINS = ['identity', 'content', 'mail'];

/**
 * Faults: a process killed mid-send, two processes on one outbox, the SMTP server down then up (last:
 * it moves this kernel's clock, which a child process on the system clock would not follow).
 */
describe('mail: outbox under faults', function () {
  this.timeout(120_000);
  let t: TestKernel;
  let smtp: SmtpCatcher;

  before(async () => {
    smtp = await startSmtpCatcher({ parse: true });
    // This kernel queues and configures; its own worker is off unless a test drains it by hand.
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

  const mail = () => t.services<MailServices>('mail');
  const queue = (to: string, subject = 'Fault test') =>
    t.kernel.resolve('mail').send({ to, subject, text: `to ${to}`, kind: 'probe' });
  const rowOf = (to: string) => t.db('mail_outbox').whereRaw('recipients @> array[?]::text[]', [to]).first();
  const receivedBy = (to: string) => smtp.received.filter((m) => m.envelope.to.includes(to));

  it('a process killed with SIGKILL mid-send leaves the mail queued; a worker sends it, once, when the claim ends', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cms-mail-kill-'));
    const url = (t.db.client as { connectionSettings: { connectionString: string } }).connectionSettings
      .connectionString;
    let child: ChildProcess | undefined;
    try {
      smtp.answerNext('hold');
      await queue('killed@example.test');
      child = spawn('node', [path.join(PROJECT_ROOT, 'bin', 'cms.js'), 'start', '--service', 'core-api'], {
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
          MAIL_POLL_MS: '100',
          PORT: String(await freePort()),
          HOST: '127.0.0.1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout!.on('data', (c) => (output += c));
      child.stderr!.on('data', (c) => (output += c));
      await eventually(() => smtp.held() === 1, { timeoutMs: 60_000, what: `the child to send (${output})` });
      // The child claimed the row (committed at once: no lock is held while the server holds the message).
      const claimed = await rowOf('killed@example.test');
      expect(claimed).to.include({ status: 'queued', attempts: 0 });
      expect(claimed.claimed_by).to.be.a('string');
      const locked = await t.db.raw(
        "select count(*)::int as n from mail_outbox where status = 'queued' and id not in (select id from mail_outbox for update skip locked)",
      );
      expect(locked.rows[0].n).to.equal(0);
      child.kill('SIGKILL');
      await new Promise((resolve) => child!.once('exit', resolve));

      // Still queued and untried; nobody sends it while the dead process's claim lasts.
      expect(await rowOf('killed@example.test')).to.include({ status: 'queued', attempts: 0 });
      expect(await mail().worker.drain()).to.equal(0);
      expect(receivedBy('killed@example.test')).to.have.length(0);

      // When the claim ends (2 × the send timeout + 60 s), the next worker sends it, once.
      await t.advanceClock(claimed.next_attempt_at.getTime() - t.clock.now().getTime() + 1000);
      expect(await mail().worker.drain()).to.equal(1);
      await eventually(() => receivedBy('killed@example.test').length === 1);
      expect(await rowOf('killed@example.test')).to.include({ status: 'sent', attempts: 1, claimed_by: null });
    } finally {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
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
            env: { MAIL_WORKER_CONCURRENCY: '4', MAIL_POLL_MS: '50', MAIL_SETTINGS_ENCRYPTION_KEY: KEY },
          }),
        );
      const before = smtp.received.length;
      const recipients = Array.from({ length: 60 }, (_, i) => `pair-${i}@example.test`);
      for (const to of recipients) await queue(to);
      for (const k of others) k.services<MailServices>('mail').worker.wake();
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

  it('a worker that stops records its sends in flight and gives back the mails it claimed but had not started', async () => {
    const other = await startTestKernel({
      plugins: PLUGINS,
      database: secondHandle(t.db),
      clock: t.clock,
      env: {
        MAIL_WORKER_ENABLED: '0',
        MAIL_WORKER_CONCURRENCY: '2',
        MAIL_SEND_TIMEOUT_SECONDS: '3',
        MAIL_SETTINGS_ENCRYPTION_KEY: KEY,
      },
    });
    try {
      const held = smtp.held();
      smtp.answerNext('hold', 'hold');
      const recipients = Array.from({ length: 4 }, (_, i) => `stop-${i}@example.test`);
      for (const to of recipients) await queue(to);
      const worker = other.services<MailServices>('mail').worker;
      worker.start();
      // Two lanes: two sends the server holds; the claim took all four (twice the lanes).
      await eventually(() => smtp.held() === held + 2, { what: 'two sends held by the server' });
      const claimed = await t.db('mail_outbox').whereRaw("recipients[1] like 'stop-%'").whereNotNull('claimed_by');
      expect(claimed).to.have.length(4);
      await worker.stop();

      const rows = await t.db('mail_outbox').whereRaw("recipients[1] like 'stop-%'").orderBy('status');
      expect(rows.map((r) => [r.status, r.attempts, r.claimed_by])).to.deep.equal([
        ['queued', 0, null],
        ['queued', 0, null],
        ['retrying', 1, null],
        ['retrying', 1, null],
      ]);
      // The two given back are due at once: the next worker sends them; the timed-out ones wait.
      expect(await mail().worker.drain()).to.equal(2);
      expect(recipients.filter((to) => receivedBy(to).length === 1)).to.have.length(2);
    } finally {
      await other.close();
      // The two retrying rows would be due in the next test, which moves the clock.
      await t.db('mail_outbox').whereRaw("recipients[1] like 'stop-%'").delete();
    }
  });

  it('SMTP down: the mail waits (retrying); when the server is back it goes out later, once', async () => {
    await smtp.stop();
    await queue('down@example.test');
    expect(await mail().worker.drain()).to.equal(1);
    const waiting = await rowOf('down@example.test');
    expect(waiting).to.include({ status: 'retrying', attempts: 1 });
    expect(waiting.last_error).to.match(/ECONNREFUSED|ESOCKET|ECONNECTION/);
    // Not due yet: nothing is tried before its time.
    expect(await mail().worker.drain()).to.equal(0);

    await smtp.start();
    await t.advanceClock(61_000);
    expect(await mail().worker.drain()).to.equal(1);
    await smtp.waitFor(1);
    expect(receivedBy('down@example.test')).to.have.length(1);
    expect(await rowOf('down@example.test')).to.include({ status: 'sent', attempts: 2 });
    expect(await mail().worker.drain()).to.equal(0);
    expect(receivedBy('down@example.test')).to.have.length(1);
  });
});
