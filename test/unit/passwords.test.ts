import { expect } from 'chai';
import { hashPassword, hashToken, safeEqual, verifyPassword } from '../../kernel/passwords.ts';
import { assertPasswordAllowed, DEFAULT_PASSWORD_POLICY } from '../../kernel/password-policy.ts';
import { HttpError } from '../../kernel/errors.ts';

describe('passwords and policy', () => {
  it('hashes with scrypt and a random salt, and verifies', async () => {
    const a = await hashPassword('correct horse');
    const b = await hashPassword('correct horse');
    expect(a).to.match(/^scrypt\$16384\$8\$1\$/);
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
    expect(refusal(() => assertPasswordAllowed('x'.repeat(129), 'a@b.c', DEFAULT_PASSWORD_POLICY))?.statusCode).to.equal(400);
    expect(refusal(() => assertPasswordAllowed('Admin@Example.com', 'admin@example.com', DEFAULT_PASSWORD_POLICY))?.message).to.contain('e-mail');
    expect(refusal(() => assertPasswordAllowed('longenough', 'a@b.c', DEFAULT_PASSWORD_POLICY))).to.equal(null);
    const strict = { minLength: 10, requireThreeClasses: true };
    expect(refusal(() => assertPasswordAllowed('alllowercase', 'a@b.c', strict))?.code).to.equal('PASSWORD_POLICY');
    expect(refusal(() => assertPasswordAllowed('Lower1234567', 'a@b.c', strict))).to.equal(null);
    expect(refusal(() => assertPasswordAllowed('Short1!', 'a@b.c', strict))?.message).to.contain('at least 10');
  });
});
