import { expect } from 'chai';
import { definePlugin, type MailMessage, type Tx } from '../../kernel/index.ts';
import { mailbox, startTestKernel, type TestKernel } from '../helpers/kernel.ts';

describe('kernel mail port without a mail plugin', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ plugins: ['health'] });
  });
  after(() => t.close());

  it('sends nothing and says so: the answer names the reason, and no observer hears of a mail', async () => {
    const box = mailbox(t);
    const sent = await t.kernel.resolve('mail').send({ to: 'nobody@example.test', subject: 'x', text: 'x' });
    expect(sent).to.deep.equal({ accepted: false, reason: 'no-mail-plugin' });
    expect(box.messages).to.deep.equal([]);
    box.stop();
  });
});

/** The port as any plugin that serves it sees it: its outbox gets each mail with the caller's transaction. */
describe('kernel mail port served by a plugin', () => {
  let t: TestKernel;
  const queued: Array<{ message: MailMessage; trx: Tx | undefined }> = [];
  const outboxPlugin = definePlugin({
    id: 'probe-outbox',
    processes: ['core-api'],
    needs: ['mail'],
    onStart: ({ mail }) => void mail.serveWith({ queue: async (message, trx) => void queued.push({ message, trx }) }),
  });
  before(async () => {
    t = await startTestKernel({ plugins: ['health'], extraPlugins: [outboxPlugin] });
  });
  after(() => t.close());

  it("hands each mail to the serving outbox, inside the caller's transaction", async () => {
    await t.db.transaction(async (trx) => {
      expect(
        await t.kernel.resolve('mail').send({ to: 'a@example.test', subject: 'In', text: 'x' }, { trx }),
      ).to.deep.equal({ accepted: true });
      expect(queued.at(-1)?.trx).to.equal(trx);
    });
    expect(queued.at(-1)?.message.subject).to.equal('In');
  });

  it('drops mails over a throttle and says so; the window follows the kernel clock', async () => {
    const port = t.kernel.resolve('mail');
    const throttle = { key: 'probe:a@example.test', max: 2, windowMs: 3600_000 };
    const send = () => port.send({ to: 'a@example.test', subject: 'x', text: 'x' }, { throttle });
    expect(await send()).to.deep.equal({ accepted: true });
    expect(await send()).to.deep.equal({ accepted: true });
    expect(await send()).to.deep.equal({ accepted: false, reason: 'throttled' });
    await t.advanceClock(3600_001);
    expect(await send()).to.deep.equal({ accepted: true });
  });
});
