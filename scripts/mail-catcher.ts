/**
 * A local SMTP catcher for development (`npm run mail:catcher`): listens on 127.0.0.1 (port
 * MAIL_CATCHER_PORT, default 1025) in plain text (no STARTTLS, so no certificate to trust), accepts
 * any sender, recipient and login, and prints each mail (envelope, subject, text part)
 * instead of delivering it. Point the product at it with `PUT /mail-settings` (README, "Mail").
 * Needs the development dependencies (`npm ci`), not a production install.
 */
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

const port = Number(process.env.MAIL_CATCHER_PORT ?? 1025);

const server = new SMTPServer({
  disabledCommands: ['STARTTLS'],
  authOptional: true,
  allowInsecureAuth: true,
  logger: false,
  onAuth: (_auth, _session, callback) => callback(null, { user: 'dev' }),
  onData(stream, session, callback) {
    simpleParser(stream)
      .then((mail) => {
        const to = session.envelope.rcptTo.map((r) => r.address).join(', ');
        console.log(`\n--- mail to ${to} from ${session.envelope.mailFrom ? session.envelope.mailFrom.address : ''}`);
        console.log(`Subject: ${mail.subject ?? ''}`);
        console.log(`Message-ID: ${mail.messageId ?? ''}${mail.html ? ' (with an HTML part)' : ''}\n`);
        console.log(mail.text ?? '');
        callback(null, 'caught');
      })
      .catch((err: Error) => callback(err));
  },
});
server.listen(port, '127.0.0.1', () => console.log(`mail catcher: SMTP on 127.0.0.1:${port}; Ctrl-C to stop`));
