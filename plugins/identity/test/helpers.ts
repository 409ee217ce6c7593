import { authenticator } from 'otplib';
import type { LightMyRequestResponse } from 'fastify';
import type { Clock } from '../../../kernel/clock.ts';
import type { MailMessage } from '../../../kernel/mail.ts';
import { SESSION_COOKIE } from '../../../kernel/sessions.ts';
import { startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';

/** A kernel with only the identity plugin on a fresh database. */
export function startIdentity(opts: { env?: Record<string, string>; clock?: Clock } = {}): Promise<TestKernel> {
  return startTestKernel({ plugins: ['identity'], env: opts.env, clock: opts.clock });
}

/** The raw Set-Cookie header for `cms_session`, if the answer set one. */
export function sessionSetCookie(res: LightMyRequestResponse): string | undefined {
  const header = res.headers['set-cookie'];
  const all = Array.isArray(header) ? header : header ? [header] : [];
  return all.find((c) => c.startsWith(`${SESSION_COOKIE}=`));
}

/** `cms_session=<token>` from an answer, ready for a Cookie header. */
export function cookieOf(res: LightMyRequestResponse): string {
  const raw = sessionSetCookie(res);
  if (!raw) throw new Error(`no session cookie in answer ${res.statusCode} ${res.body}`);
  return raw.split(';')[0];
}

export function login(t: TestKernel, email: string, password: string, remoteAddress?: string) {
  return t.inject({ method: 'POST', url: '/auth/login', payload: { email, password }, remoteAddress });
}

/** A TOTP code as an authenticator app would show it at the kernel clock's time. */
export function totp(secret: string, clock?: Clock): string {
  return authenticator.clone({ epoch: (clock?.now() ?? new Date()).getTime() }).generate(secret);
}

/** Collects the mails the kernel's mail port sends. */
export function mailbox(t: TestKernel) {
  const messages: MailMessage[] = [];
  const waiters: Array<(m: MailMessage) => void> = [];
  const stop = t.kernel.resolve('mail').onSent((m) => {
    messages.push(m);
    waiters.splice(0).forEach((w) => w(m));
  });
  return {
    messages,
    stop,
    /** The next mail sent to `to` (or already received since `from`), failing after `timeoutMs`. */
    async next(to: string, timeoutMs = 2000): Promise<MailMessage> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.find((m) => m.to === to);
        if (found) {
          messages.splice(messages.indexOf(found), 1);
          return found;
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
  };
}

export function resetTokenFrom(mail: MailMessage): string {
  const match = /\/reset-password\?token=([A-Za-z0-9_%-]+)/.exec(mail.text);
  if (!match) throw new Error(`no reset link in: ${mail.text}`);
  return decodeURIComponent(match[1]);
}

export function auditRows(t: TestKernel, action: string, targetId?: string) {
  const q = t.db('audit_log').where({ action }).orderBy('id');
  if (targetId) void q.andWhere({ target_id: targetId });
  return q.select('*');
}

/** Records what the plugin logs at warn level (the test logger is silent). */
export function captureWarnings(t: TestKernel): Array<{ obj: Record<string, unknown>; msg?: string }> {
  const log = t.kernel.pluginDeps('identity').log;
  const seen: Array<{ obj: Record<string, unknown>; msg?: string }> = [];
  log.warn = ((obj: Record<string, unknown>, msg?: string) => void seen.push({ obj, msg })) as typeof log.warn;
  return seen;
}

export const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
