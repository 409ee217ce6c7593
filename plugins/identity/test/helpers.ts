import { authenticator } from 'otplib';
import type { Clock } from '../../../kernel/clock.ts';
import type { MailMessage } from '../../../kernel/mail.ts';
import { startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';

/** A kernel with only the identity plugin on a fresh database. */
export function startIdentity(opts: { env?: Record<string, string>; clock?: Clock } = {}): Promise<TestKernel> {
  return startTestKernel({ plugins: ['identity', 'mail'], env: opts.env, clock: opts.clock });
}

export function login(t: TestKernel, email: string, password: string, remoteAddress?: string) {
  return t.inject({ method: 'POST', url: '/auth/login', payload: { email, password }, remoteAddress });
}

/** A TOTP code as an authenticator app would show it at the kernel clock's time. */
export function totp(secret: string, clock?: Clock): string {
  return authenticator.clone({ epoch: (clock?.now() ?? new Date()).getTime() }).generate(secret);
}

export function resetTokenFrom(mail: MailMessage): string {
  const match = /\/reset-password\?token=([A-Za-z0-9_%-]+)/.exec(mail.text);
  if (!match) throw new Error(`no reset link in: ${mail.text}`);
  return decodeURIComponent(match[1]);
}

/** Records what the plugin logs at warn level (the test logger is silent). */
export function captureWarnings(t: TestKernel): Array<{ obj: Record<string, unknown>; msg?: string }> {
  const log = t.kernel.pluginDeps('identity').log;
  const seen: Array<{ obj: Record<string, unknown>; msg?: string }> = [];
  log.warn = ((obj: Record<string, unknown>, msg?: string) => void seen.push({ obj, msg })) as typeof log.warn;
  return seen;
}
