import { expect } from 'chai';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { SecretBox } from '../../kernel/secret-box.ts';
import { HttpError } from '../../kernel/errors.ts';

const logger = pino({ level: 'silent' });

describe('secret box (AES-256-GCM with named keys)', () => {
  it('round-trips and never stores the plaintext', () => {
    const box = new SecretBox(
      { TOTP_ENCRYPTION_KEY: 'a'.repeat(64) },
      { production: true, dataDir: '/nonexistent', logger },
    );
    const sealed = box.encrypt('TOTP_ENCRYPTION_KEY', 'JBSWY3DPEHPK3PXP');
    expect(sealed).to.match(/^v1:TOTP_ENCRYPTION_KEY:/);
    expect(sealed).not.to.contain('JBSWY3DPEHPK3PXP');
    expect(box.decrypt(sealed)).to.equal('JBSWY3DPEHPK3PXP');
    expect(box.encrypt('TOTP_ENCRYPTION_KEY', 'x')).not.to.equal(box.encrypt('TOTP_ENCRYPTION_KEY', 'x'));
  });

  it('refuses a value sealed with another key and a tampered value', () => {
    const a = new SecretBox({ TOTP_ENCRYPTION_KEY: 'first passphrase' }, { production: true, dataDir: '/x', logger });
    const b = new SecretBox({ TOTP_ENCRYPTION_KEY: 'second passphrase' }, { production: true, dataDir: '/x', logger });
    const sealed = a.encrypt('TOTP_ENCRYPTION_KEY', 'secret');
    expect(() => b.decrypt(sealed)).to.throw();
    const parts = sealed.split(':');
    parts[4] = Buffer.from('tampered').toString('base64');
    expect(() => a.decrypt(parts.join(':'))).to.throw();
  });

  it('in production a missing key is a 503 naming the variable', () => {
    const box = new SecretBox({}, { production: true, dataDir: '/x', logger });
    try {
      box.encrypt('MAIL_SETTINGS_ENCRYPTION_KEY', 'pw');
      expect.fail('should throw');
    } catch (err) {
      expect(err).to.be.instanceOf(HttpError);
      expect((err as HttpError).statusCode).to.equal(503);
      expect((err as HttpError).message).to.contain('MAIL_SETTINGS_ENCRYPTION_KEY');
    }
  });

  it('outside production generates a local key once, readable only by the owner', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cms-keys-'));
    const first = new SecretBox({}, { production: false, dataDir: dir, logger });
    const sealed = first.encrypt('TOTP_ENCRYPTION_KEY', 'hello');
    const file = path.join(dir, 'keys', 'TOTP_ENCRYPTION_KEY');
    expect(readFileSync(file, 'utf8').trim()).to.match(/^[0-9a-f]{64}$/);
    expect(statSync(file).mode & 0o077).to.equal(0);
    const second = new SecretBox({}, { production: false, dataDir: dir, logger });
    expect(second.decrypt(sealed)).to.equal('hello');
  });

  it('keeps only the keys folder private: the data folder it creates stays enterable (the embedded database runs as another user)', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'cms-keys-'));
    const dataDir = path.join(root, 'data', 'nested');
    new SecretBox({}, { production: false, dataDir, logger }).encrypt('TOTP_ENCRYPTION_KEY', 'x');
    for (const folder of [path.join(root, 'data'), dataDir])
      expect(statSync(folder).mode & 0o055, folder).to.equal(0o055);
    expect(statSync(path.join(dataDir, 'keys')).mode & 0o077).to.equal(0);
  });
});
