import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../kernel/loader.ts';
import { hashPassword, hashToken, PRODUCTION_SCRYPT_COST, safeEqual, verifyPassword } from '../../kernel/passwords.ts';
import { assertPasswordAllowed, DEFAULT_PASSWORD_POLICY } from '../../kernel/password-policy.ts';
import type { HttpError } from '../../kernel/errors.ts';

describe('passwords and policy', () => {
  it('hashes at production cost (scrypt N=16384, r=8, p=1) unless the test suite lowers it', async () => {
    expect(PRODUCTION_SCRYPT_COST).to.deep.equal({ N: 16384, r: 8, p: 1 });
    // A process that is not this test run: the module's own default, as every real process has it.
    const script =
      "const { hashPassword } = await import('./kernel/passwords.ts'); process.stdout.write(await hashPassword('correct horse'));";
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: PROJECT_ROOT },
    );
    expect(stdout).to.match(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{88}$/);
    // Hashes carry their parameters: one made at production cost verifies here too.
    expect(await verifyPassword('correct horse', stdout)).to.equal(true);
    expect(await verifyPassword('wrong horse', stdout)).to.equal(false);
    // This run hashes cheaply (test/setup.ts).
    expect(await hashPassword('x')).to.match(/^scrypt\$1024\$8\$1\$/);
  });

  it('hashes with scrypt and a random salt, and verifies', async () => {
    const a = await hashPassword('correct horse');
    const b = await hashPassword('correct horse');
    expect(a).to.match(/^scrypt\$\d+\$8\$1\$/);
    expect(a).not.to.equal(b);
    expect(await verifyPassword('correct horse', a)).to.equal(true);
    expect(await verifyPassword('wrong horse', a)).to.equal(false);
    expect(await verifyPassword('anything', null)).to.equal(false);
  });

  it('stores tokens as SHA-256 and compares in constant time', () => {
    expect(hashToken('abc')).to.have.length(64);
    expect(safeEqual('abc', 'abc')).to.equal(true);
    expect(safeEqual('abc', 'abd')).to.equal(false);
    expect(safeEqual('abc', 'abcd')).to.equal(false);
  });

  const refusal = (fn: () => void) => {
    try {
      fn();
    } catch (err) {
      return err as HttpError;
    }
    return null;
  };

  it('applies length 8..128, the e-mail rule and three of four classes', () => {
    expect(refusal(() => assertPasswordAllowed('short', 'a@b.c', DEFAULT_PASSWORD_POLICY))?.field).to.equal('password');
    expect(
      refusal(() => assertPasswordAllowed('x'.repeat(129), 'a@b.c', DEFAULT_PASSWORD_POLICY))?.statusCode,
    ).to.equal(400);
    expect(
      refusal(() => assertPasswordAllowed('Admin@Example.com', 'admin@example.com', DEFAULT_PASSWORD_POLICY))?.message,
    ).to.contain('e-mail');
    expect(refusal(() => assertPasswordAllowed('longenough', 'a@b.c', DEFAULT_PASSWORD_POLICY))).to.equal(null);
    const strict = { minLength: 10, requireThreeClasses: true };
    expect(refusal(() => assertPasswordAllowed('alllowercase', 'a@b.c', strict))?.code).to.equal('PASSWORD_POLICY');
    expect(refusal(() => assertPasswordAllowed('Lower1234567', 'a@b.c', strict))).to.equal(null);
    expect(refusal(() => assertPasswordAllowed('Short1!', 'a@b.c', strict))?.message).to.contain('at least 10');
  });
});
