import { expect } from 'chai';
import { ManualClock } from '../../../kernel/clock.ts';
import { hashToken } from '../../../kernel/passwords.ts';
import { eventually, mailbox, type TestKernel } from '../../../test/helpers/kernel.ts';
import type { IdentityServices } from '../services/index.ts';
import { login, resetTokenFrom, startIdentity } from './helpers.ts';

describe('identity: forgot and reset password', () => {
  let t: TestKernel;
  let box: ReturnType<typeof mailbox>;
  const clock = new ManualClock();
  let ip = 0;
  // Each test speaks from its own client address so the per-address limit does not carry over.
  const nextAddress = () => `10.0.0.${++ip}`;
  before(async () => {
    t = await startIdentity({
      clock,
      env: { PUBLIC_BASE_URL: 'https://cms.example.org/', LOGIN_LOCKOUT_MAX_FAILURES: '2' },
    });
    box = mailbox(t);
  });
  after(async () => {
    box.stop();
    await t.close();
  });

  const forgot = (email: string, remoteAddress = nextAddress()) =>
    t.inject({ method: 'POST', url: '/auth/forgot-password', payload: { email }, remoteAddress });
  /** The reset e-mail queue: `settled()` once every requested e-mail has been handled. */
  const resets = () => t.services<IdentityServices>('identity').resets;
  const reset = (token: string, password: string) =>
    t.inject({ method: 'POST', url: '/auth/reset-password', payload: { token, password } });

  async function requestToken(email: string): Promise<string> {
    expect((await forgot(email)).statusCode).to.equal(202);
    return resetTokenFrom(await box.next(email));
  }

  it('answers 202 with the same body for known and unknown addresses, and mails a link only to the account', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    const known = await forgot(u.email.toUpperCase());
    const unknown = await forgot('nobody@example.test');
    expect(known.statusCode).to.equal(202);
    expect(unknown.statusCode).to.equal(202);
    expect(known.body).to.equal(unknown.body);
    const mail = await box.next(u.email);
    expect(mail.subject).to.equal('Reset your password');
    expect(mail.text).to.match(/https:\/\/cms\.example\.org\/reset-password\?token=[A-Za-z0-9_-]{43}\n/);
    await resets().settled();
    expect(box.messages.filter((m) => m.to === 'nobody@example.test')).to.have.length(0);
  });

  it('stores only the hash of the token', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    const token = await requestToken(u.email);
    const rows = await t.db('identity_reset_tokens').where({ user_id: u.id });
    expect(rows).to.have.length(1);
    expect(rows[0].token_hash).to.equal(hashToken(token));
    expect(JSON.stringify(rows)).not.to.contain(token);
  });

  it('inactive accounts get no mail', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    await t.db('users').where({ id: u.id }).update({ active: false });
    expect((await forgot(u.email)).statusCode).to.equal(202);
    await resets().settled();
    expect(box.messages.filter((m) => m.to === u.email)).to.have.length(0);
  });

  it('a bad e-mail answers 400 naming email', async () => {
    const res = await forgot('not-an-email');
    expect(res.statusCode).to.equal(400);
    expect(res.json().field).to.equal('email');
  });

  it('reset applies the policy (400 naming password, the link stays usable), then sets the password and revokes every session', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    const token = await requestToken(u.email);
    const weak = await reset(token, 'short');
    expect(weak.statusCode).to.equal(400);
    expect(weak.json()).to.include({ field: 'password', code: 'PASSWORD_POLICY' });
    const asEmail = await reset(token, u.email);
    expect(asEmail.json().field).to.equal('password');
    expect((await reset(token, 'a-fresh-password')).statusCode).to.equal(204);
    expect((await t.inject({ method: 'GET', url: '/auth/me', headers: { cookie: u.cookie } })).statusCode).to.equal(
      401,
    );
    expect((await login(t, u.email, u.password)).statusCode).to.equal(401);
    expect((await login(t, u.email, 'a-fresh-password')).statusCode).to.equal(200);
  });

  it('a token works once; older links of the same user die with it; unknown tokens answer 400 naming token', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    const first = await requestToken(u.email);
    const second = await requestToken(u.email);
    expect((await reset(second, 'password-number-1')).statusCode).to.equal(204);
    const replay = await reset(second, 'password-number-2');
    expect(replay.statusCode).to.equal(400);
    expect(replay.json()).to.include({ field: 'token', code: 'RESET_TOKEN_INVALID' });
    expect((await reset(first, 'password-number-3')).statusCode).to.equal(400);
    expect((await reset('made-up-token', 'password-number-4')).json().field).to.equal('token');
    expect((await login(t, u.email, 'password-number-1')).statusCode).to.equal(200);
  });

  it('a token expires after an hour', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    const token = await requestToken(u.email);
    clock.advance(61 * 60_000);
    expect((await reset(token, 'too-late-password')).statusCode).to.equal(400);
  });

  it('a completed reset lifts a login lockout on that e-mail', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    for (let i = 0; i < 2; i++) await login(t, u.email, 'wrong-wrong');
    expect((await login(t, u.email, u.password)).statusCode).to.equal(429);
    expect((await reset(await requestToken(u.email), 'unlocked-password')).statusCode).to.equal(204);
    expect((await login(t, u.email, 'unlocked-password')).statusCode).to.equal(200);
  });

  it('limits requests per client address with 429 + Retry-After', async () => {
    const address = '10.9.9.9';
    for (let i = 0; i < 10; i++) expect((await forgot(`someone-${i}@example.test`, address)).statusCode).to.equal(202);
    const res = await forgot('someone-else@example.test', address);
    expect(res.statusCode).to.equal(429);
    expect(Number(res.headers['retry-after'])).to.be.within(1, 15 * 60);
    expect((await forgot('someone-else@example.test')).statusCode).to.equal(202);
  });

  it('sends at most three links an hour to one address, answering 202 all the same', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    for (let i = 0; i < 4; i++) expect((await forgot(u.email)).statusCode).to.equal(202);
    await resets().settled();
    await expectThreeLinks(u.email);
    box.messages.splice(0);
  });

  it('counts requests for one address that arrive together: still three links', async () => {
    const u = await t.createUser({ roles: ['viewer'] });
    const answers = await Promise.all(Array.from({ length: 8 }, () => forgot(u.email)));
    expect(answers.map((a) => a.statusCode)).to.deep.equal(Array(8).fill(202));
    await resets().settled();
    await expectThreeLinks(u.email);
    box.messages.splice(0);
  });

  /** Three mails queued for `email` (the outbox holds every mail asked for) and all three sent. */
  async function expectThreeLinks(email: string) {
    const queued = await t.db('mail_outbox').whereRaw('? = ANY(to_addresses)', [email]).count({ n: '*' });
    expect(Number(queued[0].n)).to.equal(3);
    await eventually(() => expect(box.messages.filter((m) => m.to === email)).to.have.length(3));
  }
});
