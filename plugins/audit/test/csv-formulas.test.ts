import { expect } from 'chai';
import type { UserActor } from '../../../kernel/actor.ts';
import type { AuditWriter } from '../../../kernel/audit.ts';
import { startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';
import { parseCsv } from './csv-parse.ts';

const actor: UserActor = {
  type: 'user',
  id: 'u-mallory',
  email: 'mallory@example.test',
  displayName: 'mallory@example.test',
  roles: [],
  permissions: new Set(),
};

/**
 * Issue 30, item 14: every text a spreadsheet could read as a formula or a DDE call gets the
 * apostrophe in the audit CSV, the pipe among them, and so do the full-width signs and a sign after
 * leading blanks (both read as formulas by some spreadsheets).
 */
describe('audit plugin: the CSV export defuses every formula start', () => {
  let t: TestKernel;
  const labels = [
    '|cmd /c calc',
    '=1+1',
    ' =1+1',
    '\u3000+SUM(A1)',
    '\uFF1D1+1',
    '\uFF5Ccalc',
    '\ncmd',
    '\tx',
    'plain | text',
  ];

  before(async () => {
    t = await startTestKernel({ plugins: ['audit'] });
    const audit: AuditWriter = t.kernel.resolve('audit');
    for (const [i, label] of labels.entries())
      await audit.record(
        { actor },
        { action: 'role.create', targetType: 'role', targetId: `r-${i}`, targetLabel: label },
      );
  });
  after(() => t.close());

  it('prefixes the pipe, full-width signs and signs after blanks with an apostrophe; other text stays', async () => {
    const reader = await t.createUser({ permissions: ['audit:read'] });
    const res = await t.call('GET', `/audit-log?format=csv&limit=${labels.length}`, reader);
    expect(res.statusCode, res.body).to.equal(200);
    const rows = parseCsv(res.body);
    const column = rows[0]!.indexOf('target_label');
    const got = rows
      .slice(1)
      .map((r) => r[column])
      .reverse();
    expect(got).to.deep.equal([...labels.slice(0, -1).map((l) => `'${l}`), 'plain | text']);
  });
});
