import { connect, isIP, type Socket } from 'node:net';
import type { Transporter } from 'nodemailer';
import { isHttpError, type OutboundGuard, type ServiceMap } from '../../../kernel/index.ts';
import type { ServerTransport } from './server-transport.ts';
import { smtpHostRefusal } from './smtp-address.ts';
import { buildProviderRequest, type ProviderCatalog, type ProviderMessage, readAnswer } from './providers.ts';
import type { ResolvedSettings } from './settings.ts';

/** One mail ready to leave: secrets filled in, sender chosen. */
export interface OutgoingMail extends ProviderMessage {}

/**
 * How one send went. `temporary` failures are tried again later (connection refused, timeouts, SMTP
 * 4xx, HTTP 408/429/5xx); `permanent` ones are not (SMTP 5xx, other HTTP 4xx, a refused address).
 */
export type SendResult =
  | { kind: 'sent'; answer: string; delivered: boolean }
  | { kind: 'temporary'; problem: string; retryAfterMs?: number }
  | { kind: 'permanent'; problem: string };

const MAX_ANSWER = 1000;
const cut = (s: string) => (s.length > MAX_ANSWER ? `${s.slice(0, MAX_ANSWER)}…` : s);

/**
 * Sends through the configured provider: SMTP through nodemailer (one pooled transport per settings
 * version, so 1,000 mails use a few connections, not 1,000), an HTTP provider through the gateway's
 * outbound policy (`outboundFetch`), or, when nothing is configured, the server's own transport (SMTP_URL or the log).
 */
/** What the log says of a mail the server's own transport took. */
const SERVER_SMTP_ANSWER = 'handed to the SMTP server of SMTP_URL (no mail settings for this scope)';
/**
 * With no mail settings and no `SMTP_URL` a mail is only written to the service log. Its status stays
 * `sent` (the outbox is done with it), and the answer says it was not delivered; the log screen shows
 * it as "logged, not delivered" (the row's `delivered` is false).
 */
const LOGGED_ONLY_ANSWER = 'not delivered: only written to the service log (no mail settings and no SMTP_URL)';

export class Transports {
  private readonly pools = new Map<string, Promise<Transporter>>();

  constructor(
    private readonly deps: {
      /** SMTP_URL or the service log: for a scope without mail settings. */
      server: ServerTransport;
      providers: ProviderCatalog;
      outboundFetch: ServiceMap['outboundFetch'] | undefined;
      /** The kernel's outbound policy, asked before an SMTP connection (the sandbox profile refuses all). */
      outboundGuard: Pick<OutboundGuard, 'refusal'>;
      timeoutMs: number;
      /** Connections per SMTP pool: the mails one process sends at once (its tries of `mail.outbox` share them). */
      connections: number;
    },
  ) {}

  async send(settings: ResolvedSettings | undefined, mail: OutgoingMail): Promise<SendResult> {
    if (!settings) return this.viaServer(mail);
    if (settings.smtp) return this.viaSmtp(settings, mail);
    return this.viaProvider(settings, mail);
  }

