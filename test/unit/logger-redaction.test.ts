import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createLogger } from '../../kernel/logger.ts';

/** The lines a logger writes, parsed. */
function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const text of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(text));
      done();
    },
  });
  return { lines, logger: createLogger('trace', { service: 'core-api', destination }) };
}

describe('the process logger redacts credentials', () => {
  it('replaces values named like a credential on the logged object and two levels below, keeping the rest', async () => {
    const { lines, logger } = capture();
    const logged = {
      password: 'pw-top',
      body: { email: 'a@example.test', newPassword: 'pw-nested', clientSecret: 'cs-nested' },
      settings: { smtp: { user: 'mailer', pass: 'smtp-pass' } },
      headers: { Authorization: 'Bearer abc', 'X-Cms-Key': 'wbk_x', accept: 'text/html' },
      tokens: { access_token: 'at', refresh_token: 'rt', mfaToken: 'mt' },
      empty: { password: '' },
    };
    logger.info(logged, 'a login');
    await new Promise((r) => setImmediate(r));
    const [line] = lines;
    expect(line).to.include({ password: '[redacted]', service: 'core-api', msg: 'a login' });
    expect(line.body).to.deep.equal({ email: 'a@example.test', newPassword: '[redacted]', clientSecret: '[redacted]' });
    expect(line.settings).to.deep.equal({ smtp: { user: 'mailer', pass: '[redacted]' } });
    expect(line.headers).to.deep.equal({ Authorization: '[redacted]', 'X-Cms-Key': '[redacted]', accept: 'text/html' });
    expect(line.tokens).to.deep.equal({
      access_token: '[redacted]',
      refresh_token: '[redacted]',
      mfaToken: '[redacted]',
    });
    expect(line.empty).to.deep.equal({ password: '' });
    // The caller's object is left as it was.
    expect(logged.password).to.equal('pw-top');
    expect(logged.body.newPassword).to.equal('pw-nested');
    expect(logged.headers.Authorization).to.equal('Bearer abc');
  });

  it('keeps errors whole (type, message, code) and redacts the credential headers of a logged request', async () => {
    const { lines, logger } = capture();
    logger.error({ err: Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' }) }, 'failed');
    logger.info({ req: { method: 'GET', url: '/x', headers: { authorization: 'Bearer r', cookie: 'cms_session=s' } } });
    await new Promise((r) => setImmediate(r));
    expect(lines[0].err).to.include({ type: 'Error', message: 'connection refused', code: 'ECONNREFUSED' });
    expect(JSON.stringify(lines[1])).not.to.match(/Bearer r|cms_session=s/);
  });
});
