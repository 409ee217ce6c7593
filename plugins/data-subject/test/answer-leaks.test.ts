import { expect } from 'chai';
import { definePlugin } from '../../../kernel/index.ts';
import { expectNoLeaks } from '../../../test/helpers/answer-leaks.ts';
import { startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';

const HASH = 'scrypt$16384$8$1$c2FsdA$aGFzaC1vZi10aGUtcGFzc3dvcmQ';
const TOKEN = 'session-token-of-the-person-0123456789';

/**
 * A source that hands over more than the documented item: the stored account row with its password
 * hash and a session token, and a kept record with its storage place. The answer schemas are the
 * filter: search and erase name the items and never carry the rest.
 */
const carelessSource = definePlugin({
  id: 'careless-source',
  processes: ['core-api'],
  needs: [],
  contributes: {
    dataSubjectSources: () => ({
      kind: 'accounts-copy',
      async find() {
        const item = { id: 'a1', at: '2026-01-01T00:00:00.000Z', label: 'Kim', matched: ['email'] };
        return { kind: 'accounts-copy', count: 1, items: [{ ...item, password_hash: HASH, sessionToken: TOKEN }] };
      },
      async erase() {
        const kept = { id: 'a1', label: 'Kim', reason: 'held by a legal hold', storage_key: `a/${TOKEN}` };
        return { kind: 'accounts-copy', erased: 0, kept: [kept] };
      },
    }),
  },
});

describe('data-subject: no answer carries what a source holds beyond the documented item', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: TestUser;
  before(async () => {
    t = await startTestKernel({ plugins: ['identity', 'data-subject'], extraPlugins: [carelessSource] });
    admin = await t.admin();
  });
  after(() => t?.close());

  it('search and erase (dry run and for real)', async () => {
    const identifier = 'kim@example.test';
    const forbidden = { keys: ['password_hash', 'sessionToken', 'storage_key'], values: [HASH, TOKEN] };
    const answers = [
      ['POST /data-subject/search', await t.call('POST', '/data-subject/search', admin, { identifier })],
      ['POST /data-subject/erase (dry run)', await t.call('POST', '/data-subject/erase', admin, { identifier })],
      [
        'POST /data-subject/erase',
        await t.call('POST', '/data-subject/erase', admin, { identifier, dryRun: false, confirm: identifier }),
      ],
    ] as const;
    for (const [what, res] of answers) {
      expect(res.statusCode, `${what}: ${res.body}`).to.equal(200);
      expectNoLeaks(res, forbidden);
    }
    expect(answers[0][1].json().results['accounts-copy'][0]).to.deep.equal({
      id: 'a1',
      at: '2026-01-01T00:00:00.000Z',
      label: 'Kim',
      matched: ['email'],
    });
  });
});