  /** Closes the pooled SMTP connections. */
  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    for (const pool of pools) (await pool.catch(() => undefined))?.close();
  }

  private async viaServer(mail: OutgoingMail): Promise<SendResult> {
    try {
      const { server } = this.deps;
      await server.send({
        to: mail.to.join(', '),
        from: mail.fromHeader,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
      });
      const delivered = server.via === 'smtp';
      return { kind: 'sent', answer: delivered ? SERVER_SMTP_ANSWER : LOGGED_ONLY_ANSWER, delivered };
    } catch (err) {
      return smtpOutcome(err);
    }
  }

  private pool(settings: ResolvedSettings): Promise<Transporter> {
    let pool = this.pools.get(settings.version);
    if (!pool) {
      // Older versions of these settings are closed: their connections would never be used again.
      for (const [version, old] of this.pools)
        if (version.split(':')[0] === settings.version.split(':')[0]) {
          this.pools.delete(version);
          void old.then((t) => t.close()).catch(() => undefined);
        }
      const smtp = settings.smtp!;
      pool = import('nodemailer').then(({ default: nodemailer }) =>
        nodemailer.createTransport({
          pool: true,
          maxConnections: this.deps.connections,
          maxMessages: 1000,
          host: smtp.host,
          port: smtp.port,
          secure: smtp.secure,
          requireTLS: smtp.requireTls,
          auth: smtp.user && smtp.password ? { user: smtp.user, pass: smtp.password } : undefined,
          tls: {
            rejectUnauthorized: !smtp.allowInvalidCertificate,
            ...(isIP(smtp.host) ? {} : { servername: smtp.host }),
          },
          connectionTimeout: this.deps.timeoutMs,
          greetingTimeout: this.deps.timeoutMs,
          socketTimeout: this.deps.timeoutMs,
          getSocket: (_options, callback) => connectWithoutDelay(smtp.host, smtp.port, this.deps.timeoutMs, callback),
        }),
      );
      this.pools.set(settings.version, pool);
    }
    return pool;
  }

  private readonly addressChecks = new Map<string, { at: number; refusal: Promise<string | undefined> }>();

  /**
   * The address policy for an SMTP host (settings stored before the check existed, or a name that now
   * resolves elsewhere), asked once a minute per host rather than per mail: a drain of 1,000 mails
   * resolves the name once.
   */
  private addressRefusal(host: string): Promise<string | undefined> {
    const now = Date.now();
    const known = this.addressChecks.get(host);
    if (known && now - known.at < 60_000) return known.refusal;
    if (this.addressChecks.size > 1_000) this.addressChecks.clear();
    const refusal = smtpHostRefusal(this.deps.outboundFetch, host).catch(() => undefined);
    this.addressChecks.set(host, { at: now, refusal });
    return refusal;
  }

  private async viaSmtp(settings: ResolvedSettings, mail: OutgoingMail): Promise<SendResult> {
    // Every path that sends (the outbox queue, a mail sent at once, a test mail) comes through here.
    const refused =
      this.deps.outboundGuard.refusal(settings.smtp!.host) ?? (await this.addressRefusal(settings.smtp!.host));
    if (refused !== undefined) return { kind: 'permanent', problem: `not sent: ${refused}` };
    try {
      const transport = await this.pool(settings);
      const info = await transport.sendMail({
        from: mail.fromName ? { name: mail.fromName, address: mail.from } : mail.from,
        to: mail.to,
        cc: mail.cc.length ? mail.cc : undefined,
        replyTo: mail.replyTo,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: mail.messageId,
      });
      return { kind: 'sent', answer: cut(String(info.response ?? 'accepted')), delivered: true };
    } catch (err) {
      return smtpOutcome(err);
    }
  }

  private async viaProvider(settings: ResolvedSettings, mail: OutgoingMail): Promise<SendResult> {
    const provider = this.deps.providers.get(settings.provider);
    if (!provider) return { kind: 'permanent', problem: `mail provider ${settings.provider} is not installed` };
    if (!this.deps.outboundFetch)
      return {
        kind: 'temporary',
        problem: 'HTTP mail providers need the gateway plugin (outbound HTTP policy) in this process',
      };
    const request = buildProviderRequest(provider, settings.providerConfig ?? {}, mail);
    let answer: Awaited<ReturnType<NonNullable<ServiceMap['outboundFetch']>['fetch']>>;
    try {
      answer = await this.deps.outboundFetch.fetch(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        timeoutMs: this.deps.timeoutMs,
        maxBytes: 64 * 1024,
      });
    } catch (err) {
      if (isHttpError(err) && err.statusCode === 403) return { kind: 'permanent', problem: err.message };
      return { kind: 'temporary', problem: `no answer from ${provider.label}: ${(err as Error).message}` };
    }
    const body = answer.body.toString('utf8');
    const status = answer.status;
    if (status >= 200 && status < 300) {
      const id = readAnswer(provider.response.messageId, answer.headers, body);
      return { kind: 'sent', answer: cut(`${status}${id ? ` id ${id}` : ''}`), delivered: true };
    }
    const problem = cut(
      `${provider.label} answered ${status}: ${readAnswer(provider.response.error, answer.headers, body) ?? body.slice(0, 200)}`,
    );
    if (status === 408 || status === 429 || status >= 500) {
      const retryAfter = Number(answer.headers['retry-after']);
      return {
        kind: 'temporary',
        problem,
        retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined,
      };
    }
    return { kind: 'permanent', problem };
  }
}

/**
 * The TCP connection of a pooled SMTP transport, with Nagle's algorithm off. nodemailer leaves it on
 * and writes a message's end (`.` line) apart from its body: the kernel then holds that last small
 * segment until the server acknowledges the body, and servers delay that ACK (Linux: 40 ms), so
 * every mail waited about 40 ms on an idle connection (measured: 46 ms a mail on one connection,
 * 3.6 ms with this). nodemailer upgrades this socket itself (STARTTLS, or implicit TLS when
 * `secure`), with the same `tls` options as a connection it opens.
 */
function connectWithoutDelay(
  host: string,
  port: number,
  timeoutMs: number,
  callback: (err: Error | null, socketOptions?: { connection: Socket }) => void,
): void {
  const socket = connect({ host, port, noDelay: true, keepAlive: true });
  const fail = (err: Error) => {
    clearTimeout(timer);
    socket.destroy();
    callback(err);
  };
  const timer = setTimeout(
    () => fail(Object.assign(new Error(`Connection timeout to ${host}:${port}`), { code: 'ETIMEDOUT' })),
    timeoutMs,
  );
  socket.once('error', fail);
  socket.once('connect', () => {
    clearTimeout(timer);
    socket.removeListener('error', fail);
    callback(null, { connection: socket });
  });
}

/** An SMTP error: a 5xx reply is a refusal (not retried); 4xx replies and connection trouble are retried. */
function smtpOutcome(err: unknown): SendResult {
  const e = err as { responseCode?: number; response?: string; code?: string; message?: string };
  const problem = cut(e.response ? `SMTP ${e.response}` : `${e.code ?? 'error'}: ${e.message ?? String(err)}`);
  if (typeof e.responseCode === 'number' && e.responseCode >= 500) return { kind: 'permanent', problem };
  return { kind: 'temporary', problem };
}
