import { expect } from 'chai';
import { SYSTEM } from '../../../kernel/actor.ts';
import type { AuditWriter } from '../../../kernel/audit.ts';
import { expectNoLeaks } from '../../../test/helpers/answer-leaks.ts';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';
import type { AuditLogReader } from '../services/audit-log-reader.ts';

/**
 * The answer schema is the filter: even when the reader hands over more than the entry (an internal
 * sequence, a row hash), GET /audit-log answers only the entry's own fields.
 */
describe('audit: no internal column reaches a client', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let reader: TestUser;

  before(async () => {
    t = await startTestKernel({ plugins: ['audit'] });
    reader = await t.createUser({ permissions: ['audit:read'] });
    const audit: AuditWriter = t.kernel.resolve('audit');
    await audit.record({ actor: SYSTEM }, { action: 'leak.check', targetType: 'leak', targetId: '1' });
  });
  after(() => t?.close());

  it('answers the log page without an internal column', async () => {
    const res = await t.call('GET', '/audit-log?action=leak.check', reader);
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.json().entries).to.have.length(1);
    expectNoLeaks(res);
  });

  it('answers the log page by its schema, whatever else the reader returns', async () => {
    const services = t.services<{ reader: AuditLogReader }>('audit');
    const page = services.reader.page.bind(services.reader);
    services.reader.page = (async (...args) => {
      const out = await page(...args);
      return {
        ...out,
        internal_seq: 41,
        entries: out.entries.map((e) => ({ ...e, internal_seq: 42, row_hash: 'raw-row-hash' })),
      };
    }) as typeof services.reader.page;
    try {
      const res = await t.call('GET', '/audit-log?action=leak.check', reader);
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.json()).to.have.keys('entries', 'total');
      expect(res.json().entries[0]).to.include({ action: 'leak.check', target_id: '1' });
      expectNoLeaks(res, { keys: ['internal_seq', 'row_hash'], values: ['raw-row-hash'] });
    } finally {
      services.reader.page = page;
    }
  });
});
