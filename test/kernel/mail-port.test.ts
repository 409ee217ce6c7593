import { expect } from 'chai';
import { mailbox, startTestKernel, type TestKernel } from '../helpers/kernel.ts';

/** The kernel's mail port without a mail plugin: after-commit sending, rollback, the throttle. */
describe('kernel mail port (no mail plugin)', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ plugins: ['health'] });
  });
  after(() => t.close());

  it('sends a mail given a transaction only after it commits, and nothing when it rolls back', async () => {
    const box = mailbox(t);
    const port = t.kernel.resolve('mail');
    await t.db
      .transaction(async (trx) => {
        await port.send({ to: 'rolled@example.test', subject: 'x', text: 'x' }, { trx });
        throw new Error('roll back');
      })
      .catch(() => undefined);
    let sentInside = -1;
    await t.db.transaction(async (trx) => {
      await port.send({ to: 'kept@example.test', subject: 'Kept', text: 'x' }, { trx });
      sentInside = box.messages.length;
    });
    expect(sentInside).to.equal(0);
    expect((await box.next('kept@example.test')).subject).to.equal('Kept');
    expect(box.messages.map((m) => m.to)).not.to.include('rolled@example.test');
    box.stop();
  });

  it('drops mails over a throttle and says so; the window follows the kernel clock', async () => {
    const port = t.kernel.resolve('mail');
    const throttle = { key: 'probe:a@example.test', max: 2, windowMs: 3600_000 };
    const send = () => port.send({ to: 'a@example.test', subject: 'x', text: 'x' }, { throttle });
    expect(await send()).to.deep.equal({ accepted: true });
    expect(await send()).to.deep.equal({ accepted: true });
    expect(await send()).to.deep.equal({ accepted: false });
    await t.advanceClock(3600_001);
    expect(await send()).to.deep.equal({ accepted: true });
  });
});
