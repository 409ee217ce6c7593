import { readFileSync } from 'node:fs';
import path from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { PROJECT_ROOT } from '../../kernel/loader.ts';
import { freePort } from './ports.ts';

const FIXTURES = path.join(PROJECT_ROOT, 'plugins', 'mail', 'test', 'fixtures');

/** What the catcher does with the next message: accept it, refuse it with an SMTP code, or never answer. */
type Answer = 'accept' | 'hold' | { code: number; message: string };

export interface CaughtMail {
  envelope: { from: string; to: string[] };
  /** Whether the session had switched to TLS (STARTTLS or implicit) when the message came. */
  secure: boolean;
  user: string | undefined;
  parsed: ParsedMail;
}

export interface SmtpCatcher {
  port: number;
  host: string;
  user: string;
  password: string;
  received: CaughtMail[];
  /** Answers for the next messages, in order; then `accept`. */
  answerNext(...answers: Answer[]): void;
  /** Messages the catcher holds without answering (a sender stuck mid-send). */
  held(): number;
  /** Waits until `n` messages were accepted. */
  waitFor(n: number, timeoutMs?: number): Promise<CaughtMail[]>;
  /** Stops listening (connections are cut); `start()` listens again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real SMTP server for tests and the benchmark (`smtp-server`) on a free loopback port: STARTTLS
 * with a throwaway self-signed certificate (or implicit TLS with `implicitTls`), AUTH PLAIN/LOGIN
 * required and only after TLS, every accepted message parsed with `mailparser`.
 */
export async function startSmtpCatcher(
  opts: { implicitTls?: boolean; parse?: boolean; port?: number } = {},
): Promise<SmtpCatcher> {
  const user = 'mailer';
  const password = 'smtp-secret-Ünïcode';
  const received: CaughtMail[] = [];
  const answers: Answer[] = [];
  let holding = 0;
  const waiters: Array<() => void> = [];
  const options: SMTPServerOptions = {
    secure: opts.implicitTls ?? false,
    key: readFileSync(path.join(FIXTURES, 'localhost-key.pem')),
    cert: readFileSync(path.join(FIXTURES, 'localhost-cert.pem')),
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: false,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) return callback(null, { user: auth.username });
      return callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      const answer = answers.shift() ?? 'accept';
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (answer === 'hold') {
          holding += 1;
          return;
        }
        if (answer !== 'accept')
          return callback(Object.assign(new Error(answer.message), { responseCode: answer.code }));
        const raw = Buffer.concat(chunks);
        const record = (parsed: ParsedMail) => {
          received.push({
            envelope: {
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
            },
            secure: session.secure,
            user: session.user as string | undefined,
            parsed,
          });
          for (const w of waiters.splice(0)) w();
        };
        if (opts.parse === false) {
          record({} as ParsedMail);
          callback(null, 'queued');
        } else
          simpleParser(raw)
            .then((parsed) => {
              record(parsed);
              callback(null, 'queued');
            })
            .catch((err: Error) => callback(err));
      });
    },
  };
  const port = opts.port ?? (await freePort());
  let server: SMTPServer | undefined;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      server = new SMTPServer(options);
      server.on('error', () => undefined);
      server.listen(port, '127.0.0.1', () => resolve());
      server.server.once('error', reject);
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      const s = server;
      server = undefined;
      if (!s) return resolve();
      // Held messages are never answered: close cuts their connections.
      s.close(() => resolve());
      for (const socket of (s as unknown as { connections: Set<{ close(): void }> }).connections ?? []) socket.close();
    });
  await start();
  return {
    port,
    host: '127.0.0.1',
    user,
    password,
    received,
    answerNext: (...a) => void answers.push(...a),
    held: () => holding,
    async waitFor(n, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < n) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`SMTP catcher: ${received.length} of ${n} mails within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.min(left, 200));
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
      return received;
    },
    stop,
    start,
    close: stop,
  };
}
